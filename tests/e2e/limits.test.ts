/**
 * Rate limits and quotas (docs/api.md#rate-limits-and-quotas), over real HTTP against the suite's Azurite: the request
 * limits per owner and per client address with their RateLimit headers, `TRUST_PROXY` and the audit
 * trail's `ip`, the password-hashing bound, the resend cooldown and cap, and the daily e-mail quota,
 * exact across two service instances (the second in a process of its own) sharing one storage.
 *
 * Each `describe` starts a service of its own with the settings it tests, one after the other (the
 * settings are the process's environment).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { queuedToday } from '../../src/lib/envelopes/dailyQuota.js';
import { getServices } from '../../src/lib/services.js';
import { ApiClient, corpusPdf, createEnvelopeWithDocument, expectType, serviceWithSettings, type ApiResponse, type TestUser } from '../support/service.js';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { auditTrail, emailsDispatched, outboxBatches, rewriteStoredEnvelope, sentEnvelope, storedEnvelope, storedRecipient } from '../support/signing.js';
import { organizationIdOf } from '../support/organizations.js';
import { patience } from '../support/patience.js';


/** The `r` and `t` of a `RateLimit` header, after checking its form. */
function rateLimit(response: ApiResponse): { remaining: number; reset: number } {
  const value = response.headers.get('ratelimit') ?? '';
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(value);
  if (match === null) throw new Error(`RateLimit header ${JSON.stringify(value)} on ${response.status}`);
  return { remaining: Number(match[1]), reset: Number(match[2]) };
}

const login = (api: ApiClient, email: string, headers: Record<string, string> = {}) =>
  api.request('POST', '/Login', { json: { email, password: 'not the password' }, headers });

describe('owner endpoints: RATE_LIMIT_PER_MINUTE requests per owner (docs/api.md#rate-limits-and-quotas)', () => {
  const { env } = serviceWithSettings({ RATE_LIMIT_PER_MINUTE: '5' });
  let owner: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    [owner, other] = await Promise.all([env().newUser(), env().newUser()]);
  });

  test('every answer carries RateLimit-Policy and RateLimit; past the limit 429 rate-limited with Retry-After, and nothing runs', async () => {
    const { api } = env();
    for (let count = 1; count <= 5; count++) {
      const answer = await api.request('GET', '/envelopes', { token: owner.token });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
      const { remaining, reset } = rateLimit(answer);
      expect(remaining).toBe(5 - count);
      expect(reset).toBeGreaterThanOrEqual(1);
      expect(reset).toBeLessThanOrEqual(60);
    }

    const refused = await api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'refused.pdf', mimetype: 'application/pdf' } });
    expectType(refused, 429, 'rate-limited');
    expect(refused.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
    expect(rateLimit(refused).remaining).toBe(0);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(retryAfter).toBe(Math.max(1, rateLimit(refused).reset));
    // The refused request created nothing.
    expect((await getServices().envelopes.list(owner.userId, { limit: 10 })).records).toEqual([]);
    // Refused requests are counted too, and every endpoint of the owner shares the budget.
    expectType(await api.request('GET', `/envelopes/${randomUUID()}`, { token: owner.token }), 429, 'rate-limited');
  });

  test('per owner: another owner has a budget of its own, and its error answers carry the headers too', async () => {
    const answer = await env().api.request('GET', `/envelopes/${randomUUID()}`, { token: other.token });
    expectType(answer, 404, 'envelope-not-found');
    expect(answer.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
    expect(rateLimit(answer).remaining).toBe(4);
  });

  test('a request without a valid credential names no owner: 401 without the headers, and no owner\'s budget used', async () => {
    const answer = await env().api.request('GET', '/envelopes', { token: 'not.a.token' });
    expectType(answer, 401, 'invalid-token');
    expect(answer.headers.get('ratelimit')).toBeNull();
    expect(rateLimit(await env().api.request('GET', '/envelopes', { token: other.token })).remaining).toBe(3);
  });
});

