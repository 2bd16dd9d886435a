/** The lifecycle table of docs/api.md#lifecycle and the signer and field rules of docs/api.md#the-envelope and docs/api.md#fields, as functions of the state (signing order: `tests/unit/recipients/routing.test.ts`). */
import { describe, expect, test } from '@jest/globals';
import { applySend, applyVoid, ifMatchSatisfied, planUpdate, replaceSigners } from '../../../src/lib/envelopes/lifecycle.js';
import { newSigner, type EnvelopeRecord, type EnvelopeStatus, type Signer } from '../../../src/lib/envelopes/model.js';
import { parseWith } from '../../../src/lib/http/body.js';
import { updateEnvelopeRequest } from '../../../src/lib/envelopes/schemas.js';
import { isAppError } from '../../../src/lib/errors.js';
import { envelope as envelopeRecord, field, FROZEN as frozen, NOW as now, OWNER as actor, RULES_CONFIG as config } from '../../support/records.js';

const ada = newSigner({ id: '0196f3a0-0000-7000-8000-000000000001', email: 'ada@example.com', name: 'Ada', role: 'signer' });
const envelope = (status: EnvelopeStatus, signers: Signer[] = [ada], extra: Partial<EnvelopeRecord> = {}): EnvelopeRecord => envelopeRecord(status, signers, extra);

/** The request as the endpoint parses it (defaults applied). */
const body = (value: unknown) => parseWith(updateEnvelopeRequest, value);

function refusal(run: () => unknown): { code: string; type: string; detail: string; paths: string[] } {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, type: error.type, detail: error.detail, paths: (error.errors ?? []).map((entry) => entry.path) };
    throw error;
  }
  throw new Error('expected a refusal');
}


