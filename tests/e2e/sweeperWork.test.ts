/**
 * The domain work the sweeper (docs/api.md#the-sweeper) runs on what the due index says is due: expiring an
 * envelope and reminding recipients, as the `system` actor, with their events, e-mails and webhook
 * events. (The sweeper itself, its schedule and its index reads come with it.)
 */
import { describe, expect, test } from '@jest/globals';
import { expireEnvelope } from '../../src/lib/envelopes/expire.js';
import { remindRecipients } from '../../src/lib/recipients/remind.js';
import { EXPIRY_DUE_KIND, REMINDER_DUE_KIND } from '../../src/lib/envelopes/routing.js';
import { getServices } from '../../src/lib/services.js';
import { DUE_TABLES, type DueKind } from '../../src/lib/storage/dueIndex.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, serviceForFile, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxBatches, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { ada, bob } from '../support/people.js';

let env: TestService;
let owner: TestUser;
serviceForFile((started) => ({ env, owner } = started));


async function dueEntries(kind: DueKind, id: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entity of getServices().storage.tables[DUE_TABLES[kind]].listEntities<{ id: string; dueAt: string }>({ queryOptions: { filter: `PartitionKey eq '${kind}'` } })) {
    if (entity.id === id) found.push(entity.dueAt);
  }
  return found.sort();
}

describe('expiry', () => {
  test('a send records when the envelope falls due for expiry', async () => {
    const { id, envelope } = await sentEnvelope(env.api, owner, { signers: [ada] });
    expect(await dueEntries(EXPIRY_DUE_KIND, id)).toEqual([envelope.expiresAt]);
  });

  test('expires a sent envelope whose expiresAt has passed: system event, the owner\'s e-mail, the webhook event; once', async () => {
    const { id, envelope } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const services = getServices();
    expect(await expireEnvelope({ services, ownerId: owner.userId, envelopeId: id })).toBe(false);
    const after = () => new Date(Date.parse(envelope.expiresAt) + 1);
    const results = await Promise.all([1, 2, 3].map(() => expireEnvelope({ services, ownerId: owner.userId, envelopeId: id, now: after })));
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.status).toBe('expired');
    expect((await auditTrail(env.api, owner, id)).at(-1)).toMatchObject({ type: 'envelope.expired', actorId: 'system', actorEmail: null, details: {} });
    const batch = (await outboxBatches(owner.userId, id)).at(-1)!;
    expect(batch.messages).toEqual([
      expect.objectContaining({ kind: 'email', type: 'expired', recipientId: null, to: { email: owner.email, name: null } }),
      { kind: 'event', event: expect.objectContaining({ type: 'envelope.expired', data: { envelopeId: id, status: 'expired' } }) },
    ]);
    const token = await signingTokenFor(owner.userId, id, ada.email);
    expect((await env.api.request('GET', '/signing', { token })).body).toMatchObject({ envelope: { status: 'expired' }, canAct: false });
    const refused = await env.api.request('POST', '/signing/complete', { token, json: { consent: true } });
    expectProblem(refused, 409);
    expect(refused.body.detail).toContain('expired');
  });
});

describe('reminders', () => {
  test('every remindEveryDays after the invitation, at most 5 times, to whose turn it is and who has not acted', async () => {
    const reminded = await sentEnvelopeWithReminders();
    const services = getServices();
    const invitedAt = Date.parse((await storedEnvelope(owner.userId, reminded)).signers[0]!.invitedAt!);
    const day = services.config.reminderDaySeconds * 1000;
    expect(await dueEntries(REMINDER_DUE_KIND, reminded)).toEqual([new Date(invitedAt + 2 * day).toISOString()]);
    expect(await remindRecipients({ services, ownerId: owner.userId, envelopeId: reminded, now: () => new Date(invitedAt + 2 * day - 1) })).toEqual([]);
    const ada0 = (await storedEnvelope(owner.userId, reminded)).signers[0]!;
    for (let round = 1; round <= 6; round++) {
      const at = () => new Date(invitedAt + round * 2 * day);
      const sent = await remindRecipients({ services, ownerId: owner.userId, envelopeId: reminded, now: at });
      expect([round, sent]).toEqual([round, round <= 5 ? [ada0.id] : []]);
    }
    const events = (await auditTrail(env.api, owner, reminded)).filter((event) => event.type === 'recipient.reminded');
    expect(events).toHaveLength(5);
    expect(events[0]).toMatchObject({ actorId: 'system', actorEmail: null, details: { recipientId: ada0.id, email: ada.email } });
    const stored = await storedEnvelope(owner.userId, reminded);
    expect(stored.signers[0]).toMatchObject({ remindersSent: 5, lastEmail: { type: 'reminder', status: 'queued' } });
    expect(stored.signers[1]!.remindersSent).toBe(0);
    const reminders = (await outboxBatches(owner.userId, reminded)).flatMap((batch) => batch.messages).filter((message) => message.kind === 'email' && message.type === 'reminder');
    expect(reminders).toHaveLength(5);
    expect(reminders.every((message) => message.kind === 'email' && message.linkSalt === stored.signers[0]!.link!.salt)).toBe(true);
  });
});

/** A sequential envelope with remindEveryDays 2, sent; its id. */
async function sentEnvelopeWithReminders(): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
  const answer = await env.api.request('PUT', `/envelopes/${id}`, {
    token: owner.token,
    json: { signers: [{ ...ada, routingOrder: 1 }, { ...bob, routingOrder: 2 }], signingOrder: 'sequential', remindEveryDays: 2, status: 'sent' },
  });
  expect(answer.status).toBe(200);
  return id;
}
