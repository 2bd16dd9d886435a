/**
 * API keys (docs/api.md#api-keys) over real HTTP against real Azurite, every response checked against the
 * OpenAPI document: create (the key shown once, stored only as its SHA-256), list (newest first,
 * never the key), delete; the body rules and the limit of 20 (also under concurrent creations); the
 * key endpoints refusing API keys; a key accepted wherever the owner's token is, acting as the owner,
 * and named by `apiKeyId` in the audit events of its changes; unknown, deleted and expired keys
 * refused; a key deleted on one instance refused by another (its own process, its own memory) within
 * 60 s; `lastUsedAt` written after a use but not on every request.
 */
import { createHash } from 'node:crypto';
import { odata } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { afterResponse } from '../../src/lib/afterResponse.js';
import { getServices } from '../../src/lib/services.js';
import { ISO_MS, UUID_V7 } from '../support/contract.js';
import { waitUntil as eventually } from '../support/patience.js';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { expectProblem, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { patience } from '../support/patience.js';

let env: TestService;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  env = await startTestService({ triggers: false });
  [owner, stranger] = await Promise.all([env.newUser(), env.newUser()]);
});
afterAll(async () => {
  await env?.close();
});

const KEY = /^esk_[A-Za-z0-9_-]{43}$/;
const DAY_MS = 86_400_000;

async function createKey(user: TestUser, json: unknown = { name: 'integration' }): Promise<ApiResponse<any>> {
  return await env.api.request('POST', '/apikeys', { token: user.token, json });
}

async function newKey(user: TestUser, name = 'integration'): Promise<{ id: string; key: string }> {
  const created = await createKey(user, { name });
  expect(created.status).toBe(201);
  return { id: created.body.id, key: created.body.key };
}

async function listKeys(user: TestUser): Promise<any[]> {
  const listed = await env.api.request('GET', '/apikeys', { token: user.token });
  expect(listed.status).toBe(200);
  return listed.body;
}

/** Every row of the `apiKeys` table that belongs to a user or to one of its keys' hashes. */
async function storedRows(userId: string, keys: string[]): Promise<Record<string, unknown>[]> {
  const table = getServices().storage.tables.apiKeys;
  const rows: Record<string, unknown>[] = [];
  for await (const row of table.listEntities<Record<string, unknown>>({ queryOptions: { filter: odata`PartitionKey eq ${userId}` } })) rows.push(row);
  for (const key of keys) {
    const hash = createHash('sha256').update(key).digest('hex');
    for await (const row of table.listEntities<Record<string, unknown>>({ queryOptions: { filter: odata`PartitionKey eq ${`sha256_${hash}`}` } })) rows.push(row);
  }
  return rows;
}

