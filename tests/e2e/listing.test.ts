/**
 * Listing (docs/api.md#list-envelopes) over real HTTP: the caller's envelopes only, newest first, filtered by status,
 * paged with `limit` and an opaque `cursor` announced in `Link: <...>; rel="next"`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { ApiClient, createEnvelopeWithDocument, expectProblem, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { nextLink, withoutUrls } from '../support/contract.js';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { getServices } from '../../src/lib/services.js';

let env: TestService;
let api: ApiClient;
let owner: TestUser;
let other: TestUser;
/** The owner's envelope ids, oldest first. */
const ids: string[] = [];
/** The ids the owner voided. */
const voided = new Set<string>();
const otherIds: string[] = [];

beforeAll(async () => {
  env = await startTestService();
  api = env.api;
  [owner, other] = await Promise.all([env.newUser(), env.newUser()]);
  // Created one after another so that creation order is certain.
  for (let index = 0; index < 7; index++) {
    ids.push(await createEnvelopeWithDocument(api, owner, null, `doc-${index}.pdf`));
    otherIds.push(await createEnvelopeWithDocument(api, other, null, `other-${index}.pdf`));
  }
  for (const index of [1, 4, 5]) {
    const response = await api.request('PATCH', `/envelopes/${ids[index]}`, { token: owner.token, json: { status: 'voided' } });
    expect(response.status).toBe(200);
    voided.add(ids[index]!);
  }
});
afterAll(async () => {
  await env.close();
});

async function list(query = '', user = owner): Promise<ApiResponse<any>> {
  return await api.request('GET', `/envelopes${query}`, { token: user.token });
}

/** Follows `rel="next"` from `first` to the end; returns every page's ids. */
async function allPages(first: ApiResponse<any>, user = owner): Promise<string[][]> {
  const pages: string[][] = [];
  let response = first;
  for (;;) {
    expect(response.status).toBe(200);
    pages.push((response.body as { id: string }[]).map((envelope) => envelope.id));
    const next = nextLink(response);
    if (next === null) return pages;
    expect(next).toMatch(/[?&]cursor=/);
    // The link names PUBLIC_BASE_URL (no test server answers there): follow its path and query here.
    expect(next.startsWith(`${env.service.publicBaseUrl}/api/envelopes?`)).toBe(true);
    const fetched = await fetch(`${env.service.apiUrl}${next.slice(`${env.service.publicBaseUrl}/api`.length)}`, { headers: { Authorization: `Bearer ${user.token}` } });
    response = { status: fetched.status, headers: fetched.headers, text: '', body: await fetched.json() };
    if (pages.length > 50) throw new Error('paging does not end');
  }
}

const newestFirst = () => [...ids].reverse();