describe('Register and Login: AUTH_RATE_LIMIT_PER_MINUTE per client address, without trusted proxies', () => {
  const { env } = serviceWithSettings({ AUTH_RATE_LIMIT_PER_MINUTE: '4', TRUST_PROXY: '0' });

  test('the address is the socket\'s: X-Forwarded-For written by the client changes nothing, for the limit and for the audit trail', async () => {
    const { api } = env();
    const owner = await env().newUser(); // Register and Login: 2 of the address's 4
    const first = await login(api, `nobody-${randomUUID()}@example.com`, { 'X-Forwarded-For': '198.51.100.1' });
    expectType(first, 401, 'invalid-credentials');
    expect(first.headers.get('ratelimit-policy')).toBe('"default";q=4;w=60');
    expect(rateLimit(first).remaining).toBe(1);
    expect(rateLimit(await login(api, `nobody-${randomUUID()}@example.com`, { 'X-Forwarded-For': '198.51.100.2' })).remaining).toBe(0);

    const refused = await login(api, owner.email, { 'X-Forwarded-For': '198.51.100.3' });
    expectType(refused, 429, 'rate-limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const register = await api.request('POST', '/Register', { json: { email: `new-${randomUUID()}@example.com`, password: 'long enough password', invitationCode: 'inv_unknown' } });
    expectType(register, 429, 'rate-limited');

    const ticket = await api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'a.pdf', mimetype: 'application/pdf' }, headers: { 'X-Forwarded-For': '198.51.100.7' } });
    expect(ticket.status).toBe(201);
    expect((await auditTrail(api, owner, ticket.body.envelopeId))[0].ip).toBe('127.0.0.1');
  });
});

describe('TRUST_PROXY=1: the client is the entry the proxy appended to X-Forwarded-For', () => {
  const { env } = serviceWithSettings({ AUTH_RATE_LIMIT_PER_MINUTE: '2', TRUST_PROXY: '1' });

  test('counted per client address; an address the client writes further left changes nothing', async () => {
    const { api } = env();
    const from = (address: string) => ({ 'X-Forwarded-For': address });
    expect(rateLimit(await login(api, `a-${randomUUID()}@example.com`, from('203.0.113.10'))).remaining).toBe(1);
    expect(rateLimit(await login(api, `a-${randomUUID()}@example.com`, from('203.0.113.10'))).remaining).toBe(0);
    expectType(await login(api, `a-${randomUUID()}@example.com`, from('203.0.113.10')), 429, 'rate-limited');
    expectType(await login(api, `a-${randomUUID()}@example.com`, from('6.6.6.6, 203.0.113.10')), 429, 'rate-limited');

    const elsewhere = await login(api, `b-${randomUUID()}@example.com`, from('6.6.6.6, 203.0.113.11'));
    expectType(elsewhere, 401, 'invalid-credentials');
    expect(rateLimit(elsewhere).remaining).toBe(1);
  });

  test('the audit trail\'s ip follows the same rule', async () => {
    const { api } = env();
    const owner = await env().newUser(); // no X-Forwarded-For of its own: the socket's address, the only entry
    const create = (forwardedFor: string) => api.request('POST', '/GetUploadUrl', { token: owner.token, json: { filename: 'a.pdf', mimetype: 'application/pdf' }, headers: { 'X-Forwarded-For': forwardedFor } });
    const direct = await create('198.51.100.7');
    const spoofed = await create('6.6.6.6, 198.51.100.8:50123');
    expect((await auditTrail(api, owner, direct.body.envelopeId))[0].ip).toBe('198.51.100.7');
    expect((await auditTrail(api, owner, spoofed.body.envelopeId))[0].ip).toBe('198.51.100.8');
  });
});

