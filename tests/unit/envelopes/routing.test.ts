/**
 * Signing order (`src/lib/envelopes/routing.ts`, docs/api.md#sending-and-signing-order) as functions of the state: who is
 * invited at send, whose turn it is, whom a recipient waits for, and who is invited when a routing
 * group has finished. `parallel`: everyone who must act at once; `sequential`: by ascending
 * `routingOrder`, equal numbers together; `cc` recipients never act.
 */
import { describe, expect, test } from '@jest/globals';
import { Change } from '../../../src/lib/envelopes/change.js';
import { applySend, planUpdate } from '../../../src/lib/envelopes/lifecycle.js';
import type { EnvelopeRecord, RecipientStatus, Signer } from '../../../src/lib/envelopes/model.js';
import { updateEnvelopeRequest } from '../../../src/lib/envelopes/schemas.js';
import { parseWith } from '../../../src/lib/http/body.js';
import { allActed, inviteNextGroup, isTurn, pendingRecipients, routeAtSend, waitingFor } from '../../../src/lib/envelopes/routing.js';
import { signingLinkKey, signingToken, tokenSha256 } from '../../../src/lib/envelopes/signingLinks.js';
import { envelope, FROZEN as frozen, NOW as now, OWNER as actor, RULES_CONFIG as config, recipient, recipientActor } from '../../support/records.js';

/** The request as the endpoint parses it (defaults applied). */
const body = (value: unknown) => parseWith(updateEnvelopeRequest, value);

/** The record with recipient `n`'s status (1-based, as {@link recipient} numbers them) changed. */
function withStatus(record: EnvelopeRecord, statuses: Record<number, RecipientStatus>): EnvelopeRecord {
  return { ...record, signers: record.signers.map((signer, index) => (statuses[index + 1] === undefined ? signer : { ...signer, status: statuses[index + 1]! })) };
}
const names = (people: { name: string }[]) => people.map((person) => person.name);

describe('signing order (docs/api.md#sending-and-signing-order)', () => {
  const recipients = [recipient(1, 2), recipient(2, 1), recipient(3, 1, 'approver'), recipient(4, 3, 'viewer'), recipient(5, 1, 'cc')];

  test('parallel: everyone who must act is invited at send with a link; cc becomes sent without one', () => {
    const plan = planUpdate(envelope('draft', recipients), body({ status: 'sent' }), actor, now)!;
    applySend(plan.change, frozen, actor, config);
    const { next } = plan.change.finish();
    expect(next.signers.map((entry) => [entry.email, entry.status, entry.link !== null])).toEqual([
      ['s1@example.com', 'sent', true], ['s2@example.com', 'sent', true], ['s3@example.com', 'sent', true], ['s4@example.com', 'sent', true], ['s5@example.com', 'sent', false],
    ]);
    // The stored hash is the hash of the token the salt derives: the raw token is nowhere.
    const link = next.signers[0]!.link!;
    expect(link.tokenSha256).toBe(tokenSha256(signingToken(signingLinkKey(config.jwt.secret), link.salt)));
    expect(JSON.stringify(next)).not.toContain(signingToken(signingLinkKey(config.jwt.secret), link.salt));
  });

  test('sequential: the lowest routing order group is invited, the others wait; the next group follows the last of the previous one', () => {
    const plan = planUpdate(envelope('draft', recipients, { signingOrder: 'sequential' }), body({ status: 'sent' }), actor, now)!;
    applySend(plan.change, frozen, actor, config);
    const sent = plan.change.finish().next;
    expect(sent.signers.map((entry) => entry.status)).toEqual(['waiting', 'sent', 'sent', 'waiting', 'sent']);
    expect(sent.signers[0]!.link).toBeNull();
    expect(isTurn(sent, sent.signers[0]!)).toBe(false);
    expect(waitingFor(sent, sent.signers[3]!)).toEqual([{ name: 'S1', role: 'signer' }, { name: 'S2', role: 'signer' }, { name: 'S3', role: 'approver' }]);

    const one = { ...sent, signers: sent.signers.map((entry) => (entry.id === sent.signers[1]!.id ? { ...entry, status: 'signed' as const } : entry)) };
    expect(isTurn(one, one.signers[0]!)).toBe(false);
    const both = { ...one, signers: one.signers.map((entry) => (entry.id === one.signers[2]!.id ? { ...entry, status: 'approved' as const } : entry)) };
    expect(isTurn(both, both.signers[0]!)).toBe(true);
    const change = new Change(both, now);
    inviteNextGroup(change, { config, actor: recipientActor(sent.signers[2]!) });
    const { next, events } = change.finish();
    expect(next.signers.map((entry) => entry.status)).toEqual(['sent', 'signed', 'approved', 'waiting', 'sent']);
    expect(events.map((event) => [event.type, event.actorId, event.details])).toEqual([
      ['recipient.invited', sent.signers[2]!.id, { recipientId: sent.signers[0]!.id, email: 's1@example.com', resend: false }],
    ]);
  });
});


