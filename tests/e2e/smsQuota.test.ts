/**
 * The organisation's daily text-message quota (docs/api.md#rate-limits-and-quotas, docs/api.md#lastsms):
 * `SMS_DAILY_QUOTA` counts every text sent on its members' behalf, one per text, when it is queued,
 * for all members of the organisation together and apart from other organisations. A send (or
 * resend) whose texts would pass it is refused with 429 `sms-quota` and changes nothing; a reminder
 * is never refused for it: the texts past it are not sent and their recipients' `lastSms` is `failed`
 * with `reason: "quota"`.
 *
 * Real HTTP, an SMS catcher and an Azurite of this file's own (its `outbox-sms` queue is consumed by
 * this file's service only), a service with a quota of 2, and a new organisation per test.
 */
import { afterAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { queuedToday } from '../../src/lib/envelopes/dailyQuota.js';
import { remindRecipients } from '../../src/lib/recipients/remind.js';
import { getServices } from '../../src/lib/services.js';
import { joinedMember, organizationIdOf } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, ownAzuriteForFile, serviceWithSettings, type TestUser } from '../support/service.js';
import { outboxMessages, storedEnvelope } from '../support/signing.js';
import { smsCatcherForFile, waitForTexts } from '../support/sms.js';

const QUOTA = 2;
const azurite = ownAzuriteForFile();
const sms = smsCatcherForFile();
const started = serviceWithSettings({ SMS_DAILY_QUOTA: String(QUOTA), REMINDER_DAY_SECONDS: '60' });

afterAll(async () => {
  await azurite.stop();
});

/** A German mobile number no other recipient of this file uses, in E.164. */
let nextNumber = 0;
function mobile(): string {
  return `+49151${String(20_000_000 + Math.floor(Math.random() * 70_000_000) + nextNumber++).slice(0, 8)}`;
}

/** `count` recipients invited by text only, each with a number of its own. */
function texted(count: number): { email: string; name: string; phone: string; delivery: string[] }[] {
  return Array.from({ length: count }, (_, index) => ({ email: `sms${index}-${randomUUID()}@example.com`, name: `Texted ${index}`, phone: mobile(), delivery: ['sms'] }));
}

const used = async (user: TestUser): Promise<number> => await queuedToday(getServices().storage.tables.envelopes, 'sms', await organizationIdOf(user));

/** Sends a new envelope of `sender` to `signers`: the answer, and the envelope's id. */
async function send(sender: TestUser, signers: ReturnType<typeof texted>, settings: Record<string, unknown> = {}) {
  const id = await createEnvelopeWithDocument(started.env().api, sender, await corpusPdf('normal.pdf'));
  const answer = await started.env().api.request('PUT', `/envelopes/${id}`, { token: sender.token, json: { signers, ...settings, status: 'sent' } });
  return { id, answer };
}

const pastQuota = { status: 'failed', at: expect.any(String), reason: 'quota' };

describe('SMS_DAILY_QUOTA', () => {
  test('a send whose texts would pass the quota is refused with 429 sms-quota and queues nothing; a resend by text past it too', async () => {
    const owner = await started.env().newUser();
    const [first, second] = texted(2);
    const { id: sentId, answer: sent } = await send(owner, [first!, second!]);
    expect(sent.status).toBe(200);
    expect(await used(owner)).toBe(QUOTA);
    await waitForTexts(sms.url(), first!.phone);
    await waitForTexts(sms.url(), second!.phone);

    const { id, answer } = await send(owner, texted(1));
    expectType(answer, 429, 'sms-quota');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(answer.body.detail).toMatch(/text message/);
    expect((await storedEnvelope(owner.userId, id)).status).toBe('draft');
    expect(await outboxMessages(owner.userId, id)).toEqual([]);
    expect(await used(owner)).toBe(QUOTA);

    const recipientId = (await storedEnvelope(owner.userId, sentId)).signers[0]!.id;
    const before = await outboxMessages(owner.userId, sentId);
    expectType(await started.env().api.request('POST', `/envelopes/${sentId}/recipients/${recipientId}/resend`, { token: owner.token }), 429, 'sms-quota');
    expect(await outboxMessages(owner.userId, sentId)).toEqual(before);
    expect(await used(owner)).toBe(QUOTA);
  }, patience(60_000));

  test('two members of one organisation share the quota; another organisation is unaffected', async () => {
    const owner = await started.env().newUser();
    const member = await joinedMember(started.env().api, owner, 'sender');
    expect((await send(owner, texted(1))).answer.status).toBe(200);
    expect((await send(member, texted(1))).answer.status).toBe(200);
    expect(await used(owner)).toBe(QUOTA);
    expect(await used(member)).toBe(QUOTA);

    const refused = await send(member, texted(1));
    expectType(refused.answer, 429, 'sms-quota');
    expect(await outboxMessages(member.userId, refused.id)).toEqual([]);
    expectType((await send(owner, texted(1))).answer, 429, 'sms-quota');

    const other = await started.env().newUser();
    expect(await organizationIdOf(other)).not.toBe(await organizationIdOf(owner));
    expect((await send(other, texted(2))).answer.status).toBe(200);
    expect(await used(other)).toBe(QUOTA);
    expect(await used(owner)).toBe(QUOTA);
  }, patience(60_000));

  test('a reminder past the quota is not refused: the texts past it are not sent, lastSms failed with reason quota', async () => {
    const owner = await started.env().newUser();
    const signers = texted(2);
    const { id, answer } = await send(owner, signers, { remindEveryDays: 1 });
    expect(answer.status).toBe(200);
    expect(await used(owner)).toBe(QUOTA);
    for (const signer of signers) await waitForTexts(sms.url(), signer.phone);

    // One "day" (REMINDER_DAY_SECONDS) after the invitations, as the sweeper runs it.
    const invitedAt = Date.parse((await storedEnvelope(owner.userId, id)).signers[0]!.invitedAt!);
    const reminded = await remindRecipients({ services: getServices(), ownerId: owner.userId, envelopeId: id, now: () => new Date(invitedAt + 60_001) });
    expect(reminded).toHaveLength(2);
    expect(await used(owner)).toBe(QUOTA);
    expect((await outboxMessages(owner.userId, id)).filter((message) => message.kind === 'sms').map((message) => message.type)).toEqual(['invitation', 'invitation']);
    const envelope = (await started.env().api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
    expect(envelope.status).toBe('sent');
    expect(envelope.signers.map((signer: any) => signer.lastSms)).toEqual([pastQuota, pastQuota]);
  }, patience(60_000));
});
