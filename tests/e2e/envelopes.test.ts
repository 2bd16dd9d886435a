/**
 * The envelope and its signers (docs/api.md#the-envelope), the lifecycle (docs/api.md#lifecycle) and the basics of the audit trail (docs/api.md#audit-trail), over real
 * HTTP: ownership, ETag and If-Match, PUT and PATCH alike, signer rules, every row of the lifecycle
 * table, and one audit event per successful change.
 */
import { createHash, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { ApiClient, corpusPdf, createEnvelopeWithDocument, expectProblem, fetchAnswer, putToSas, serviceForFile, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { ISO_MS, UUID, UUID_V7, withoutUrls } from '../support/contract.js';
import { ada } from '../support/people.js';

let env: TestService;
let api: ApiClient;
let owner: TestUser;
let stranger: TestUser;
let pdf: Buffer;
serviceForFile(async (started) => {
  ({ env, api } = started);
  [owner, stranger] = await Promise.all([env.newUser(), env.newUser()]);
  pdf = await corpusPdf('normal.pdf');
});

type Method = 'PUT' | 'PATCH';
interface SignerBody {
  id?: string;
  recipientId?: string;
  email?: unknown;
  name?: unknown;
  role?: unknown;
}

const charles = { email: 'charles@example.com', name: 'Charles Babbage', role: 'cc' };

async function draft(withDocument = true): Promise<string> {
  return await createEnvelopeWithDocument(api, owner, withDocument ? pdf : null);
}

async function get(id: string, user = owner): Promise<ApiResponse<any>> {
  return await api.request('GET', `/envelopes/${id}`, { token: user.token });
}

async function update(id: string, json: unknown, options: { method?: Method; ifMatch?: string; user?: TestUser } = {}): Promise<ApiResponse<any>> {
  return await api.request(options.method ?? 'PUT', `/envelopes/${id}`, {
    token: (options.user ?? owner).token,
    json,
    ...(options.ifMatch === undefined ? {} : { headers: { 'If-Match': options.ifMatch } }),
  });
}

async function complete(id: string, ifMatch?: string): Promise<ApiResponse<any>> {
  return await api.request('POST', `/envelopes/${id}/complete`, { token: owner.token, ...(ifMatch === undefined ? {} : { headers: { 'If-Match': ifMatch } }) });
}

async function audit(id: string): Promise<any[]> {
  const response = await api.request('GET', `/envelopes/${id}/audit`, { token: owner.token });
  expect(response.status).toBe(200);
  return response.body as any[];
}

/**
 * Asserts the envelope is as `before` showed it: same ETag, same fields (URLs aside, and each
 * recipient's `lastEmail`: the e-mail function writes its outcome whenever it sends, a queue
 * function of this or another test process, independently of the request under test).
 */
async function expectUnchanged(id: string, before: ApiResponse<any>): Promise<void> {
  const after = await get(id);
  expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  expect(withoutEmailOutcomes(withoutUrls(after.body))).toEqual(withoutEmailOutcomes(withoutUrls(before.body)));
}

function withoutEmailOutcomes(envelope: Record<string, unknown>): Record<string, unknown> {
  const signers = envelope.signers as Record<string, unknown>[] | undefined;
  return signers === undefined ? envelope : { ...envelope, signers: signers.map(({ lastEmail: _lastEmail, ...signer }) => signer) };
}

/** Seconds from now until the `se` (expiry) of a SAS URL. */
function sasSecondsLeft(url: string): number {
  return (Date.parse(new URL(url).searchParams.get('se')!) - Date.now()) / 1000;
}

describe('GET /api/envelopes/{id} (docs/api.md#the-envelope)', () => {
  test('shows exactly the fields of docs/api.md#the-envelope, a new envelope as draft with no signers', async () => {
    const ticket = await api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'Lease 2026.pdf', mimetype: 'application/pdf' } });
    const id = ticket.body.envelopeId as string;
    const response = await get(id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id,
      status: 'draft',
      ownerId: owner.userId,
      ownerEmail: owner.email,
      documentName: 'Lease 2026.pdf',
      documentUrl: expect.any(String),
      documentSha256: null,
      pageCount: null,
      // One document, described by the fields above; its id is the envelope's (docs/api.md#several-documents).
      documents: [{ id, name: 'Lease 2026.pdf', order: 1, pageCount: null, sha256: null, uploadSha256: null, documentUrl: response.body.documentUrl }],
      signers: [],
      fields: [],
      signingOrder: 'parallel',
      expiresAt: null,
      remindEveryDays: null,
      locale: 'en',
      createdAt: expect.stringMatching(ISO_MS),
      updatedAt: expect.stringMatching(ISO_MS),
      sentAt: null,
      completedAt: null,
      signedUrl: null,
      hash: null,
      purgedAt: null,
      voidedReason: null,
      templateId: null,
      allowReassign: false,
      output: 'separate',
    });
    expect(id).toMatch(UUID_V7);
    expect(response.body.updatedAt).toBe(response.body.createdAt);
  });

  test('documentUrl is a read-only SAS valid 15 minutes that downloads the original', async () => {
    const id = await draft();
    const { body } = await get(id);
    expect(sasSecondsLeft(body.documentUrl)).toBeGreaterThan(14 * 60);
    expect(sasSecondsLeft(body.documentUrl)).toBeLessThanOrEqual(15 * 60 + 5);
    expect(new URL(body.documentUrl).searchParams.get('sp')).toBe('r');
    const download = await fetch(body.documentUrl);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(pdf)).toBe(true);
    const overwrite = await fetchAnswer(body.documentUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob' }, body: 'x' });
    expect(overwrite.status).toBe(403);
  });
});

