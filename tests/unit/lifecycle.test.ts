/** The lifecycle table of CONTRACT §5 and the signer rules of CONTRACT §3, as pure functions. */
import { describe, expect, test } from '@jest/globals';
import { ifMatchSatisfied, planUpdate, replaceSigners } from '../../src/lib/envelopes/lifecycle.js';
import type { Actor, EnvelopeRecord, EnvelopeStatus, Signer } from '../../src/lib/envelopes/model.js';
import { isAppError } from '../../src/lib/errors.js';

const actor: Actor = { userId: 'owner', email: 'owner@example.com', ip: '203.0.113.7', userAgent: 'jest' };
const now = new Date('2026-11-22T10:15:30.123Z');
const ada: Signer = { id: '0196f3a0-0000-7000-8000-000000000001', email: 'ada@example.com', name: 'Ada', role: 'signer' };

function envelope(status: EnvelopeStatus, signers: Signer[] = [ada]): EnvelopeRecord {
  return {
    id: '0196f3a0-0000-7000-8000-00000000abcd', ownerId: 'owner', status, documentName: 'a.pdf', blobName: 'x/a.pdf', signers,
    createdAt: now.toISOString(), updatedAt: now.toISOString(), completedAt: null, hash: null, originalSha256: null, version: 3, auditSequence: 4,
  };
}

function refusal(run: () => unknown): { code: string; detail: string } {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, detail: error.detail };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('status transitions by PUT/PATCH', () => {
  test.each([
    ['draft', 'sent'],
    ['draft', 'voided'],
    ['sent', 'voided'],
  ] as const)('%s → %s is allowed, records one event and bumps the version', (from, to) => {
    const plan = planUpdate(envelope(from), { status: to }, actor, now)!;
    expect(plan.next.status).toBe(to);
    expect(plan.next.version).toBe(4);
    expect(plan.events).toEqual([
      { sequence: 5, type: to === 'sent' ? 'envelope.sent' : 'envelope.voided', at: now.toISOString(), actorId: 'owner', ip: '203.0.113.7', userAgent: 'jest', details: { from, to } },
    ]);
  });

  test.each([
    ['sent', 'draft'],
    ['draft', 'completed'],
    ['sent', 'completed'],
  ] as const)('%s → %s is refused with 409 naming the allowed ones', (from, to) => {
    const { code, detail } = refusal(() => planUpdate(envelope(from), { status: to }, actor, now));
    expect(code).toBe('conflict');
    expect(detail).toContain(from === 'draft' ? 'sent or voided' : 'voided');
  });

  test.each(['completed', 'voided'] as const)('a %s envelope refuses any update with 409 naming its status', (status) => {
    for (const request of [{}, { signers: [] }, { status: 'voided' as const }]) {
      const { code, detail } = refusal(() => planUpdate(envelope(status), request, actor, now));
      expect(code).toBe('conflict');
      expect(detail).toContain(status);
    }
  });

  test('sending needs a signer with role signer', () => {
    const onlyCc = [{ ...ada, role: 'cc' as const }];
    expect(refusal(() => planUpdate(envelope('draft', onlyCc), { status: 'sent' }, actor, now)).code).toBe('conflict');
    expect(refusal(() => planUpdate(envelope('draft', []), { status: 'sent' }, actor, now)).code).toBe('conflict');
  });

  test('signers and status in one request: signers apply first and each change is one event', () => {
    const plan = planUpdate(envelope('draft', []), { status: 'sent', signers: [{ email: 'b@example.com', name: 'B', role: 'signer' }] }, actor, now)!;
    expect(plan.events.map((event) => [event.sequence, event.type])).toEqual([[5, 'envelope.signers_replaced'], [6, 'envelope.sent']]);
    expect(plan.next.auditSequence).toBe(6);
    expect(plan.sends).toBe(true);
  });

  test('a request that changes nothing plans no write', () => {
    expect(planUpdate(envelope('sent'), { status: 'sent' }, actor, now)).toBeNull();
    expect(planUpdate(envelope('draft'), {}, actor, now)).toBeNull();
    expect(planUpdate(envelope('draft'), { signers: [{ id: ada.id, email: ada.email, name: ada.name, role: 'signer' }] }, actor, now)).toBeNull();
  });
});

describe('signer replacement', () => {
  test('an existing id (or recipientId) keeps the identity; others get new UUIDv7s', () => {
    const replaced = replaceSigners([ada], [
      { recipientId: ada.id, email: 'ada@example.com', name: 'Ada L.', role: 'signer' },
      { id: 'made-up', email: 'x@example.com', name: 'X', role: 'viewer' },
      { email: 'y@example.com', name: 'Y', role: 'cc' },
    ]);
    expect(replaced[0]!.id).toBe(ada.id);
    expect(replaced[1]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(replaced[2]!.id).not.toBe(replaced[1]!.id);
  });

  test('the event names who was added and who removed, by id and email', () => {
    const plan = planUpdate(envelope('draft'), { signers: [{ email: 'new@example.com', name: 'New', role: 'signer' }] }, actor, now)!;
    expect(plan.events[0]!.details).toEqual({ added: [{ id: plan.next.signers[0]!.id, email: 'new@example.com' }], removed: [{ id: ada.id, email: ada.email }] });
  });
});

describe('If-Match (RFC 9110 §13.1.1)', () => {
  test.each([
    [null, true],
    ['*', true],
    ['"3"', true],
    ['"2", "3"', true],
    ['"2"', false],
    ['W/"3"', false],
    ['3', false],
  ])('%s against "3" → %s', (header, expected) => {
    expect(ifMatchSatisfied(header, '"3"')).toBe(expected);
  });
});