describe('POST /api/apikeys', () => {
  test('creates a key without expiry and shows it once: esk_ + 43 base64url characters, prefix its first 12', async () => {
    const before = Date.now();
    const response = await createKey(owner, { name: 'CRM sync' });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID_V7),
      name: 'CRM sync',
      prefix: response.body.key.slice(0, 12),
      key: expect.stringMatching(KEY),
      createdAt: expect.stringMatching(ISO_MS),
      expiresAt: null,
      lastUsedAt: null,
    });
    expect(Buffer.from(response.body.key.slice(4), 'base64url')).toHaveLength(32);
    expect(Date.parse(response.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    const listed = (await listKeys(owner)).find((key) => key.id === response.body.id);
    expect(listed).toEqual({ ...response.body, key: undefined });
    expect(Object.keys(listed)).not.toContain('key');
  });

  test('stores only the key\'s SHA-256, never the key', async () => {
    const user = await env.newUser();
    const { key } = await newKey(user);
    const rows = await storedRows(user.userId, [key]);
    expect(rows.length).toBe(3); // the key's row, the owner's count, the lookup by hash
    const text = JSON.stringify(rows);
    expect(text).not.toContain(key);
    expect(text).not.toContain(key.slice(12));
    expect(text).toContain(createHash('sha256').update(key).digest('hex'));
  });

  test('keeps an expiry in the future, at most 730 days ahead, as UTC with milliseconds', async () => {
    const expiresAt = new Date(Date.now() + 730 * DAY_MS - 60_000);
    const withOffset = `${new Date(expiresAt.getTime() + 2 * 3_600_000).toISOString().slice(0, 19)}+02:00`;
    const response = await createKey(owner, { name: 'expiring', expiresAt: withOffset });
    expect(response.status).toBe(201);
    expect(response.body.expiresAt).toBe(new Date(Math.floor(expiresAt.getTime() / 1000) * 1000).toISOString());
    const explicitNull = await createKey(owner, { name: 'lasting', expiresAt: null });
    expect(explicitNull.status).toBe(201);
    expect(explicitNull.body.expiresAt).toBeNull();
  });

  test.each([
    ['no name', {}, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a name of 101 characters', { name: 'n'.repeat(101) }, 'name'],
    ['a name that is not text', { name: 42 }, 'name'],
    ['a name with a control character', { name: 'CRM\u0007sync' }, 'name'],
    ['a name with U+2028', { name: 'CRM\u2028sync' }, 'name'],
    ['a name with an unpaired surrogate', { name: 'CRM \ud800 sync' }, 'name'],
    ['an expiry in the past', { name: 'k', expiresAt: new Date(Date.now() - 60_000).toISOString() }, 'expiresAt'],
    ['an expiry 731 days ahead', { name: 'k', expiresAt: new Date(Date.now() + 731 * DAY_MS).toISOString() }, 'expiresAt'],
    ['an expiry that is no timestamp', { name: 'k', expiresAt: 'tomorrow' }, 'expiresAt'],
    ['an unknown field', { name: 'k', key: `esk_${'A'.repeat(43)}` }, 'key'],
  ])('refuses %s with 400 naming the field, and creates nothing', async (_case, json, field) => {
    const user = await env.newUser();
    const response = await createKey(user, json);
    expectProblem(response, 400);
    expect(response.body.type).toBe('urn:problem:validation-failed');
    expect(response.body.errors).toEqual([expect.objectContaining({ path: field })]);
    expect(await listKeys(user)).toEqual([]);
  });

  test('accepts a name of 100 characters (code points)', async () => {
    const name = '😀'.repeat(100);
    const response = await createKey(await env.newUser(), { name });
    expect(response.status).toBe(201);
    expect(response.body.name).toBe(name);
  });

  test('allows 20 keys per user: the 21st gets 409 apikey-limit, and deleting one makes room', async () => {
    const user = await env.newUser();
    const ids: string[] = [];
    for (let index = 0; index < 20; index++) ids.push((await newKey(user, `key ${index}`)).id);
    const refused = await createKey(user, { name: 'one too many' });
    expectProblem(refused, 409);
    expect(refused.body.type).toBe('urn:problem:apikey-limit');
    expect(await listKeys(user)).toHaveLength(20);
    expect((await env.api.request('DELETE', `/apikeys/${ids[0]}`, { token: user.token })).status).toBe(204);
    expect((await createKey(user, { name: 'room again' })).status).toBe(201);
    expect(await listKeys(user)).toHaveLength(20);
  });

  test('concurrent creations never pass the limit', async () => {
    const user = await env.newUser();
    const answers = await Promise.all(Array.from({ length: 24 }, (_, index) => createKey(user, { name: `racing ${index}` })));
    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(20);
    for (const answer of answers.filter((each) => each.status !== 201)) expect(answer.body.type).toBe('urn:problem:apikey-limit');
    expect(await listKeys(user)).toHaveLength(20);
  });
});

describe('GET /api/apikeys', () => {
  test('lists the caller\'s keys only, newest first, never the key', async () => {
    const user = await env.newUser();
    const first = await newKey(user, 'first');
    const second = await newKey(user, 'second');
    await newKey(stranger, 'not yours');
    const listed = await env.api.request('GET', '/apikeys', { token: user.token });
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.body.map((key: { name: string }) => key.name)).toEqual(['second', 'first']);
    expect(listed.body.map((key: { id: string }) => key.id)).toEqual([second.id, first.id]);
    expect(listed.text).not.toContain(first.key);
    expect(listed.text).not.toContain(second.key);
  });
});