describe('another owner\'s envelope is answered exactly as a missing one (docs/api.md#the-envelope)', () => {
  const requests: [string, (id: string) => Promise<ApiResponse>][] = [
    ['GET', (id) => api.request('GET', `/envelopes/${id}`, { token: stranger.token })],
    ['PUT', (id) => api.request('PUT', `/envelopes/${id}`, { token: stranger.token, json: { signers: [ada] } })],
    ['PATCH', (id) => api.request('PATCH', `/envelopes/${id}`, { token: stranger.token, json: { status: 'voided' } })],
    ['POST complete', (id) => api.request('POST', `/envelopes/${id}/complete`, { token: stranger.token })],
    ['GET audit', (id) => api.request('GET', `/envelopes/${id}/audit`, { token: stranger.token })],
  ];

  test.each(requests)('%s: 404 with the same body as a random id, and nothing changes', async (_name, send) => {
    const id = await draft();
    await update(id, { signers: [ada] });
    const before = await get(id);
    const foreign = await send(id);
    const missing = await send(randomUUID());
    expectProblem(foreign, 404);
    expectProblem(missing, 404);
    expect(foreign.text).toBe(missing.text);
    expect(foreign.headers.get('etag')).toBeNull();
    await expectUnchanged(id, before);
    expect(await audit(id)).toHaveLength(2);
  });

  test.each(['not-a-uuid', '12345', '0196f3a0-0000-7000-8000-00000000abcdx', 'null', ' '])('a malformed id (%s) gets the same 404', async (id) => {
    const missing = await get(randomUUID());
    const malformed = await api.request('GET', `/envelopes/${encodeURIComponent(id)}`, { token: owner.token });
    expectProblem(malformed, 404);
    expect(malformed.text).toBe(missing.text);
    expectProblem(await update(encodeURIComponent(id), { signers: [] }), 404);
  });
});