describe('pendingRecipients and allActed', () => {
  test('everyone who must act and has not: cc never counts; signed, approved, viewed, declined and reassigned have acted', () => {
    const record = envelope('sent', [recipient(1), recipient(2, 1, 'approver'), recipient(3, 1, 'viewer'), recipient(4, 1, 'cc')]);
    expect(names(pendingRecipients(record))).toEqual(['S1', 'S2', 'S3']);
    expect(allActed(record)).toBe(false);
    expect(names(pendingRecipients(withStatus(record, { 1: 'opened', 2: 'approved' })))).toEqual(['S1', 'S3']);
    for (const acted of ['signed', 'approved', 'viewed', 'declined', 'reassigned'] as const) {
      expect(names(pendingRecipients(withStatus(record, { 1: acted, 2: 'approved', 3: 'viewed' })))).toEqual([]);
    }
    expect(allActed(withStatus(record, { 1: 'signed', 2: 'approved', 3: 'viewed' }))).toBe(true);
    expect(allActed(envelope('sent', [recipient(1, 1, 'cc')]))).toBe(true);
  });
});

describe('isTurn and waitingFor', () => {
  const group = (order: EnvelopeRecord['signingOrder']) => envelope('sent', [recipient(1, 3), recipient(2, 1), recipient(3, 2), recipient(4, 2, 'approver')], { signingOrder: order });

  test('parallel: it is always everyone\'s turn and nobody waits', () => {
    const record = group('parallel');
    for (const signer of record.signers) {
      expect(isTurn(record, signer)).toBe(true);
      expect(waitingFor(record, signer)).toEqual([]);
    }
  });

  test('sequential: the lowest pending routing order acts, in any order of the list; the others wait for every earlier pending recipient', () => {
    const record = group('sequential');
    expect(record.signers.map((signer) => isTurn(record, signer))).toEqual([false, true, false, false]);
    expect(waitingFor(record, record.signers[0]!)).toEqual([{ name: 'S2', role: 'signer' }, { name: 'S3', role: 'signer' }, { name: 'S4', role: 'approver' }]);
    expect(waitingFor(record, record.signers[2]!)).toEqual([{ name: 'S2', role: 'signer' }]);
    expect(waitingFor(record, record.signers[1]!)).toEqual([]);
  });

  test('sequential: a group\'s turn comes only when every recipient of the earlier groups has acted, declining included', () => {
    const first = withStatus(group('sequential'), { 2: 'signed' });
    expect(first.signers.map((signer) => isTurn(first, signer))).toEqual([false, true, true, true]);
    const half = withStatus(first, { 3: 'signed' });
    expect(isTurn(half, half.signers[0]!)).toBe(false);
    expect(waitingFor(half, half.signers[0]!)).toEqual([{ name: 'S4', role: 'approver' }]);
    const done = withStatus(half, { 4: 'declined' });
    expect(isTurn(done, done.signers[0]!)).toBe(true);
    expect(waitingFor(done, done.signers[0]!)).toEqual([]);
  });

  test('a recipient who has acted, or a cc, waits for nobody', () => {
    const record = envelope('sent', [recipient(1, 1), recipient(2, 2, 'cc'), recipient(3, 3)], { signingOrder: 'sequential' });
    expect(waitingFor(record, record.signers[1]!)).toEqual([]);
    const acted = withStatus(record, { 3: 'signed' });
    expect(waitingFor(acted, acted.signers[2]!)).toEqual([]);
    expect(waitingFor(record, record.signers[2]!)).toEqual([{ name: 'S1', role: 'signer' }]);
  });

  test('once nobody is pending, it is everyone\'s turn', () => {
    const record = withStatus(group('sequential'), { 1: 'signed', 2: 'signed', 3: 'signed', 4: 'approved' });
    expect(record.signers.every((signer) => isTurn(record, signer))).toBe(true);
  });
});

