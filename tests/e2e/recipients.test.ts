/**
 * Recipients, fields and settings of an envelope (docs/api.md#the-envelope, docs/api.md#recipients, docs/api.md#fields) over real HTTP: their
 * shapes in responses, every validation rule with its status and path, and what is never shown.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { storedEnvelope } from '../support/signing.js';

let env: TestService;
let owner: TestUser;
let pdf: Buffer;
serviceForFile(async (started) => {
  ({ env, owner } = started);
  pdf = await corpusPdf('normal.pdf');
});

const put = (id: string, json: unknown): Promise<ApiResponse<any>> => env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json });
const get = (id: string): Promise<ApiResponse<any>> => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
const draft = () => createEnvelopeWithDocument(env.api, owner, pdf);
const field = (recipientId: string, extra: Record<string, unknown> = {}) => ({ recipientId, type: 'signature', page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.1, ...extra });

/** A draft with one signer of each role; returns the envelope id and the signers' ids by role. */
async function draftWithRecipients(): Promise<{ id: string; ids: Record<string, string> }> {
  const id = await draft();
  const answer = await put(id, {
    signers: [
      { email: 'sig@example.com', name: 'Sig', role: 'signer' },
      { email: 'app@example.com', name: 'App', role: 'approver' },
      { email: 'vie@example.com', name: 'Vie', role: 'viewer' },
      { email: 'cc@example.com', name: 'Cc', role: 'cc' },
    ],
  });
  return { id, ids: Object.fromEntries(answer.body.signers.map((signer: { role: string; id: string }) => [signer.role, signer.id])) };
}

async function expectRefused(id: string, json: unknown, status: number, paths: string[], type?: string): Promise<ApiResponse<any>> {
  const before = await get(id);
  const answer = await put(id, json);
  expectProblem(answer, status);
  if (type !== undefined) expect(answer.body.type).toBe(`urn:problem:${type}`);
  for (const path of paths) expect(answer.body.errors).toContainEqual({ path, message: expect.any(String) });
  const after = await get(id);
  expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  return answer;
}