describe('ETag and If-Match (docs/api.md#etags-and-if-match)', () => {
  test('GET, PUT, PATCH and complete carry a strong ETag that changes with every change', async () => {
    const id = await draft();
    const first = await get(id);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    const put = await update(id, { signers: [ada] });
    expect(put.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(put.headers.get('etag')).not.toBe(etag);
    expect((await get(id)).headers.get('etag')).toBe(put.headers.get('etag'));
    const patch = await update(id, { signers: [ada, charles] }, { method: 'PATCH' });
    expect(patch.headers.get('etag')).not.toBe(put.headers.get('etag'));
    const completed = await complete(id);
    expect(completed.headers.get('etag')).toBe((await get(id)).headers.get('etag'));
  });

  test.each(['PUT', 'PATCH'] as const)('%s with a stale If-Match gets 412 and changes nothing', async (method) => {
    const id = await draft();
    const stale = (await get(id)).headers.get('etag')!;
    await update(id, { signers: [ada] });
    const before = await get(id);
    const response = await update(id, { signers: [charles], status: 'voided' }, { method, ifMatch: stale });
    expectProblem(response, 412);
    await expectUnchanged(id, before);
    expect(await audit(id)).toHaveLength(2);
  });

  test('complete with a stale If-Match gets 412 and seals nothing', async () => {
    const id = await draft();
    const stale = (await get(id)).headers.get('etag')!;
    await update(id, { signers: [ada] });
    const before = await get(id);
    expectProblem(await complete(id, stale), 412);
    await expectUnchanged(id, before);
  });

  test.each(['PUT', 'PATCH'] as const)('%s with the current If-Match (or *) gets 200', async (method) => {
    const id = await draft();
    const current = (await get(id)).headers.get('etag')!;
    const response = await update(id, { signers: [ada] }, { method, ifMatch: current });
    expect(response.status).toBe(200);
    expect(response.body.signers).toHaveLength(1);
    expect((await update(id, { signers: [charles, ada] }, { method, ifMatch: '*' })).status).toBe(200);
  });

  test('a weak If-Match never matches (strong comparison): 412', async () => {
    const id = await draft();
    const current = (await get(id)).headers.get('etag')!;
    expectProblem(await update(id, { signers: [ada] }, { ifMatch: `W/${current}` }), 412);
  });

  test('without If-Match, concurrent updates are all applied, one event each, none lost', async () => {
    const id = await draft();
    const lists = Array.from({ length: 8 }, (_unused, index) => [{ email: `signer${index}@example.com`, name: `Signer ${index}` }]);
    const answers = await Promise.all(lists.map((signers, index) => update(id, { signers }, { method: index % 2 === 0 ? 'PUT' : 'PATCH' })));
    expect(answers.map((answer) => answer.status)).toEqual(lists.map(() => 200));
    const events = await audit(id);
    expect(events.map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const replaced = events.filter((event) => event.type === 'envelope.signers_replaced');
    expect(replaced).toHaveLength(8);
    // Each event replaced the previous one's signer: every update saw the one before it.
    for (let index = 1; index < replaced.length; index++) {
      expect(replaced[index].details.removed).toEqual(replaced[index - 1].details.added);
    }
    const final = await get(id);
    expect(final.body.signers.map((signer: { email: string }) => signer.email)).toEqual(replaced.at(-1).details.added.map((entry: { email: string }) => entry.email));
  });
});

describe.each(['PUT', 'PATCH'] as const)('%s /api/envelopes/{id} signers (docs/api.md#the-envelope)', (method) => {
  const send = (id: string, signers: unknown[]) => update(id, { signers }, { method });

  test('replaces the whole list; recipientId equals id; role defaults to signer; emails lower-cased', async () => {
    const id = await draft();
    await send(id, [ada, charles]);
    const response = await send(id, [{ email: ' Grace@Example.COM ', name: 'Grace Hopper' }]);
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('draft');
    expect(response.body.signers).toEqual([
      {
        id: expect.stringMatching(UUID), recipientId: response.body.signers[0].id, email: 'grace@example.com', name: 'Grace Hopper', role: 'signer',
        routingOrder: 1, status: 'created', actedAt: null, declineReason: null, lastEmail: null, locale: null, delivery: ['email'], authentication: { method: 'none' },
      },
    ]);
    expect((await get(id)).body.signers).toEqual(response.body.signers);
  });

  test('an empty array removes every signer', async () => {
    const id = await draft();
    await send(id, [ada]);
    expect((await send(id, [])).body.signers).toEqual([]);
  });

  test('an entry with the id (or recipientId) of an existing signer keeps that identity', async () => {
    const id = await draft();
    const first = await send(id, [ada, charles]);
    const [adaId, charlesId] = first.body.signers.map((signer: { id: string }) => signer.id);
    const second = await send(id, [
      { id: adaId, email: ada.email, name: 'Ada, Countess of Lovelace', role: 'approver' },
      { recipientId: charlesId, email: charles.email, name: charles.name, role: 'viewer' },
      { email: 'new@example.com', name: 'Newcomer' },
    ]);
    expect(second.status).toBe(200);
    expect(second.body.signers.map((signer: { id: string; recipientId: string }) => [signer.id, signer.recipientId])).toEqual([
      [adaId, adaId],
      [charlesId, charlesId],
      [expect.stringMatching(UUID), second.body.signers[2].id],
    ]);
    expect(second.body.signers[2].id).not.toBe(adaId);
    expect(second.body.signers[0]).toMatchObject({ name: 'Ada, Countess of Lovelace', role: 'approver' });
  });

  test('id and recipientId both sent and equal are accepted', async () => {
    const id = await draft();
    const signerId = (await send(id, [ada])).body.signers[0].id;
    const response = await send(id, [{ ...ada, id: signerId, recipientId: signerId }]);
    expect(response.status).toBe(200);
    expect(response.body.signers[0].id).toBe(signerId);
  });

  test('id and recipientId both sent and different get 400', async () => {
    const id = await draft();
    const before = await get(id);
    const response = await send(id, [{ ...ada, id: randomUUID(), recipientId: randomUUID() }]);
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'signers.0.recipientId', message: expect.any(String) });
    await expectUnchanged(id, before);
  });

  test('two entries claiming the same signer id get 400 (one identity, one signer)', async () => {
    const id = await draft();
    const signerId = (await send(id, [ada])).body.signers[0].id;
    const before = await get(id);
    const response = await send(id, [{ ...ada, id: signerId }, { ...charles, recipientId: signerId }]);
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'signers.1.recipientId', message: expect.any(String) });
    await expectUnchanged(id, before);
  });

  test('null and {} entries are dropped', async () => {
    const id = await draft();
    const response = await send(id, [null, ada, {}, charles, null]);
    expect(response.status).toBe(200);
    expect(response.body.signers.map((signer: { email: string }) => signer.email)).toEqual([ada.email, charles.email]);
  });

  test('e-mail addresses repeated case-insensitively get 400', async () => {
    const id = await draft();
    const before = await get(id);
    const response = await send(id, [ada, { email: 'ADA@example.com ', name: 'Another Ada' }]);
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'signers.1.email', message: expect.any(String) });
    await expectUnchanged(id, before);
  });

  test('at most 100 signers: 100 are accepted, 101 get 400', async () => {
    const id = await draft();
    const signers = (count: number) => Array.from({ length: count }, (_unused, index) => ({ email: `s${index}@example.com`, name: `Signer ${index}` }));
    const hundred = await send(id, signers(100));
    expect(hundred.status).toBe(200);
    expect(hundred.body.signers).toHaveLength(100);
    expect((await get(id)).body.signers).toHaveLength(100);
    const tooMany = await send(id, signers(101));
    expectProblem(tooMany, 400);
    expect((await get(id)).body.signers).toHaveLength(100);
  });

  test('each role of signer, approver, viewer and cc is accepted; any other role gets 400', async () => {
    const id = await draft();
    const roles = ['signer', 'approver', 'viewer', 'cc'];
    const accepted = await send(id, roles.map((role) => ({ email: `${role}@example.com`, name: role, role })));
    expect(accepted.body.signers.map((signer: { role: string }) => signer.role)).toEqual(roles);
    for (const role of ['owner', 'SIGNER', '', null, 1]) {
      const response = await send(id, [{ ...ada, role }]);
      expectProblem(response, 400);
      expect(response.body.errors).toContainEqual({ path: 'signers.0.role', message: expect.any(String) });
    }
  });

  test('a name of 1 to 200 characters is accepted; empty, missing or over 200 gets 400', async () => {
    const id = await draft();
    expect((await send(id, [{ ...ada, name: 'é'.repeat(200) }])).status).toBe(200);
    expect((await send(id, [{ ...ada, name: 'A' }])).status).toBe(200);
    for (const name of ['x'.repeat(201), '', '   ', undefined, 42]) {
      const response = await send(id, [{ email: ada.email, role: 'signer', ...(name === undefined ? {} : { name }) }]);
      expectProblem(response, 400);
      expect(response.body.errors).toContainEqual({ path: 'signers.0.name', message: expect.any(String) });
    }
  });

  test('a missing or invalid e-mail address gets 400', async () => {
    const id = await draft();
    for (const email of [undefined, 'not-an-address', 'a@', '', 7]) {
      const response = await send(id, [{ name: 'Someone', ...(email === undefined ? {} : { email }) } satisfies SignerBody]);
      expectProblem(response, 400);
      expect(response.body.errors).toContainEqual({ path: 'signers.0.email', message: expect.any(String) });
    }
  });

  test('an unknown field in a signer gets 400 naming it', async () => {
    const id = await draft();
    const response = await send(id, [{ ...ada, phone: '+1 555 0100' }]);
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'signers.0.phone', message: expect.any(String) });
  });

  test('signers that is not an array gets 400', async () => {
    const id = await draft();
    for (const signers of [ada, 'ada@example.com', null]) {
      expectProblem(await update(id, { signers }, { method }), 400);
    }
  });
});