describe('status transitions by PUT/PATCH', () => {
  test('draft → sent freezes nothing itself: the plan sends, and applySend records envelope.sent with the frozen hash and page count', () => {
    const plan = planUpdate(envelope('draft'), body({ status: 'sent' }), actor, now)!;
    expect(plan.sends).toBe(true);
    applySend(plan.change, frozen, actor, config);
    const { next, events } = plan.change.finish();
    expect(next).toMatchObject({ status: 'sent', version: 4, documentSha256: frozen.documentSha256, pageCount: 3, sentAt: now.toISOString() });
    expect(next.expiresAt).toBe(new Date(now.getTime() + 30 * 86_400_000).toISOString());
    expect(events[0]).toEqual({
      sequence: 5, type: 'envelope.sent', at: now.toISOString(), actorId: 'owner', actorEmail: 'owner@example.com', ip: '203.0.113.7', userAgent: 'jest', apiKeyId: null,
      details: { documentSha256: frozen.documentSha256, uploadSha256: frozen.uploadSha256, pageCount: 3, removed: [] },
    });
    expect(events.map((event) => event.type)).toEqual(['envelope.sent', 'recipient.invited']);
  });

  test.each(['draft', 'sent'] as const)('%s → voided records envelope.voided {} and closes the envelope', (from) => {
    const plan = planUpdate(envelope(from), body({ status: 'voided' }), actor, now)!;
    expect(plan.voids).toBe(true);
    applyVoid(plan.change, actor);
    const { next, events } = plan.change.finish();
    expect(next).toMatchObject({ status: 'voided', closedAt: now.toISOString() });
    expect(events.map((event) => [event.type, event.details])).toEqual([['envelope.voided', {}]]);
  });

  test('voiding a sent envelope e-mails the recipients already invited, and nobody else', () => {
    const invited = { ...ada, status: 'sent' as const, invitedAt: now.toISOString() };
    const waiting = newSigner({ id: '0196f3a0-0000-7000-8000-000000000002', email: 'w@example.com', name: 'W', role: 'approver' });
    const cc = newSigner({ id: '0196f3a0-0000-7000-8000-000000000003', email: 'c@example.com', name: 'C', role: 'cc' });
    const plan = planUpdate(envelope('sent', [invited, { ...waiting, status: 'waiting' }, { ...cc, status: 'sent' }]), body({ status: 'voided' }), actor, now)!;
    applyVoid(plan.change, actor);
    const { batch } = plan.change.finish();
    const emails = batch!.messages.filter((message) => message.kind === 'email');
    expect(emails.map((message) => message.kind === 'email' && [message.type, message.to.email])).toEqual([['voided', 'ada@example.com']]);
    expect(batch!.messages.filter((message) => message.kind === 'event').map((message) => message.kind === 'event' && message.event.data)).toEqual([
      { envelopeId: envelope('sent').id, status: 'voided' },
    ]);
  });

  test.each([
    ['sent', 'draft'],
    ['draft', 'completed'],
    ['sent', 'completed'],
  ] as const)('%s → %s is refused with 409 naming the allowed ones', (from, to) => {
    const { code, detail } = refusal(() => planUpdate(envelope(from), body({ status: to }), actor, now));
    expect(code).toBe('conflict');
    expect(detail).toContain(from === 'draft' ? 'sent or voided' : 'voided');
  });

  test.each(['completed', 'declined', 'expired', 'voided'] as const)('a %s envelope refuses any update with 409 envelope-closed naming its status', (status) => {
    for (const request of [{}, { signers: [] }, { status: 'voided' }, { status }]) {
      const { code, type, detail } = refusal(() => planUpdate(envelope(status), body(request), actor, now));
      expect(code).toBe('conflict');
      expect(type).toBe('urn:problem:envelope-closed');
      expect(detail).toContain(status);
    }
  });

  test('sending needs a signer with role signer', () => {
    const onlyCc = [{ ...ada, role: 'cc' as const }];
    expect(refusal(() => planUpdate(envelope('draft', onlyCc), body({ status: 'sent' }), actor, now)).type).toBe('urn:problem:no-signer');
    expect(refusal(() => planUpdate(envelope('draft', []), body({ status: 'sent' }), actor, now)).type).toBe('urn:problem:no-signer');
  });

  test('one request changing everything records signers_replaced, fields_replaced, settings_changed, envelope.sent, then the invitations', () => {
    const plan = planUpdate(
      envelope('draft', []),
      body({
        status: 'sent',
        signingOrder: 'sequential',
        remindEveryDays: 2,
        signers: [{ id: ada.id, email: 'b@example.com', name: 'B' }],
        fields: [{ recipientId: ada.id, type: 'signature', page: 1, x: 0, y: 0, width: 0.5, height: 0.5 }],
      }),
      actor,
      now,
    )!;
    applySend(plan.change, frozen, actor, config);
    const { events, next } = plan.change.finish();
    expect(events.map((event) => [event.sequence, event.type])).toEqual([
      [5, 'envelope.signers_replaced'],
      [6, 'envelope.fields_replaced'],
      [7, 'envelope.settings_changed'],
      [8, 'envelope.sent'],
      [9, 'recipient.invited'],
    ]);
    expect(events[2]!.details).toEqual({ signingOrder: 'sequential', remindEveryDays: 2 });
    expect(events[1]!.details).toEqual({ count: 1 });
    expect(next.auditSequence).toBe(9);
  });

  test('a request that changes nothing plans no write', () => {
    expect(planUpdate(envelope('sent'), body({ status: 'sent' }), actor, now)).toBeNull();
    expect(planUpdate(envelope('draft'), body({}), actor, now)).toBeNull();
    expect(planUpdate(envelope('draft'), body({ signers: [{ id: ada.id, email: ada.email, name: ada.name }] }), actor, now)).toBeNull();
    expect(planUpdate(envelope('draft'), body({ signingOrder: 'parallel', expiresAt: null, remindEveryDays: null }), actor, now)).toBeNull();
  });
});

