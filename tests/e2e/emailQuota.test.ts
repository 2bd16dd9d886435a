/**
 * The organisation's daily e-mail quota counts every e-mail sent on its members' behalf, one per e-mail, when
 * it is queued; an action (completion, void, reassignment, reminder, decline) is never refused for it:
 * the e-mails past it are not sent and their recipients' `lastEmail` is `failed` with
 * `reason: "quota"`. A draft the owner completes e-mails only the owner. (docs/api.md "Rate limits
 * and quotas", "lastEmail", "Completing as the owner".) Real HTTP, Azurite and the suite's SMTP
 * catcher; a service of its own with a small `EMAIL_DAILY_QUOTA`, and a new owner per test.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { queuedToday } from '../../src/lib/envelopes/dailyQuota.js';
import type { EmailMessage } from '../../src/lib/notifications/outbox.js';
import { remindRecipients } from '../../src/lib/recipients/remind.js';
import { getServices } from '../../src/lib/services.js';
import { emailsTo, waitForEmail } from '../support/mail.js';
import { joinedMember, organizationIdOf } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, serviceWithSettings, type ApiResponse, type TestUser } from '../support/service.js';
import { emailsDispatched, outboxBatches, outboxMessages, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';

const QUOTA = 6;
const settings: Record<string, string> = { EMAIL_DAILY_QUOTA: String(QUOTA), REMINDER_DAY_SECONDS: '60' };
const started = serviceWithSettings(settings);

/** `count` recipients with addresses of their own, all of `role`. */
function people(count: number, role: string, tag: string): { email: string; name: string; role: string }[] {
  const run = randomUUID().slice(0, 8);
  return Array.from({ length: count }, (_, index) => ({ email: `${tag}${index}-${run}@example.com`, name: `${tag} ${index}`, role }));
}

const used = async (owner: TestUser): Promise<number> => await queuedToday(getServices().storage.tables.envelopes, 'email', await organizationIdOf(owner));
const get = (owner: TestUser, id: string): Promise<ApiResponse<any>> => started.env().api.request('GET', `/envelopes/${id}`, { token: owner.token });

/** The e-mails of the envelope's newest outbox batch. */
async function lastBatchEmails(owner: TestUser, id: string): Promise<EmailMessage[]> {
  const batch = (await outboxBatches(owner.userId, id)).at(-1);
  return (batch?.messages ?? []).flatMap((message) => (message.kind === 'email' ? [message] : []));
}

const pastQuota = (type: string) => ({ type, status: 'failed', at: expect.any(String), reason: 'quota' });

describe('POST /api/envelopes/{id}/complete from draft', () => {
  test('e-mails only the owner, however many recipients the draft lists, and counts that one e-mail', async () => {
    const owner = await started.env().newUser();
    const recipients = [...people(1, 'signer', 'draft-signer'), ...people(30, 'cc', 'draft-cc')];
    const id = await createEnvelopeWithDocument(started.env().api, owner, await corpusPdf('normal.pdf'));
    expect((await started.env().api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: recipients } })).status).toBe(200);

    const completed = await started.env().api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);

    const emails = (await outboxMessages(owner.userId, id)).filter((message) => message.kind === 'email');
    expect(emails.map((message) => [message.type, message.to.email])).toEqual([['completed', owner.email]]);
    expect(await used(owner)).toBe(1);
    await waitForEmail(owner.email, { subject: /^Completed:/ });
    const envelope = (await get(owner, id)).body;
    expect(envelope.signers.map((signer: any) => signer.lastEmail)).toEqual(recipients.map(() => null));
    for (const recipient of recipients) expect(await emailsTo(recipient.email)).toEqual([]);
  }, patience(60_000));
});