test('PUT and PATCH give the same envelope for the same requests (docs/api.md#lifecycle)', async () => {
  const shape = async (method: Method) => {
    const id = await draft();
    await update(id, { signers: [ada, charles] }, { method });
    const result = await update(id, { signers: [charles, { email: 'x@example.com', name: 'X' }], status: 'sent' }, { method });
    expect(result.status).toBe(200);
    const { id: _id, createdAt: _createdAt, updatedAt: _updatedAt, sentAt, expiresAt, documentUrl: _documentUrl, signers, documents, ...rest } = result.body;
    // Times differ between the two envelopes; the default expiry is the send time + ENVELOPE_TTL_DAYS (30).
    expect(Date.parse(expiresAt) - Date.parse(sentAt)).toBe(30 * 86_400_000);
    // The one document's id is the envelope's own (docs/api.md#several-documents); its URL is signed anew.
    expect(documents.map((document: { id: string }) => document.id)).toEqual([result.body.id]);
    return {
      ...rest,
      documents: documents.map(({ id: _documentId, documentUrl: _url, ...document }: Record<string, unknown>) => document),
      signers: signers.map(({ id: _signerId, recipientId: _recipientId, lastEmail, ...signer }: Record<string, any>) => ({ ...signer, lastEmail: lastEmail && { ...lastEmail, at: 'at' } })),
    };
  };
  expect(await shape('PATCH')).toEqual(await shape('PUT'));
});