describe('password hashing bounded: MAX_CONCURRENT_PASSWORD_HASHES running, 4 times as many waiting', () => {
  // Cost 14 takes about a second a hash here: the registrations sent together meet in the queue.
  const { env } = serviceWithSettings({ MAX_CONCURRENT_PASSWORD_HASHES: '1', BCRYPT_COST: '14' });

  test('beyond the queue: 503 password-hashing-busy with Retry-After 1 at once, and nothing changed', async () => {
    const { api } = env();
    const attempts = await Promise.all(
      Array.from({ length: 8 }, async () => ({ email: `hash-${randomUUID()}@example.com`, invitationCode: await env().invitation() })),
    );
    const order: number[] = [];
    const answers = await Promise.all(
      attempts.map(async (attempt) => {
        const answer = await api.request('POST', '/Register', { json: { ...attempt, password: 'long enough password' } });
        order.push(answer.status);
        return answer;
      }),
    );
    const refused = answers.filter((answer) => answer.status === 503);
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length + refused.length).toBe(8);
    // 1 hashing and 4 waiting at most: at least 3 of the 8 are refused.
    expect(created.length).toBeLessThanOrEqual(5);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    for (const answer of refused) {
      expectType(answer, 503, 'password-hashing-busy');
      expect(answer.headers.get('retry-after')).toBe('1');
    }
    // At once: every refusal came back before the first account was created.
    expect(order.slice(0, refused.length)).toEqual(refused.map(() => 503));

    // A refused registration used up nothing: its code and its address still work.
    const again = attempts[answers.indexOf(refused[0]!)]!;
    expect((await api.request('POST', '/Register', { json: { ...again, password: 'long enough password' } })).status).toBe(201);
  }, patience(240_000)); // cost-14 hashes one at a time: about a second each on a quiet machine
});