describe('routeAtSend and inviteNextGroup', () => {
  test('sequential send: the first group is invited whatever its number; a cc is sent with no link, no e-mail, no event', () => {
    const change = new Change(envelope('draft', [recipient(1, 7), recipient(2, 4), recipient(3, 4, 'viewer'), recipient(4, 9, 'cc')], { signingOrder: 'sequential' }), now);
    routeAtSend(change, { config, actor: { id: actor.userId, email: actor.email, ip: actor.ip, userAgent: actor.userAgent, apiKeyId: null } });
    const { next, events, batch } = change.finish();
    expect(next.signers.map((signer) => [signer.name, signer.status, signer.link !== null])).toEqual([['S1', 'waiting', false], ['S2', 'sent', true], ['S3', 'sent', true], ['S4', 'sent', false]]);
    expect(events.map((event) => event.details.recipientId)).toEqual([next.signers[1]!.id, next.signers[2]!.id]);
    const invited = batch!.messages.filter((message) => message.kind === 'email').map((message) => (message.kind === 'email' ? message.to.email : null));
    expect(invited).toEqual(['s2@example.com', 's3@example.com']);
  });

  test('inviteNextGroup invites nobody while the current group has someone pending, and nobody once all have acted', () => {
    const sent = envelope('sent', [recipient(1, 1), recipient(2, 1), recipient(3, 2)], { signingOrder: 'sequential' });
    const waiting = withStatus(sent, { 1: 'signed', 2: 'sent', 3: 'waiting' });
    const pending = new Change(waiting, now);
    inviteNextGroup(pending, { config, actor: recipientActor(waiting.signers[0]!) });
    expect(pending.finish().events).toEqual([]);
    const finished = withStatus(sent, { 1: 'signed', 2: 'signed', 3: 'signed' });
    const none = new Change(finished, now);
    inviteNextGroup(none, { config, actor: recipientActor(finished.signers[2]!) });
    expect(none.finish().events).toEqual([]);
  });

  test('inviteNextGroup invites the whole next group at once, and only it', () => {
    const record = withStatus(envelope('sent', [recipient(1, 1), recipient(2, 2), recipient(3, 2, 'approver'), recipient(4, 3)], { signingOrder: 'sequential' }), { 1: 'signed', 2: 'waiting', 3: 'waiting', 4: 'waiting' });
    const change = new Change(record, now);
    inviteNextGroup(change, { config, actor: recipientActor(record.signers[0]!) });
    const { next, events } = change.finish();
    expect(next.signers.map((signer) => signer.status)).toEqual(['signed', 'sent', 'sent', 'waiting']);
    expect(events.map((event) => [event.type, event.actorId, event.details.recipientId])).toEqual([
      ['recipient.invited', record.signers[0]!.id, record.signers[1]!.id],
      ['recipient.invited', record.signers[0]!.id, record.signers[2]!.id],
    ]);
  });
});