describe('lifecycle (docs/api.md#lifecycle)', () => {
  let completedId: string;
  let completedHash: string;
  let voidedId: string;

  beforeAll(async () => {
    completedId = await draft();
    await update(completedId, { signers: [ada] });
    const completed = await complete(completedId);
    expect(completed.status).toBe(200);
    completedHash = completed.body.hash;
    voidedId = await draft();
    await update(voidedId, { signers: [ada] });
    expect((await update(voidedId, { status: 'voided' })).status).toBe(200);
  });

  test('draft → sent with an uploaded valid document and a signer of role signer', async () => {
    const id = await draft();
    const response = await update(id, { signers: [charles, ada], status: 'sent' });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('sent');
    expect((await get(id)).body.status).toBe('sent');
  });

  test.each([
    ['no signers', []],
    ['only cc, viewer and approver recipients', [charles, { email: 'v@example.com', name: 'V', role: 'viewer' }, { email: 'a@example.com', name: 'A', role: 'approver' }]],
  ])('draft → sent with %s gets 409 and changes nothing', async (_case, signers) => {
    const id = await draft();
    await update(id, { signers });
    const before = await get(id);
    const response = await update(id, { status: 'sent' });
    expectProblem(response, 409);
    expect(response.body.detail).toMatch(/signer/);
    await expectUnchanged(id, before);
    // Nor in one request with the signers.
    expectProblem(await update(id, { signers: [charles], status: 'sent' }), 409);
    await expectUnchanged(id, before);
  });

  test('draft → sent before the document is uploaded gets 409', async () => {
    const id = await draft(false);
    await update(id, { signers: [ada] });
    const before = await get(id);
    const response = await update(id, { status: 'sent' });
    expectProblem(response, 409);
    expect(response.body.detail).toMatch(/upload/i);
    await expectUnchanged(id, before);
  });

  test('signers can be replaced in draft; a sent envelope is locked (409 envelope-locked) unless the request repeats what it holds', async () => {
    const id = await draft();
    expect((await update(id, { signers: [ada] })).body.status).toBe('draft');
    const sent = await update(id, { status: 'sent' });
    const before = await get(id);
    const field = { recipientId: sent.body.signers[0].id, type: 'text', page: 1, x: 0, y: 0, width: 0.5, height: 0.1 };
    for (const body of [{ signers: [ada, charles] }, { fields: [field] }, { signingOrder: 'sequential' }, { remindEveryDays: 2 }, { expiresAt: null }, { signers: [ada, charles], status: 'voided' }]) {
      const locked = await update(id, body, { method: 'PATCH' });
      expectProblem(locked, 409);
      expect(locked.body.type).toBe('urn:problem:envelope-locked');
    }
    await expectUnchanged(id, before);
    const { id: adaId, email, name, role } = sent.body.signers[0];
    const repeated = await update(id, { signers: [{ id: adaId, email, name, role }], fields: [], signingOrder: 'parallel', status: 'sent' });
    expect(repeated.status).toBe(200);
    await expectUnchanged(id, before);
  });

  test.each(['draft', 'sent'])('%s → voided', async (from) => {
    const id = await draft();
    await update(id, { signers: [ada], ...(from === 'sent' ? { status: 'sent' } : {}) });
    expect((await get(id)).body.status).toBe(from);
    const response = await update(id, { status: 'voided' });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('voided');
  });

  test('sent → complete before the recipients acted: 409 recipients-pending naming them, and nothing changes', async () => {
    const id = await draft();
    await update(id, { signers: [ada, charles, { email: 'vera@example.com', name: 'Vera Viewer', role: 'viewer' }], status: 'sent' });
    const before = await get(id);
    const response = await complete(id);
    expectProblem(response, 409);
    expect(response.body.type).toBe('urn:problem:recipients-pending');
    expect(response.body.detail).toContain('Ada Lovelace <ada@example.com>');
    expect(response.body.detail).toContain('Vera Viewer <vera@example.com>');
    expect(response.body.detail).not.toContain('charles@example.com');
    await expectUnchanged(id, before);
  });

  test('draft → complete with fields: 409 envelope-has-fields, and nothing changes', async () => {
    const id = await draft();
    const withSigner = await update(id, { signers: [ada] });
    await update(id, { fields: [{ recipientId: withSigner.body.signers[0].id, type: 'signature', page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.1 }] });
    const before = await get(id);
    const response = await complete(id);
    expectProblem(response, 409);
    expect(response.body.type).toBe('urn:problem:envelope-has-fields');
    await expectUnchanged(id, before);
  });

  test('draft → completed by POST .../complete: 200 {message, signedUrl, hash, documents}, the document frozen', async () => {
    const id = await draft();
    await update(id, { signers: [ada] });
    const response = await complete(id);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: expect.any(String),
      signedUrl: expect.any(String),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      // One document: its entry is the envelope's sealed PDF (docs/api.md#several-documents).
      documents: [{ id, name: expect.any(String), signedUrl: expect.any(String), hash: response.body.hash }],
    });
    const sealed = Buffer.from(await (await fetch(response.body.signedUrl)).arrayBuffer());
    expect(createHash('sha256').update(sealed).digest('hex')).toBe(response.body.hash);
    const after = await get(id);
    expect(after.body).toMatchObject({
      status: 'completed', hash: response.body.hash, completedAt: expect.stringMatching(ISO_MS), signedUrl: expect.any(String),
      documentSha256: createHash('sha256').update(pdf).digest('hex'), pageCount: expect.any(Number), sentAt: null,
    });
    expect(new URL(after.body.documentUrl).pathname).toContain('/originals/');
  });

  test('complete with only a cc recipient gets 409 and changes nothing', async () => {
    const id = await draft();
    await update(id, { signers: [charles] });
    const before = await get(id);
    const response = await complete(id);
    expectProblem(response, 409);
    await expectUnchanged(id, before);
  });

  test('complete on a completed envelope: 200, same hash, fresh signedUrl, even with a stale If-Match; nothing sealed twice', async () => {
    const blobBefore = await fetchAnswer((await get(completedId)).body.signedUrl);
    const before = await get(completedId);
    const again = await complete(completedId, '"1"');
    expect(again.status).toBe(200);
    expect(again.body.hash).toBe(completedHash);
    expect(sasSecondsLeft(again.body.signedUrl)).toBeGreaterThan(14 * 60);
    const blobAfter = await fetch(again.body.signedUrl);
    expect(blobAfter.status).toBe(200);
    expect(blobAfter.headers.get('etag')).toBe(blobBefore.headers.get('etag'));
    expect(createHash('sha256').update(Buffer.from(await blobAfter.arrayBuffer())).digest('hex')).toBe(completedHash);
    await expectUnchanged(completedId, before);
  });

  test('complete on a voided envelope gets 409 naming its status', async () => {
    const before = await get(voidedId);
    const response = await complete(voidedId);
    expectProblem(response, 409);
    expect(response.body.detail).toContain('voided');
    await expectUnchanged(voidedId, before);
  });

  test.each([
    ['signers', { signers: [charles] }],
    ['status voided', { status: 'voided' }],
    ['status sent', { status: 'sent' }],
    ['status draft', { status: 'draft' }],
  ])('an update (%s) of a completed envelope gets 409 naming its status', async (_case, body) => {
    const before = await get(completedId);
    for (const method of ['PUT', 'PATCH'] as const) {
      const response = await update(completedId, body, { method });
      expectProblem(response, 409);
      expect(response.body.detail).toContain('completed');
    }
    await expectUnchanged(completedId, before);
  });

  test.each([
    ['signers', { signers: [charles] }],
    ['status sent', { status: 'sent' }],
    ['status draft', { status: 'draft' }],
  ])('an update (%s) of a voided envelope gets 409 naming its status', async (_case, body) => {
    const before = await get(voidedId);
    for (const method of ['PUT', 'PATCH'] as const) {
      const response = await update(voidedId, body, { method });
      expectProblem(response, 409);
      expect(response.body.detail).toContain('voided');
    }
    await expectUnchanged(voidedId, before);
  });

  test('{status: "completed"} by PUT gets 409 naming the allowed transitions', async () => {
    const id = await draft();
    await update(id, { signers: [ada] });
    const before = await get(id);
    const response = await update(id, { status: 'completed' });
    expectProblem(response, 409);
    expect(response.body.detail).toContain('sent');
    expect(response.body.detail).toContain('voided');
    await expectUnchanged(id, before);
  });

  test('sent → draft gets 409 naming the allowed transition', async () => {
    const id = await draft();
    await update(id, { signers: [ada], status: 'sent' });
    const response = await update(id, { status: 'draft' }, { method: 'PATCH' });
    expectProblem(response, 409);
    expect(response.body.detail).toContain('voided');
    expect((await get(id)).body.status).toBe('sent');
  });

  test('a status that does not exist gets 400', async () => {
    const id = await draft();
    const response = await update(id, { status: 'archived' });
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'status', message: expect.any(String) });
  });
});

