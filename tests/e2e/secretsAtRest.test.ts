/**
 * Secrets at rest (docs/api.md#idempotency, docs/api.md#api-keys): an answer that holds a secret (a new
 * API key, a new webhook's signing secret) is never kept for an `Idempotency-Key`: the endpoint
 * refuses the header with 400 `idempotency-not-supported` and creates nothing; and after keys and
 * webhooks are created, with and without such attempts, no property of any entity of any table in
 * storage holds a secret the client was given (or any part of it longer than a key's display prefix).
 */
import { randomUUID } from 'node:crypto';
import { TableClient } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { afterResponse } from '../../src/lib/afterResponse.js';
import { getServices } from '../../src/lib/services.js';
import { expectProblem, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  env = await startTestService({ triggers: false });
  owner = await env.newUser();
});
afterAll(async () => {
  await env?.close();
});

/** The display prefix of a key (docs/api.md#api-keys): `esk_` and 8 characters, stored to name the key. */
const PREFIX_LENGTH = 12;
/** Any stretch of a secret this long (past what the service may show of it) found in storage is a leak. */
const WINDOW = PREFIX_LENGTH + 1;

function expectRefusedKey(response: ApiResponse): void {
  expectProblem(response, 400);
  expect((response.body as { type: string }).type).toBe('urn:problem:idempotency-not-supported');
  expect(response.headers.get('idempotent-replayed')).toBeNull();
}

const createKey = (headers: Record<string, string> = {}, name = 'integration') => env.api.request('POST', '/apikeys', { token: owner.token, json: { name }, headers });
const createHook = (headers: Record<string, string> = {}, path = 'hooks/secrets') =>
  env.api.request('POST', '/webhooks', { token: owner.token, json: { url: `https://93.184.215.14/${path}`, events: ['envelope.completed'] }, headers });

/** Every string value of every entity of every table in the storage account, with where it is. */
async function everyStoredString(): Promise<{ where: string; value: string }[]> {
  const connectionString = process.env.STORAGE_CONNECTION_STRING!;
  const found: { where: string; value: string }[] = [];
  for await (const table of getServices().storage.tableService.listTables()) {
    const client = TableClient.fromConnectionString(connectionString, table.name!, { allowInsecureConnection: true });
    try {
      for await (const entity of client.listEntities<Record<string, unknown>>()) {
        for (const [property, value] of Object.entries(entity)) {
          const text = typeof value === 'string' ? value : value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : JSON.stringify(value);
          if (text !== undefined) found.push({ where: `${table.name!}/${entity.partitionKey}/${entity.rowKey}.${property}`, value: text });
        }
      }
    } catch (error) {
      // The suite's Azurite is shared: another test file may delete a table of its own between the
      // listing and the read. A table that no longer exists holds nothing; any other error fails the test.
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
  }
  return found;
}

describe('answers that hold a secret', () => {
  test('refuse Idempotency-Key: 400 idempotency-not-supported, no key and no webhook created', async () => {
    const keysBefore = (await env.api.request('GET', '/apikeys', { token: owner.token })).body;
    const hooksBefore = (await env.api.request('GET', '/webhooks', { token: owner.token })).body;
    for (const key of [randomUUID(), 'k', 'x'.repeat(255)]) {
      expectRefusedKey(await createKey({ 'Idempotency-Key': key }));
      expectRefusedKey(await createHook({ 'Idempotency-Key': key }));
    }
    expect((await env.api.request('GET', '/apikeys', { token: owner.token })).body).toEqual(keysBefore);
    expect((await env.api.request('GET', '/webhooks', { token: owner.token })).body).toEqual(hooksBefore);
  });

  test('no table holds an API key or a webhook secret given to a client, nor any part of one past the display prefix', async () => {
    const given = new Set<string>();
    for (let round = 0; round < 2; round++) {
      const [keyKey, hookKey] = [randomUUID(), randomUUID()];
      for (const answer of [await createKey({ 'Idempotency-Key': keyKey }), await createKey(), await createKey({ 'Idempotency-Key': keyKey })]) {
        if (answer.status === 201) given.add((answer.body as { key: string }).key);
      }
      for (const answer of [await createHook({ 'Idempotency-Key': hookKey }), await createHook(), await createHook({ 'Idempotency-Key': hookKey })]) {
        if (answer.status === 201) given.add((answer.body as { secret: string }).secret);
      }
    }
    const secrets = [...given];
    expect(secrets.filter((secret) => secret.startsWith('esk_')).length).toBeGreaterThanOrEqual(2);
    expect(secrets.filter((secret) => secret.startsWith('whsec_')).length).toBeGreaterThanOrEqual(2);
    // Whatever the requests write after their answers (kept answers, lastUsedAt) is written by now.
    await afterResponse.idle(30_000);

    const stored = await everyStoredString();
    expect(stored.some(({ where }) => where.startsWith('apiKeys/'))).toBe(true);
    for (const secret of secrets) {
      // The secret's own characters (without `esk_` / `whsec_`), in every stretch longer than the prefix.
      const body = secret.slice(secret.indexOf('_') + 1);
      const windows = new Set<string>();
      for (let start = 0; start + WINDOW <= secret.length; start++) windows.add(secret.slice(start, start + WINDOW));
      for (let start = 0; start + WINDOW <= body.length; start++) windows.add(body.slice(start, start + WINDOW));
      const leaks = stored.filter(({ value }) => [...windows].some((window) => value.includes(window)));
      expect(leaks.map(({ where }) => where)).toEqual([]);
    }
  });
});