describe('a completion past the quota', () => {
  test('completes; the e-mails within the quota go out, one counted per e-mail; the rest are not sent and show lastEmail failed, reason quota', async () => {
    const owner = await started.env().newUser();
    const [ada] = people(1, 'signer', 'ada');
    const copies = people(8, 'cc', 'copy');
    const { id } = await sentEnvelope(started.env().api, owner, { signers: [ada!, ...copies] });
    expect(await used(owner)).toBe(1); // ada's invitation

    // The completion has 10 e-mails (the owner, Ada, 8 copies) and 5 left of the quota.
    const signed = await started.env().api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, ada!.email), json: { consent: true } });
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({ envelope: { status: 'completed' } });
    expect(await used(owner)).toBe(QUOTA);

    const admitted = [owner.email, ada!.email, ...copies.slice(0, 3).map((copy) => copy.email)];
    expect((await lastBatchEmails(owner, id)).map((message) => [message.type, message.to.email])).toEqual(admitted.map((email) => ['completed', email]));
    for (const email of admitted) await waitForEmail(email, { subject: /^Completed:/ });
    await emailsDispatched(owner.userId, id);

    const envelope = (await get(owner, id)).body;
    expect(envelope.status).toBe('completed');
    const lastEmails = envelope.signers.map((signer: any) => signer.lastEmail);
    expect(lastEmails.slice(0, 4)).toEqual(Array.from({ length: 4 }, () => ({ type: 'completed', status: 'sent', at: expect.any(String) })));
    expect(lastEmails.slice(4)).toEqual(Array.from({ length: 5 }, () => pastQuota('completed')));
    for (const copy of copies.slice(3)) expect(await emailsTo(copy.email)).toEqual([]);
  }, patience(90_000));
});

describe('every e-mail an action queues counts, and the action is never refused', () => {
  test('voiding a sent envelope: one voided e-mail counted per recipient, those past the quota not sent', async () => {
    const owner = await started.env().newUser();
    const signers = people(5, 'signer', 'void');
    const { id } = await sentEnvelope(started.env().api, owner, { signers });
    expect(await used(owner)).toBe(5);

    const voided = await started.env().api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'voided' } });
    expect(voided.status).toBe(200);
    expect(voided.body.status).toBe('voided');
    expect(await used(owner)).toBe(QUOTA);
    expect((await lastBatchEmails(owner, id)).map((message) => [message.type, message.to.email])).toEqual([['voided', signers[0]!.email]]);
    expect(voided.body.signers.map((signer: any) => signer.lastEmail)).toEqual([
      { type: 'voided', status: 'queued', at: expect.any(String) },
      ...Array.from({ length: 4 }, () => pastQuota('voided')),
    ]);
    await waitForEmail(signers[0]!.email, { subject: /^Voided:/ });
  }, patience(60_000));

  test('concurrent voids of several envelopes queue exactly what is left of the quota, no more', async () => {
    const owner = await started.env().newUser();
    const envelopes = await Promise.all(Array.from({ length: 4 }, async () => (await sentEnvelope(started.env().api, owner, { signers: people(1, 'signer', 'race') })).id));
    expect(await used(owner)).toBe(4);

    const answers = await Promise.all(envelopes.map((id) => started.env().api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'voided' } })));
    expect(answers.map((answer) => [answer.status, answer.body.status])).toEqual(envelopes.map(() => [200, 'voided']));
    expect(await used(owner)).toBe(QUOTA);
    const queued = (await Promise.all(envelopes.map((id) => lastBatchEmails(owner, id)))).flat();
    expect(queued.map((message) => message.type)).toEqual(['voided', 'voided']);
    const lastEmails = answers.map((answer) => answer.body.signers[0].lastEmail);
    expect(lastEmails.filter((lastEmail) => lastEmail.reason === 'quota')).toEqual([pastQuota('voided'), pastQuota('voided')]);
  }, patience(60_000));

  test('reminders: each reminder counts; those past the quota are not sent', async () => {
    const owner = await started.env().newUser();
    const signers = people(5, 'remind', 'remind');
    const id = await createEnvelopeWithDocument(started.env().api, owner, await corpusPdf('normal.pdf'));
    const sent = await started.env().api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: signers.map((signer) => ({ ...signer, role: 'signer' })), remindEveryDays: 1, status: 'sent' } });
    expect(sent.status).toBe(200);
    expect(await used(owner)).toBe(5);

    // One "day" (REMINDER_DAY_SECONDS) after the invitations, as the sweeper runs it.
    const invitedAt = Date.parse((await storedEnvelope(owner.userId, id)).signers[0]!.invitedAt!);
    const reminded = await remindRecipients({ services: getServices(), ownerId: owner.userId, envelopeId: id, now: () => new Date(invitedAt + 60_001) });
    expect(reminded).toHaveLength(5);
    expect(await used(owner)).toBe(QUOTA);
    expect((await lastBatchEmails(owner, id)).map((message) => [message.type, message.to.email])).toEqual([['reminder', signers[0]!.email]]);
    const lastEmails = (await get(owner, id)).body.signers.map((signer: any) => signer.lastEmail);
    expect(lastEmails[0]).toMatchObject({ type: 'reminder' });
    expect(lastEmails[0].reason).toBeUndefined();
    expect(lastEmails.slice(1)).toEqual(Array.from({ length: 4 }, () => pastQuota('reminder')));
  }, patience(60_000));

  test('reassignment: the new recipient\'s invitation counts; past the quota the reassignment still succeeds, uninvited', async () => {
    const owner = await started.env().newUser();
    const signers = people(5, 'signer', 'handing');
    const id = await createEnvelopeWithDocument(started.env().api, owner, await corpusPdf('normal.pdf'));
    const sent = await started.env().api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers, allowReassign: true, status: 'sent' } });
    expect(sent.status).toBe(200);
    expect(await used(owner)).toBe(5);

    const [first, second] = people(2, 'signer', 'taking');
    const reassign = async (from: string, to: { email: string; name: string }) =>
      await started.env().api.request('POST', '/signing/reassign', { token: await signingTokenFor(owner.userId, id, from), json: { email: to.email, name: to.name, reason: 'On leave' } });
    expect((await reassign(signers[0]!.email, first!)).status).toBe(200);
    expect(await used(owner)).toBe(QUOTA);
    await waitForEmail(first!.email, { subject: /^Please review and sign:/ });

    // Nothing left: the reassignment is made, its invitation is not sent.
    expect((await reassign(signers[1]!.email, second!)).status).toBe(200);
    expect(await used(owner)).toBe(QUOTA);
    const envelope = (await get(owner, id)).body;
    const byEmail = (email: string) => envelope.signers.find((signer: any) => signer.email === email);
    expect(byEmail(signers[1]!.email).status).toBe('reassigned');
    expect(byEmail(second!.email).lastEmail).toEqual(pastQuota('invitation'));
    expect(await lastBatchEmails(owner, id)).toEqual([]);
  }, patience(60_000));

  test('declining: the owner\'s declined e-mail counts', async () => {
    const owner = await started.env().newUser();
    const signers = people(5, 'signer', 'decline');
    const { id } = await sentEnvelope(started.env().api, owner, { signers });
    expect(await used(owner)).toBe(5);
    const declined = await started.env().api.request('POST', '/signing/decline', { token: await signingTokenFor(owner.userId, id, signers[0]!.email), json: { reason: 'Wrong terms' } });
    expect(declined.status).toBe(200);
    expect(await used(owner)).toBe(QUOTA);
    await waitForEmail(owner.email, { subject: /^Declined:/ });
  }, patience(60_000));
});