describe('audit trail, basics (docs/api.md#audit-trail)', () => {
  test('upload, two signer changes and complete from draft: created, signers_replaced ×2, completed, sequence 1..4; refusals add nothing', async () => {
    const headers = { 'User-Agent': 'contract-test/1.0' };
    const ticket = await api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'audit.pdf', mimetype: 'application/pdf' }, headers });
    const id = ticket.body.envelopeId as string;
    expect((await putToSas(ticket.body.uploadUrl, pdf)).status).toBe(201);
    const request = (method: string, route: string, json?: unknown, extra: Record<string, string> = {}) =>
      api.request(method, route, { token: owner.token, headers: { ...headers, ...extra }, ...(json === undefined ? {} : { json }) });

    const first = await request('PUT', `/envelopes/${id}`, { signers: [ada] });
    const adaId = first.body.signers[0].id as string;
    // Refused: stale If-Match, invalid body, bad transition, another owner's request; and a no-op.
    expectProblem(await request('PUT', `/envelopes/${id}`, { signers: [charles] }, { 'If-Match': '"1"' }), 412);
    expectProblem(await request('PUT', `/envelopes/${id}`, { signers: [{ email: 'bad' }] }), 400);
    expectProblem(await request('PATCH', `/envelopes/${id}`, { status: 'completed' }), 409);
    expectProblem(await api.request('PATCH', `/envelopes/${id}`, { token: stranger.token, json: { status: 'voided' } }), 404);
    expect((await request('PUT', `/envelopes/${id}`, { signers: [{ ...ada, id: adaId }] })).status).toBe(200);

    const second = await request('PATCH', `/envelopes/${id}`, { signers: [{ ...ada, id: adaId }, charles] });
    const charlesId = second.body.signers[1].id as string;
    const completed = await request('POST', `/envelopes/${id}/complete`);
    expect(completed.status).toBe(200);
    // Refused or repeated after completion.
    expectProblem(await request('PUT', `/envelopes/${id}`, { signers: [] }), 409);
    expect((await request('POST', `/envelopes/${id}/complete`)).status).toBe(200);

    const events = await audit(id);
    expect(events.map((event) => [event.sequence, event.type])).toEqual([
      [1, 'envelope.created'],
      [2, 'envelope.signers_replaced'],
      [3, 'envelope.signers_replaced'],
      [4, 'envelope.completed'],
    ]);
    for (const event of events) {
      expect(event).toEqual({
        sequence: expect.any(Number),
        type: expect.any(String),
        at: expect.stringMatching(ISO_MS),
        actorId: owner.userId,
        actorEmail: owner.email,
        ip: expect.any(String),
        userAgent: 'contract-test/1.0',
        apiKeyId: null,
        organizationId: expect.stringMatching(UUID),
        details: expect.any(Object),
        prevHash: expect.stringMatching(/^[0-9a-f]{64}$/),
        hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
    }
    // One chain (docs/api.md#chained-audit-trail): each event names the one before it.
    expect(events.slice(1).map((event) => event.prevHash)).toEqual(events.slice(0, -1).map((event) => event.hash));
    expect(events.map((event) => event.at)).toEqual([...events.map((event) => event.at)].sort());
    expect(events[0].details).toEqual({ documentName: 'audit.pdf', blobName: `${id}/audit.pdf` });
    expect(events[1].details).toEqual({ added: [{ id: adaId, email: ada.email }], removed: [] });
    expect(events[2].details).toEqual({ added: [{ id: charlesId, email: charles.email }], removed: [] });
    expect(events[3].details).toEqual({
      originalSha256: createHash('sha256').update(pdf).digest('hex'),
      sealedSha256: completed.body.hash,
      auditHead: events[2].hash,
    });
  });

  test('replacing 100 signers with long addresses by 100 others records one event with all 200 (no 500)', async () => {
    const id = await draft();
    // 249-character addresses: the event's details exceed what one Table Storage property holds (32K characters).
    const address = (prefix: string, index: number) => `${prefix}${String(index).padStart(3, '0')}${'a'.repeat(56)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(56)}.com`;
    const list = (prefix: string) => Array.from({ length: 100 }, (_unused, index) => ({ email: address(prefix, index), name: `Signer ${index}` }));
    expect((await update(id, { signers: list('x') })).status).toBe(200);
    const replaced = await update(id, { signers: list('y') });
    expect(replaced.status).toBe(200);
    const events = await audit(id);
    expect(events.map((event) => event.sequence)).toEqual([1, 2, 3]);
    expect(events[2].details.added.map((entry: { email: string }) => entry.email)).toEqual(list('y').map((signer) => signer.email));
    expect(events[2].details.removed.map((entry: { email: string }) => entry.email)).toEqual(list('x').map((signer) => signer.email));
  });

  test('removing a signer records it under removed', async () => {
    const id = await draft();
    const added = await update(id, { signers: [ada, charles] });
    await update(id, { signers: [{ ...ada, id: added.body.signers[0].id }] });
    const events = await audit(id);
    expect(events.at(-1)).toMatchObject({
      type: 'envelope.signers_replaced',
      details: { added: [], removed: [{ id: added.body.signers[1].id, email: charles.email }] },
    });
  });
});