describe('GET /api/envelopes (docs/api.md#list-envelopes)', () => {
  test('answers a JSON array of the caller\'s envelopes, newest first, without a Link when all fit', async () => {
    const response = await list();
    expect(response.status).toBe(200);
    expect(Array.isArray(response.body)).toBe(true);
    expect(response.body.map((envelope: { id: string }) => envelope.id)).toEqual(newestFirst());
    expect(response.headers.get('link')).toBeNull();
    const created = response.body.map((envelope: { createdAt: string }) => envelope.createdAt);
    expect(created).toEqual([...created].sort().reverse());
  });

  test('each entry is a whole envelope, as GET /api/envelopes/{id} shows it', async () => {
    const [first] = (await list('?limit=1')).body;
    const single = await api.request('GET', `/envelopes/${first.id}`, { token: owner.token });
    // Each read signs its own SAS URLs, valid for a time counted from the read: their expiry (se) and
    // signature (sig) differ when a second passes between the two reads, so both compare without them.
    expect(withoutUrls(first)).toEqual(withoutUrls(single.body));
    expect(first.documentUrl).toEqual(expect.stringContaining('sig='));
  });

  test('never lists another owner\'s envelopes', async () => {
    const mine = (await list()).body.map((envelope: { id: string }) => envelope.id);
    const theirs = (await list('', other)).body.map((envelope: { id: string }) => envelope.id);
    expect(mine.filter((id: string) => otherIds.includes(id))).toEqual([]);
    expect(theirs).toEqual([...otherIds].reverse());
    for (const status of ['draft', 'voided']) {
      const filtered = (await list(`?status=${status}`)).body.map((envelope: { id: string }) => envelope.id);
      expect(filtered.filter((id: string) => otherIds.includes(id))).toEqual([]);
    }
  });

  test('a new user has an empty list', async () => {
    const fresh = await env.newUser();
    const response = await list('', fresh);
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
  });

  test('status=<status> lists only envelopes in that status, newest first', async () => {
    const voidedList = await list('?status=voided');
    expect(voidedList.body.map((envelope: { id: string }) => envelope.id)).toEqual(newestFirst().filter((id) => voided.has(id)));
    const drafts = await list('?status=draft');
    expect(drafts.body.map((envelope: { id: string }) => envelope.id)).toEqual(newestFirst().filter((id) => !voided.has(id)));
    expect((await list('?status=completed')).body).toEqual([]);
  });

  test('a status that does not exist gets 400', async () => {
    const response = await list('?status=archived');
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'status', message: expect.any(String) });
  });

  test.each(['0', '101', '1000', '1001', '00000', 'x', '-1', '1.5', '1e1', '0x10', ' 5', '+5', ''])('limit=%s gets 400 naming limit', async (limit) => {
    const response = await list(`?limit=${limit}`);
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'limit', message: expect.any(String) });
  });

  test.each(['0', '101', '1000', 'x', '1.5', ''])('GET /api/templates?limit=%s gets 400 naming limit, as for envelopes', async (limit) => {
    const response = await api.request('GET', `/templates?limit=${limit}`, { token: owner.token });
    expectProblem(response, 400);
    expect(response.body.errors).toContainEqual({ path: 'limit', message: 'must be a whole number from 1 to 100' });
  });

  test('the OpenAPI document types limit as an integer from 1 to 100 on both lists', async () => {
    const document = (await api.request('GET', '/openapi.json')).body as { paths: Record<string, { get: { parameters: { name: string; schema: Record<string, unknown> }[] } }> };
    for (const path of ['/envelopes', '/templates']) {
      const limit = document.paths[path]!.get.parameters.find((parameter) => parameter.name === 'limit');
      expect(limit?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    }
  });

  test.each(['1', '0050', '100'])('limit=%s is accepted', async (limit) => {
    const response = await list(`?limit=${limit}`);
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(Math.min(Number(limit), ids.length));
  });

  test.each([1, 2, 3, 7])('limit=%i pages through every envelope via Link rel="next", without duplicates or gaps', async (limit) => {
    const first = await list(`?limit=${limit}`);
    if (limit < ids.length) expect(first.headers.get('link')).toMatch(/^<[^>]+[?&]cursor=[^>]+>; rel="next"$/);
    const pages = await allPages(first);
    expect(pages.flat()).toEqual(newestFirst());
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(limit);
    expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    expect(pages).toHaveLength(Math.ceil(ids.length / limit));
  });

  test('paging keeps the status filter', async () => {
    const pages = await allPages(await list('?status=draft&limit=2'));
    expect(pages.flat()).toEqual(newestFirst().filter((id) => !voided.has(id)));
  });

  test('the owner\'s cursor does not open another owner\'s envelopes', async () => {
    const next = nextLink(await list('?limit=2'))!;
    const cursor = new URL(next).searchParams.get('cursor')!;
    const theirs = await list(`?limit=1000&cursor=${encodeURIComponent(cursor)}`, other);
    expect(theirs.status === 400 || theirs.status === 200).toBe(true);
    if (theirs.status === 200) {
      expect(theirs.body.every((envelope: { ownerId: string }) => envelope.ownerId === other.userId)).toBe(true);
    }
  });

  test.each([
    ['garbage', 'not a cursor!'],
    ['base64 of something else', Buffer.from('envelope_../../etc').toString('base64url')],
    ['too long', 'A'.repeat(500)],
    ['empty', ''],
  ])('an invalid cursor (%s) gets 400', async (_case, cursor) => {
    expectProblem(await list(`?cursor=${encodeURIComponent(cursor)}`), 400);
  });

  test('a cursor of a listing by status is refused for a listing without that filter', async () => {
    const next = nextLink(await list('?status=draft&limit=1'))!;
    const cursor = new URL(next).searchParams.get('cursor')!;
    expectProblem(await list(`?cursor=${encodeURIComponent(cursor)}`), 400);
  });
});

describe('GET /api/envelopes without limit (docs/api.md#list-envelopes)', () => {
  test('returns at most 1000 and links to the rest', async () => {
    const crowded = await env.newUser();
    const services = getServices();
    const at = new Date().toISOString();
    const created: string[] = [];
    // 1001 envelopes through the repository (the API would take much longer), 50 at a time.
    for (let batch = 0; batch < 1001; batch += 50) {
      const drafts = Array.from({ length: Math.min(50, 1001 - batch) }, () => {
        const draft = newDraftEnvelope({ actor: { userId: crowded.userId, email: crowded.email, emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: crowded.userId, role: 'owner' as const }, documentName: 'bulk.pdf', now: new Date(at) });
        created.push(draft.record.id);
        return draft;
      });
      await Promise.all(drafts.map(({ record, event }) => services.envelopes.create(record, event)));
    }
    const first = await list('', crowded);
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(1000);
    const pages = await allPages(first, crowded);
    expect(pages.map((page) => page.length)).toEqual([1000, 1]);
    expect(pages.flat()).toEqual([...created].reverse());
  });
});