describe('the quota is the organisation\'s', () => {
  test('two members\' e-mails count in one quota: together they reach it, and then a send by either is refused', async () => {
    const owner = await started.env().newUser();
    const sender = await joinedMember(started.env().api, owner, 'sender');
    await sentEnvelope(started.env().api, owner, { signers: people(3, 'signer', 'org-owner') });
    await sentEnvelope(started.env().api, sender, { signers: people(3, 'signer', 'org-sender') });
    expect(await used(owner)).toBe(QUOTA);
    expect(await used(sender)).toBe(QUOTA);
    for (const member of [owner, sender]) {
      const id = await createEnvelopeWithDocument(started.env().api, member, await corpusPdf('normal.pdf'));
      const refused = await started.env().api.request('PUT', `/envelopes/${id}`, { token: member.token, json: { signers: people(1, 'signer', 'org-late'), status: 'sent' } });
      expect(refused.status).toBe(429);
      expect(refused.body.type).toBe('urn:problem:email-quota');
      expect((await storedEnvelope(member.userId, id)).status).toBe('draft');
    }
    // Another organisation's quota is its own.
    const stranger = await started.env().newUser();
    await sentEnvelope(started.env().api, stranger, { signers: people(1, 'signer', 'org-stranger') });
    expect(await used(stranger)).toBe(1);
  }, patience(90_000));
});