describe('resend: 60 s between resends to a recipient, at most 5 (docs/api.md#rate-limits-and-quotas)', () => {
  const { env } = serviceWithSettings({});
  let owner: TestUser;
  beforeAll(async () => {
    owner = await env().newUser();
  });

  const resend = (id: string, recipientId: string) => env().api.request('POST', `/envelopes/${id}/recipients/${recipientId}/resend`, { token: owner.token });

  /** What a refused resend must leave as it was. */
  async function state(id: string, recipientId: string): Promise<unknown> {
    return { recipient: await storedRecipient(owner.userId, id, recipientId), events: (await auditTrail(env().api, owner, id)).length, batches: (await outboxBatches(owner.userId, id)).length };
  }

  /** {@link state} once the envelope's e-mails have left the outbox ({@link emailsDispatched}). */
  async function settledState(id: string, recipientId: string): Promise<unknown> {
    await emailsDispatched(owner.userId, id);
    return await state(id, recipientId);
  }

  /**
   * Moves the recorded time of the previous resend 61 s back, as if that much time had passed (the
   * record as any instance reads it, rewritten under its ETag).
   */
  async function letCooldownPass(id: string, recipientId: string): Promise<void> {
    await rewriteStoredEnvelope(owner.userId, id, (record) => {
      const signer = record.signers.find((candidate) => candidate.id === recipientId)!;
      signer.lastResendAt = new Date(Date.parse(signer.lastResendAt!) - 61_000).toISOString();
    });
  }

  test('the first resend is never held back; the next within 60 s gets 429 resend-too-soon with Retry-After; the 6th gets 429 resend-limit; refusals change nothing', async () => {
    const { id, recipientIds } = await sentEnvelope(env().api, owner, { signers: [{ email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' }] });
    const recipientId = recipientIds[0]!;
    expect((await resend(id, recipientId)).status).toBe(202);

    const before = await settledState(id, recipientId);
    const tooSoon = await resend(id, recipientId);
    expectType(tooSoon, 429, 'resend-too-soon');
    const wait = Number(tooSoon.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await state(id, recipientId)).toEqual(before);

    for (let count = 2; count <= 5; count++) {
      await letCooldownPass(id, recipientId);
      expect((await resend(id, recipientId)).status).toBe(202);
    }
    expect((await storedRecipient(owner.userId, id, recipientId)).resends).toBe(5);
    expect((await auditTrail(env().api, owner, id)).filter((event) => event.type === 'recipient.invited' && event.details.resend)).toHaveLength(5);

    await letCooldownPass(id, recipientId);
    const after = await settledState(id, recipientId);
    const sixth = await resend(id, recipientId);
    expectType(sixth, 429, 'resend-limit');
    expect(await state(id, recipientId)).toEqual(after);
  }, patience(60_000));
});

describe('EMAIL_DAILY_QUOTA: exact across two instances sharing one storage (docs/api.md#rate-limits-and-quotas)', () => {
  const settings = { EMAIL_DAILY_QUOTA: '5' };
  const { env } = serviceWithSettings(settings);
  let second: ServiceProcess;
  let owner: TestUser;
  beforeAll(async () => {
    second = await startServiceProcess(settings);
    owner = await env().newUser();
  }, patience(60_000));
  afterAll(async () => {
    await second?.close();
  });

  /** A draft with its document and `count` signers, ready to send. */
  async function draft(count: number): Promise<string> {
    const id = await createEnvelopeWithDocument(env().api, owner, await corpusPdf('normal.pdf'));
    const signers = Array.from({ length: count }, (_, index) => ({ email: `r${index}-${randomUUID()}@example.com`, name: `Recipient ${index}`, role: 'signer' }));
    const answer = await env().api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers } });
    if (answer.status !== 200) throw new Error(`signers: ${answer.status} ${answer.text}`);
    return id;
  }

  test('concurrent sends on both instances queue at most the quota; a send or resend past it gets 429 email-quota and changes nothing', async () => {
    const apis = [env().api, new ApiClient(second.apiUrl)];
    const drafts = await Promise.all(Array.from({ length: 8 }, () => draft(2)));
    // 8 sends of 2 invitations each, 4 on each instance, at once: 5 e-mails allow 2 of them.
    const answers = await Promise.all(drafts.map((id, index) => apis[index % 2]!.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(6);
    for (const answer of refused) {
      expectType(answer, 429, 'email-quota');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(answer.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    }
    expect(await queuedToday(getServices().storage.tables.envelopes, 'email', await organizationIdOf(owner))).toBe(4);
    for (const [index, id] of drafts.entries()) {
      if (answers[index]!.status === 200) continue;
      expect((await storedEnvelope(owner.userId, id)).status).toBe('draft');
      expect((await auditTrail(env().api, owner, id)).map((event) => event.type)).not.toContain('envelope.sent');
      expect(await outboxBatches(owner.userId, id)).toEqual([]);
    }

    // One e-mail left: a send of one invitation takes it, on the other instance.
    const last = await draft(1);
    expect((await apis[1]!.request('PUT', `/envelopes/${last}`, { token: owner.token, json: { status: 'sent' } })).status).toBe(200);
    expect(await queuedToday(getServices().storage.tables.envelopes, 'email', await organizationIdOf(owner))).toBe(5);

    const recipientId = (await storedEnvelope(owner.userId, last)).signers[0]!.id;
    await emailsDispatched(owner.userId, last);
    const before = { recipient: await storedRecipient(owner.userId, last, recipientId), batches: (await outboxBatches(owner.userId, last)).length };
    expectType(await apis[0]!.request('POST', `/envelopes/${last}/recipients/${recipientId}/resend`, { token: owner.token }), 429, 'email-quota');
    expect({ recipient: await storedRecipient(owner.userId, last, recipientId), batches: (await outboxBatches(owner.userId, last)).length }).toEqual(before);
    expect(await queuedToday(getServices().storage.tables.envelopes, 'email', await organizationIdOf(owner))).toBe(5);

    // With nothing left, a send is refused before its document is even read: no frozen copy.
    const late = await draft(1);
    expectType(await apis[0]!.request('PUT', `/envelopes/${late}`, { token: owner.token, json: { status: 'sent' } }), 429, 'email-quota');
    const stored = await storedEnvelope(owner.userId, late);
    expect(stored.status).toBe('draft');
    expect(await getServices().storage.containers.originals.getBlockBlobClient(stored.blobName).exists()).toBe(false);
  }, patience(240_000)); // two service processes of its own
});