describe('a sent envelope is locked (docs/api.md#lifecycle)', () => {
  test.each([
    ['signers', { signers: [{ email: 'x@example.com', name: 'X' }] }],
    ['fields', { fields: [] as unknown[] }],
    ['signingOrder', { signingOrder: 'sequential' }],
    ['expiresAt', { expiresAt: '2027-01-01T00:00:00.000Z' }],
    ['remindEveryDays', { remindEveryDays: 3 }],
    ['invalid signers', { signers: [{ id: 'nobody', email: 'x@example.com', name: 'X' }], fields: [{ recipientId: 'nobody', type: 'text', page: 1, x: 0, y: 0, width: 0.1, height: 0.1 }] }],
  ])('a change of %s gets 409 envelope-locked', (_name, request) => {
    const sent = envelope('sent', [ada], { fields: [field(ada.id)] });
    expect(refusal(() => planUpdate(sent, body(request), actor, now)).type).toBe('urn:problem:envelope-locked');
  });

  test('repeating what it holds is accepted without a change', () => {
    const sent = envelope('sent', [ada], { signingOrder: 'sequential', expiresAt: '2026-12-01T00:00:00.000Z', fields: [field(ada.id)] });
    const { id, email, name, role } = ada;
    expect(planUpdate(sent, body({ signers: [{ id, email, name, role }], fields: sent.fields, signingOrder: 'sequential', expiresAt: sent.expiresAt, status: 'sent' }), actor, now)).toBeNull();
  });
});