describe('DELETE /api/apikeys/{id}', () => {
  test('deletes the key: 204, gone from the list, refused at once, and a second delete is 404', async () => {
    const { id, key } = await newKey(owner, 'short-lived');
    expect((await env.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    const deleted = await env.api.request('DELETE', `/apikeys/${id}`, { token: owner.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await listKeys(owner)).map((each) => each.id)).not.toContain(id);
    const refused = await env.api.request('GET', '/envelopes', { token: key });
    expectProblem(refused, 401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    const again = await env.api.request('DELETE', `/apikeys/${id}`, { token: owner.token });
    expectProblem(again, 404);
    expect(again.body.type).toBe('urn:problem:apikey-not-found');
  });

  test('another user\'s key and unknown ids are 404, and the key keeps working', async () => {
    const { id, key } = await newKey(stranger, 'theirs');
    for (const target of [id, '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0d', 'not-a-uuid']) {
      const response = await env.api.request('DELETE', `/apikeys/${target}`, { token: owner.token });
      expectProblem(response, 404);
      expect(response.body.type).toBe('urn:problem:apikey-not-found');
    }
    expect((await env.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
  });
});

describe('the key endpoints accept only an access token', () => {
  test('an API key gets 403 jwt-required on create, list and delete, and changes nothing', async () => {
    const user = await env.newUser();
    const { id, key } = await newKey(user);
    const attempts = [
      await env.api.request('POST', '/apikeys', { token: key, json: { name: 'made by a key' } }),
      await env.api.request('GET', '/apikeys', { token: key }),
      await env.api.request('DELETE', `/apikeys/${id}`, { token: key }),
    ];
    for (const response of attempts) {
      expectProblem(response, 403);
      expect(response.body.type).toBe('urn:problem:jwt-required');
    }
    expect((await listKeys(user)).map((each) => each.id)).toEqual([id]);
  });

  test('an unknown key gets 401 there', async () => {
    const response = await env.api.request('GET', '/apikeys', { token: `esk_${'B'.repeat(43)}` });
    expectProblem(response, 401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });
});

describe('a request with an API key', () => {
  test('acts as the key\'s owner wherever the access token is accepted', async () => {
    const user = await env.newUser();
    const { key } = await newKey(user);
    const ticket = await env.api.request('POST', '/GetUploadUrl', { token: key, json: { filename: 'by-key.pdf', mimetype: 'application/pdf' } });
    expect(ticket.status).toBe(201);
    const envelope = await env.api.request('GET', `/envelopes/${ticket.body.envelopeId}`, { token: key });
    expect(envelope.status).toBe(200);
    expect(envelope.body.ownerId).toBe(user.userId);
    const listed = await env.api.request('GET', '/envelopes', { token: key });
    expect(listed.body.map((item: { id: string }) => item.id)).toEqual([ticket.body.envelopeId]);
    expect((await env.api.request('GET', '/webhooks', { token: key })).status).toBe(200);
    // Another owner's envelope stays invisible to the key, as to its owner's token.
    expectProblem(await env.api.request('GET', `/envelopes/${ticket.body.envelopeId}`, { token: (await newKey(stranger)).key }), 404);
  });

  test('audit events name the key (apiKeyId) for changes made with it, null for changes made with the token', async () => {
    const user = await env.newUser();
    const { id: apiKeyId, key } = await newKey(user);
    const ticket = await env.api.request('POST', '/GetUploadUrl', { token: key, json: { filename: 'audit.pdf', mimetype: 'application/pdf' } });
    const envelopeId = ticket.body.envelopeId as string;
    const byKey = await env.api.request('PATCH', `/envelopes/${envelopeId}`, { token: key, json: { signers: [{ email: 'a@example.com', name: 'A' }] } });
    expect(byKey.status).toBe(200);
    const byToken = await env.api.request('PATCH', `/envelopes/${envelopeId}`, { token: user.token, json: { signers: [{ email: 'b@example.com', name: 'B' }] } });
    expect(byToken.status).toBe(200);
    const audit = await env.api.request('GET', `/envelopes/${envelopeId}/audit`, { token: key });
    expect(audit.body.map((event: { type: string; actorId: string; apiKeyId: string | null }) => [event.type, event.actorId, event.apiKeyId])).toEqual([
      ['envelope.created', user.userId, apiKeyId],
      ['envelope.signers_replaced', user.userId, apiKeyId],
      ['envelope.signers_replaced', user.userId, null],
    ]);
    expect(audit.text).not.toContain(key);
  });

  test.each([
    ['an unknown key', `esk_${'C'.repeat(43)}`],
    ['a key of the wrong length', 'esk_tooShort'],
  ])('with %s gets 401 invalid_token', async (_case, token) => {
    const response = await env.api.request('GET', '/envelopes', { token });
    expectProblem(response, 401);
    expect(response.body.type).toBe('urn:problem:invalid-token');
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  });

  test('with an expired key gets 401 invalid_token', async () => {
    const expiresAt = new Date(Date.now() + 5_000).toISOString();
    const created = await createKey(owner, { name: 'expiring soon', expiresAt });
    expect(created.status).toBe(201);
    expect((await env.api.request('GET', '/envelopes', { token: created.body.key })).status).toBe(200);
    const refused = await eventually(
      async () => {
        const response = await env.api.request('GET', '/envelopes', { token: created.body.key });
        return response.status === 200 ? undefined : response;
      },
      15_000,
      'the expired key\'s refusal',
    );
    expectProblem(refused, 401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
  });

  test('of an account that no longer exists gets 401', async () => {
    const user = await env.newUser();
    const { key } = await newKey(user);
    expect((await env.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    await getServices().users.delete(user.email);
    expectProblem(await env.api.request('GET', '/envelopes', { token: key }), 401);
  });
});

describe('lastUsedAt', () => {
  test('is written after a use, and not again on the requests of the next minute', async () => {
    const user = await env.newUser();
    const { id, key } = await newKey(user);
    const table = getServices().storage.tables.apiKeys;
    expect((await listKeys(user))[0].lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await env.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    const lastUsedAt = await eventually(async () => (await listKeys(user))[0].lastUsedAt ?? undefined, 15_000, 'lastUsedAt');
    expect(lastUsedAt).toMatch(ISO_MS);
    expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
    const etag = (await table.getEntity(user.userId, `apikey_${id}`)).etag;
    for (let index = 0; index < 5; index++) expect((await env.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    await afterResponse.idle(10_000);
    expect((await table.getEntity(user.userId, `apikey_${id}`)).etag).toBe(etag);
    expect((await listKeys(user))[0].lastUsedAt).toBe(lastUsedAt);
  });
});

describe('two instances sharing one storage', () => {
  let other: ServiceProcess;

  beforeAll(async () => {
    other = await startServiceProcess();
  });
  afterAll(async () => {
    await other?.close();
  });

  test('a key deleted on one instance is refused by the other within 60 s', async () => {
    const user = await env.newUser();
    const { id, key } = await newKey(user);
    // The other instance has the key in its memory now.
    expect((await other.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    expect((await other.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    const deletedAt = Date.now();
    expect((await env.api.request('DELETE', `/apikeys/${id}`, { token: user.token })).status).toBe(204);
    const refused = await eventually(
      async () => {
        const response = await other.api.request('GET', '/envelopes', { token: key });
        return response.status === 200 ? undefined : response;
      },
      60_000 - (Date.now() - deletedAt),
      'the other instance refusing the deleted key',
    );
    expectProblem(refused, 401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  }, patience(90_000));

  test('a key created on one instance works on the other at once, and the key endpoints there refuse it', async () => {
    const user = await env.newUser();
    const { key } = await newKey(user);
    expect((await other.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    expectProblem(await other.api.request('GET', '/apikeys', { token: key }), 403);
  });
});
