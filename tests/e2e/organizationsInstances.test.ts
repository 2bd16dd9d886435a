/**
 * A role change takes effect within a minute on every instance
 * ([docs/api.md#roles](../../docs/api.md#roles)): each instance remembers an account's organisation and
 * role for 30 s, so another instance, which has just served the member with its old role, refuses it
 * with its new role within that time, and the instance that made the change at once. Two instances
 * of the service over one Azurite: this process's, and one in a process of its own (nothing shared in
 * memory).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { MEMBERSHIP_CACHE_MS } from '../../src/lib/storage/organizationRepository.js';
import { joinedMember } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { expectType, startTestService, type TestService, type TestUser } from '../support/service.js';
import type { ApiClient } from '../support/service.js';

let env: TestService;
let other: ServiceProcess;
let owner: TestUser;

beforeAll(async () => {
  env = await startTestService();
  other = await startServiceProcess();
  owner = await env.newUser();
}, patience(90_000));
afterAll(async () => {
  await other?.close();
  await env?.close();
});

const upload = (api: ApiClient, user: TestUser) => api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename: 'a.pdf', mimetype: 'application/pdf' } });

/** Asks `probe` every second until it is true; the milliseconds it took. @throws Error after 90 s */
async function timeUntil(probe: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await probe())) {
    if (Date.now() - started > 90_000) throw new Error('not seen within 90 s');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return Date.now() - started;
}

describe('a role change', () => {
  test('is refused at once by the instance that made it, and within 60 s by another that had just served the old role', async () => {
    expect(MEMBERSHIP_CACHE_MS).toBeLessThanOrEqual(60_000);
    const member = await joinedMember(env.api, owner, 'sender');
    // The other instance serves the sender (and remembers its role).
    expect((await upload(other.api, member)).status).toBe(201);
    expect((await env.api.request('PATCH', `/organization/members/${member.userId}`, { token: owner.token, json: { role: 'viewer' } })).status).toBe(200);
    expectType(await upload(env.api, member), 403, 'forbidden-role');
    const took = await timeUntil(async () => (await upload(other.api, member)).status === 403);
    expect(took).toBeLessThanOrEqual(60_000);
    expectType(await upload(other.api, member), 403, 'forbidden-role');
    // Reads go on everywhere.
    expect((await other.api.request('GET', '/organization', { token: member.token })).body.role).toBe('viewer');
  }, patience(120_000));

  test('handing the organization over is seen by the other instance within 60 s', async () => {
    const admin = await joinedMember(env.api, owner, 'admin');
    expect((await other.api.request('GET', '/organization', { token: owner.token })).body.role).toBe('owner');
    expect((await env.api.request('POST', '/organization/transfer', { token: owner.token, json: { userId: admin.userId } })).status).toBe(200);
    const took = await timeUntil(async () => (await other.api.request('GET', '/organization', { token: owner.token })).body.role === 'admin');
    expect(took).toBeLessThanOrEqual(60_000);
    expect((await other.api.request('GET', '/organization', { token: admin.token })).body.role).toBe('owner');
    expectType(await other.api.request('POST', '/organization/transfer', { token: owner.token, json: { userId: admin.userId } }), 403, 'forbidden-role');
  }, patience(120_000));
});