describe('signer replacement (docs/api.md#the-envelope)', () => {
  test('an existing id (or recipientId) keeps the identity and its state; a new UUID is taken; anything else gets a new UUIDv7', () => {
    const invented = '9b2f6a7e-3c1d-4e5f-8a9b-0c1d2e3f4a5b';
    const { signers, requestIds } = replaceSigners([{ ...ada, lastEmail: null, status: 'created' }], [
      { recipientId: ada.id, email: 'ada@example.com', name: 'Ada L.', role: 'signer', routingOrder: 2 },
      { id: 'made-up', email: 'x@example.com', name: 'X', role: 'viewer', routingOrder: 1 },
      { id: invented, email: 'z@example.com', name: 'Z', role: 'signer', routingOrder: 1 },
      { email: 'y@example.com', name: 'Y', role: 'cc', routingOrder: 1 },
    ]);
    expect(signers[0]).toMatchObject({ id: ada.id, name: 'Ada L.', routingOrder: 2 });
    expect(signers[1]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(signers[2]!.id).toBe(invented);
    expect(signers[3]!.id).not.toBe(signers[1]!.id);
    expect(requestIds.get('made-up')).toBe(signers[1]!.id);
    expect(signers.every((signer) => signer.status === 'created' && signer.link === null)).toBe(true);
  });

  test('the event names who was added and who removed, by id and email', () => {
    const plan = planUpdate(envelope('draft'), body({ signers: [{ email: 'new@example.com', name: 'New' }] }), actor, now)!;
    const { events, next } = plan.change.finish();
    expect(events[0]!.details).toEqual({ added: [{ id: next.signers[0]!.id, email: 'new@example.com' }], removed: [{ id: ada.id, email: ada.email }] });
  });
});

describe('fields (docs/api.md#fields)', () => {
  test('a field may name a signer added in the same request, by the id the request gave it', () => {
    const plan = planUpdate(envelope('draft', []), body({
      signers: [{ id: 'local-1', email: 'n@example.com', name: 'N' }],
      fields: [{ recipientId: 'local-1', type: 'text', page: 2, x: 0.5, y: 0.5, width: 0.5, height: 0.5, label: 'Notes' }],
    }), actor, now)!;
    const { next } = plan.change.finish();
    expect(next.fields).toEqual([{ id: expect.any(String), recipientId: next.signers[0]!.id, type: 'text', page: 2, x: 0.5, y: 0.5, width: 0.5, height: 0.5, required: true, label: 'Notes' }]);
  });

  test('recipientId must name a signer whose role is signer: 400 naming the field', () => {
    const approver = newSigner({ id: '0196f3a0-0000-7000-8000-000000000009', email: 'ap@example.com', name: 'Ap', role: 'approver' });
    const fields = [
      { recipientId: '0196f3a0-0000-7000-8000-0000000000ff', type: 'signature', page: 1, x: 0, y: 0, width: 0.1, height: 0.1 },
      { recipientId: approver.id, type: 'signature', page: 1, x: 0, y: 0, width: 0.1, height: 0.1 },
      { recipientId: ada.id, type: 'signature', page: 1, x: 0, y: 0, width: 0.1, height: 0.1 },
    ];
    const { code, paths } = refusal(() => planUpdate(envelope('draft', [ada, approver]), body({ fields }), actor, now));
    expect(code).toBe('bad_request');
    expect(paths).toEqual(['fields.0.recipientId', 'fields.1.recipientId']);
  });

  test('the fields of a removed signer are removed with it (fields_replaced records the new count)', () => {
    const bob = newSigner({ id: '0196f3a0-0000-7000-8000-000000000002', email: 'bob@example.com', name: 'Bob', role: 'signer' });
    const draft = envelope('draft', [ada, bob], { fields: [field(ada.id), field(bob.id, { id: '0196f3a0-0000-7000-8000-0000000000f2' })] });
    const plan = planUpdate(draft, body({ signers: [{ id: ada.id, email: ada.email, name: ada.name }] }), actor, now)!;
    const { next, events } = plan.change.finish();
    expect(next.fields.map((entry) => entry.recipientId)).toEqual([ada.id]);
    expect(events.map((event) => [event.type, event.details])).toEqual([
      ['envelope.signers_replaced', { added: [], removed: [{ id: bob.id, email: bob.email }] }],
      ['envelope.fields_replaced', { count: 1 }],
    ]);
  });

  test('a signer with fields cannot become an approver unless its fields go: 400 naming its role', () => {
    const draft = envelope('draft', [ada], { fields: [field(ada.id)] });
    expect(refusal(() => planUpdate(draft, body({ signers: [{ id: ada.id, email: ada.email, name: ada.name, role: 'approver' }] }), actor, now)).paths).toEqual(['signers.0.role']);
    expect(planUpdate(draft, body({ signers: [{ id: ada.id, email: ada.email, name: ada.name, role: 'approver' }], fields: [] }), actor, now)).not.toBeNull();
  });

  test('at send, a field on a page the document does not have gets 422 field-outside-document naming it', () => {
    const draft = envelope('draft', [ada], { fields: [field(ada.id, { page: 3 }), field(ada.id, { id: '0196f3a0-0000-7000-8000-0000000000f3', page: 4 })] });
    const plan = planUpdate(draft, body({ status: 'sent' }), actor, now)!;
    const { code, type, paths } = refusal(() => applySend(plan.change, frozen, actor, config));
    expect([code, type, paths]).toEqual(['unprocessable', 'urn:problem:field-outside-document', ['fields.1.page']]);
  });
});

describe('expiresAt (docs/api.md#the-envelope)', () => {
  const inDays = (days: number) => new Date(now.getTime() + days * 86_400_000).toISOString();
  test('in the future and at most 365 days ahead; null clears it', () => {
    expect(planUpdate(envelope('draft'), body({ expiresAt: inDays(365) }), actor, now)).not.toBeNull();
    expect(refusal(() => planUpdate(envelope('draft'), body({ expiresAt: inDays(365.01) }), actor, now)).paths).toEqual(['expiresAt']);
    expect(refusal(() => planUpdate(envelope('draft'), body({ expiresAt: inDays(-0.001) }), actor, now)).paths).toEqual(['expiresAt']);
    expect(planUpdate(envelope('draft', [ada], { expiresAt: inDays(2) }), body({ expiresAt: null }), actor, now)!.change.record.expiresAt).toBeNull();
  });

  test('an expiresAt that has passed by the time of the send gets 400 naming it', () => {
    const stale = envelope('draft', [ada], { expiresAt: inDays(-1) });
    expect(refusal(() => planUpdate(stale, body({ status: 'sent' }), actor, now)).paths).toEqual(['expiresAt']);
  });

  test('set: kept at send; a time zone offset is stored as UTC', () => {
    const plan = planUpdate(envelope('draft'), body({ expiresAt: '2026-12-01T12:00:00+02:00', status: 'sent' }), actor, now)!;
    applySend(plan.change, frozen, actor, config);
    expect(plan.change.finish().next.expiresAt).toBe('2026-12-01T10:00:00.000Z');
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