describe('signers (docs/api.md#the-envelope, docs/api.md#recipients)', () => {
  test('show routingOrder, status, actedAt, declineReason and lastEmail; routingOrder defaults to 1', async () => {
    const id = await draft();
    const answer = await put(id, { signers: [{ email: 'a@example.com', name: 'A' }, { email: 'b@example.com', name: 'B', role: 'approver', routingOrder: 7 }] });
    expect(answer.body.signers.map(({ id: _id, recipientId: _recipientId, ...signer }: Record<string, unknown>) => signer)).toEqual([
      { email: 'a@example.com', name: 'A', role: 'signer', routingOrder: 1, status: 'created', actedAt: null, declineReason: null, lastEmail: null, locale: null, delivery: ['email'], authentication: { method: 'none' } },
      { email: 'b@example.com', name: 'B', role: 'approver', routingOrder: 7, status: 'created', actedAt: null, declineReason: null, lastEmail: null, locale: null, delivery: ['email'], authentication: { method: 'none' } },
    ]);
  });

  test.each([0, 101, 1.5, '2', null])('routingOrder %p: 400 naming it', async (routingOrder) => {
    const id = await draft();
    await expectRefused(id, { signers: [{ email: 'a@example.com', name: 'A', routingOrder }] }, 400, ['signers.0.routingOrder'], 'validation-failed');
  });

  test('a new signer may be given an id of the client\'s own (a UUID), so that fields in the same request name it', async () => {
    const id = await draft();
    const chosen = randomUUID();
    const answer = await put(id, { signers: [{ id: chosen, email: 'a@example.com', name: 'A' }], fields: [field(chosen)] });
    expect(answer.status).toBe(200);
    expect(answer.body.signers[0].id).toBe(chosen);
    expect(answer.body.fields[0].recipientId).toBe(chosen);
  });

  test('after send, internal data never shows: no link salt, token hash, invitation time, reminder count or outbox batch', async () => {
    const { id } = await draftWithRecipients();
    const sent = await put(id, { status: 'sent' });
    const stored = await storedEnvelope(owner.userId, id);
    expect(stored.signers[0]!.link).not.toBeNull();
    for (const answer of [sent, await get(id), await env.api.request('GET', '/envelopes', { token: owner.token })]) {
      for (const secret of [stored.signers[0]!.link!.salt, stored.signers[0]!.link!.tokenSha256, stored.signers[0]!.lastEmail!.batchId]) expect(answer.text).not.toContain(secret);
      expect(answer.text).not.toMatch(/"(link|salt|tokenSha256|invitedAt|remindersSent|batchId|closedAt|completionDueAt)"/);
      // The owner's address is shown to the organisation's members (docs/api.md#what-members-share), and only that.
      expect([...answer.text.matchAll(/"ownerEmail":"([^"]*)"/g)].map((match) => match[1])).toContain(owner.email);
    }
    expect(sent.body.signers[0].lastEmail).toEqual({ type: 'invitation', status: 'queued', at: sent.body.sentAt });
  });
});

describe('fields (docs/api.md#fields)', () => {
  test('are shown as sent, with ids assigned or kept, required true and label null by default', async () => {
    const { id, ids } = await draftWithRecipients();
    const answer = await put(id, { fields: [field(ids.signer!), field(ids.signer!, { type: 'text', page: 2, x: 0, y: 0, width: 1, height: 1, required: false, label: 'Everything' })] });
    expect(answer.status).toBe(200);
    expect(answer.body.fields).toEqual([
      { id: expect.any(String), recipientId: ids.signer, documentId: id, type: 'signature', page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.1, required: true, label: null },
      { id: expect.any(String), recipientId: ids.signer, documentId: id, type: 'text', page: 2, x: 0, y: 0, width: 1, height: 1, required: false, label: 'Everything' },
    ]);
    const kept = answer.body.fields[0].id;
    const again = await put(id, { fields: [{ ...field(ids.signer!, { type: 'checkbox' }), id: kept }, field(ids.signer!, { id: 'local' })] });
    expect(again.body.fields[0]).toMatchObject({ id: kept, type: 'checkbox' });
    expect(again.body.fields[1].id).not.toBe('local');
    expect(again.body.fields[1].id).toMatch(/^[0-9a-f-]{36}$/);
  });

  test.each(['signature', 'initials', 'date_signed', 'name', 'email', 'text', 'checkbox'])('type %s is accepted', async (type) => {
    const { id, ids } = await draftWithRecipients();
    expect((await put(id, { fields: [field(ids.signer!, { type })] })).status).toBe(200);
  });

  test.each([
    ['an unknown type', { type: 'stamp' }, 'fields.0.type'],
    ['page 0', { page: 0 }, 'fields.0.page'],
    ['a fractional page', { page: 1.5 }, 'fields.0.page'],
    ['x below 0', { x: -0.1 }, 'fields.0.x'],
    ['y above 1', { y: 1.1 }, 'fields.0.y'],
    ['width 0', { width: 0 }, 'fields.0.width'],
    ['height 0', { height: 0 }, 'fields.0.height'],
    ['x + width over 1', { x: 0.8, width: 0.3 }, 'fields.0.width'],
    ['y + height over 1', { y: 0.95, height: 0.1 }, 'fields.0.height'],
    ['a label over 100 characters', { label: 'l'.repeat(101) }, 'fields.0.label'],
    ['required not a boolean', { required: 'yes' }, 'fields.0.required'],
    ['an unknown property', { color: 'red' }, 'fields.0.color'],
    ['no recipientId', { recipientId: undefined }, 'fields.0.recipientId'],
  ])('%s: 400 naming it', async (_case, extra, path) => {
    const { id, ids } = await draftWithRecipients();
    await expectRefused(id, { fields: [field(ids.signer!, extra)] }, 400, [path], 'validation-failed');
  });

  test('two fields with one id: 400', async () => {
    const { id, ids } = await draftWithRecipients();
    const same = randomUUID();
    await expectRefused(id, { fields: [field(ids.signer!, { id: same }), field(ids.signer!, { id: same })] }, 400, ['fields.1.id'], 'validation-failed');
  });

  test('recipientId must name a signer of the envelope whose role is signer: 400 naming each field', async () => {
    const { id, ids } = await draftWithRecipients();
    await expectRefused(id, { fields: [field(ids.approver!), field(ids.viewer!), field(ids.cc!), field(randomUUID()), field(ids.signer!)] }, 400, [
      'fields.0.recipientId', 'fields.1.recipientId', 'fields.2.recipientId', 'fields.3.recipientId',
    ], 'validation-failed');
  });

  test('at most 500: 500 are accepted, 501 get 400', async () => {
    const { id, ids } = await draftWithRecipients();
    const many = (count: number) => Array.from({ length: count }, (_, index) => field(ids.signer!, { type: 'checkbox', x: (index % 20) / 20, y: Math.floor(index / 20) / 26, width: 0.04, height: 0.03 }));
    const accepted = await put(id, { fields: many(500) });
    expect(accepted.status).toBe(200);
    expect(accepted.body.fields).toHaveLength(500);
    expect((await get(id)).body.fields).toHaveLength(500);
    await expectRefused(id, { fields: many(501) }, 400, ['fields'], 'validation-failed');
  });

  test('the fields of a removed signer are removed with it', async () => {
    const { id, ids } = await draftWithRecipients();
    const other = await put(id, {
      signers: [...(await get(id)).body.signers.map(({ id: signerId, email, name, role }: Record<string, string>) => ({ id: signerId, email, name, role })), { email: 'two@example.com', name: 'Two' }],
    });
    const twoId = other.body.signers[4].id as string;
    await put(id, { fields: [field(ids.signer!), field(twoId)] });
    const removed = await put(id, { signers: other.body.signers.slice(0, 4).map(({ id: signerId, email, name, role }: Record<string, string>) => ({ id: signerId, email, name, role })) });
    expect(removed.body.fields.map((entry: { recipientId: string }) => entry.recipientId)).toEqual([ids.signer]);
  });

  test('a signer with fields cannot change to another role while keeping them: 400 naming its role', async () => {
    const { id, ids } = await draftWithRecipients();
    await put(id, { fields: [field(ids.signer!)] });
    const signers = (await get(id)).body.signers.map(({ id: signerId, email, name, role }: Record<string, string>) => ({ id: signerId, email, name, role: role === 'signer' ? 'approver' : role }));
    await expectRefused(id, { signers }, 400, ['signers.0.role'], 'validation-failed');
  });

  test('at send, a field on a page the document does not have: 422 field-outside-document naming it; nothing changes', async () => {
    const { id, ids } = await draftWithRecipients();
    await put(id, { fields: [field(ids.signer!, { page: 2 }), field(ids.signer!, { page: 3 })] });
    const answer = await expectRefused(id, { status: 'sent' }, 422, ['fields.1.page'], 'field-outside-document');
    expect(answer.body.detail).toContain('2');
    expect((await get(id)).body.status).toBe('draft');
  });
});

describe('settings (docs/api.md#the-envelope)', () => {
  const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

  test('signingOrder, expiresAt and remindEveryDays are shown as set; null clears', async () => {
    const id = await draft();
    const expiresAt = inDays(10);
    const answer = await put(id, { signingOrder: 'sequential', expiresAt, remindEveryDays: 3 });
    expect(answer.body).toMatchObject({ signingOrder: 'sequential', expiresAt, remindEveryDays: 3 });
    expect((await put(id, { expiresAt: null, remindEveryDays: null })).body).toMatchObject({ expiresAt: null, remindEveryDays: null, signingOrder: 'sequential' });
  });

  test.each([
    ['signingOrder', 'random'],
    ['expiresAt', 'tomorrow'],
    ['expiresAt', '2030-01-01T00:00:00'],
    ['remindEveryDays', 0],
    ['remindEveryDays', 31],
    ['remindEveryDays', 2.5],
  ])('%s %p: 400 naming it', async (name, value) => {
    const id = await draft();
    await expectRefused(id, { [name]: value }, 400, [name], 'validation-failed');
  });

  test('expiresAt in the past or over 365 days ahead: 400', async () => {
    const id = await draft();
    await expectRefused(id, { expiresAt: inDays(-1) }, 400, ['expiresAt'], 'validation-failed');
    await expectRefused(id, { expiresAt: inDays(366) }, 400, ['expiresAt'], 'validation-failed');
    expect((await put(id, { expiresAt: inDays(364) })).status).toBe(200);
  });

  test('an expiresAt that has passed by the time of the send: 400 naming it, and the envelope stays a draft', async () => {
    const { id } = await draftWithRecipients();
    await put(id, { expiresAt: new Date(Date.now() + 1500).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    await expectRefused(id, { status: 'sent' }, 400, ['expiresAt'], 'validation-failed');
    expect((await get(id)).body.status).toBe('draft');
  });

  test('unset at send: send time + ENVELOPE_TTL_DAYS; set: kept', async () => {
    const first = await draftWithRecipients();
    const sent = await put(first.id, { status: 'sent' });
    expect(Date.parse(sent.body.expiresAt) - Date.parse(sent.body.sentAt)).toBe(30 * 86_400_000);
    const second = await draftWithRecipients();
    const expiresAt = inDays(3);
    expect((await put(second.id, { expiresAt, status: 'sent' })).body.expiresAt).toBe(expiresAt);
  });
});
