/**
 * Health (`GET /api/health`, docs/api.md#health) and the storage rule of docs/api.md#conventions (storage unreachable → 503 with
 * `Retry-After`), over real HTTP: a second service is started while storage points at a closed port.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createLocalHost } from '../../src/local/host.js';
import { loadFunctions } from '../../src/local/loadFunctions.js';
import { ApiClient, expectProblem, startTestService, type TestService, type TestUser } from '../support/service.js';
import { closedPort, withSettings } from '../support/contract.js';
import type { AddressInfo } from 'node:net';

let env: TestService;
let api: ApiClient;
let user: TestUser;

beforeAll(async () => {
  // No queue or timer functions in this process: while storage is made unreachable below, they would
  // take other test files' messages from the shared queues and fail them (delaying their e-mails).
  env = await startTestService({ triggers: false });
  api = env.api;
  user = await env.newUser();
});
afterAll(async () => {
  await env.close();
});

/** Runs `body` against a second local host while storage is unreachable (a closed port), then restores it. */
async function withStorageUnreachable(body: (down: ApiClient) => Promise<void>): Promise<void> {
  const port = await closedPort();
  const connectionString = process.env.STORAGE_CONNECTION_STRING!
    .replace(/BlobEndpoint=[^;]+/, `BlobEndpoint=http://127.0.0.1:${port}/devstoreaccount1`)
    .replace(/TableEndpoint=[^;]+/, `TableEndpoint=http://127.0.0.1:${port}/devstoreaccount1`);
  await withSettings({ STORAGE_CONNECTION_STRING: connectionString }, async () => {
    // startService would fail creating tables, so the second host is started without it.
    const server = createLocalHost(await loadFunctions(), { allowedOrigins: ['*'] });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      await body(new ApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`));
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });
}

describe('GET /api/health (docs/api.md#health)', () => {
  test('answers 200 {status: "ok"} without a token when storage answers', async () => {
    const response = await api.request('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  test('answers 503 with Retry-After when storage is unreachable, and 200 again once it is back', async () => {
    await withStorageUnreachable(async (down) => {
      const health = await down.request('GET', '/health');
      expectProblem(health, 503);
      expect(Number(health.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(health.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|RestError|AccountKey/);

      // docs/api.md#conventions: any endpoint that needs storage answers the same way, never 500.
      const listing = await down.request('GET', '/envelopes', { token: user.token });
      expectProblem(listing, 503);
      expect(Number(listing.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(listing.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|RestError|AccountKey/);
    });
    const recovered = await api.request('GET', '/health');
    expect(recovered.status).toBe(200);
  });
});
