/**
 * The webhook endpoints (docs/api.md#webhooks) over real HTTP, every response checked against the OpenAPI
 * document: create (with its secret, once), list (without), delete, the deliveries log and
 * redelivery; body validation, the SSRF refusals at creation, the limit of 10, and another user's
 * webhooks answered exactly as missing ones. The last test follows an event from an outbox batch to
 * a loopback receiver and back into the log, through the real `webhook-deliveries` queue.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { uuidv7 } from '../../src/lib/ids.js';
import type { OutboxBatch, WebhookEventBody } from '../../src/lib/notifications/outbox.js';
import { deliverAttempt } from '../../src/lib/notifications/webhooks/deliver.js';
import { fanOutEvent } from '../../src/lib/notifications/webhooks/fanOut.js';
import { decodeDeliveryMessage } from '../../src/lib/notifications/webhooks/model.js';
import { getServices } from '../../src/lib/services.js';
import { ISO_MS, UUID_V7, withSettings } from '../support/contract.js';
import { organizationIdOf } from '../support/organizations.js';
import { waitUntil as eventually } from '../support/patience.js';
import { startQueueRunner } from '../support/queueRunner.js';
import { expectProblem, startTestService, type ApiClient, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { startReceiver } from '../support/webhookReceiver.js';

let env: TestService;
let api: ApiClient;
let owner: TestUser;
let stranger: TestUser;

const ALL_EVENTS = [
  'envelope.sent',
  'envelope.completed',
  'envelope.declined',
  'envelope.voided',
  'envelope.expired',
  'envelope.purged',
  'recipient.opened',
  'recipient.signed',
  'recipient.approved',
  'recipient.viewed',
  'recipient.declined',
  'recipient.reassigned',
  'bulk.completed',
];
/** A public address (an IP literal: no DNS needed where the tests run). */
const PUBLIC_URL = 'https://93.184.215.14/hooks/envelopes';

let azurite: RunningAzurite;
const savedConnectionString = process.env.STORAGE_CONNECTION_STRING;

// An Azurite of its own, and no queue functions: the delivery test below runs the only consumer of
// its deliveries queue, so no other test process (with other webhook settings) attempts them.
beforeAll(async () => {
  azurite = await startAzurite();
  process.env.STORAGE_CONNECTION_STRING = azurite.connectionString;
  env = await startTestService({ triggers: false });
  api = env.api;
  [owner, stranger] = await Promise.all([env.newUser(), env.newUser()]);
});
afterAll(async () => {
  await env?.close();
  await azurite?.stop();
  process.env.STORAGE_CONNECTION_STRING = savedConnectionString;
});

async function create(json: unknown, user: TestUser = owner): Promise<ApiResponse<any>> {
  return await api.request('POST', '/webhooks', { token: user.token, json });
}

async function list(user: TestUser = owner): Promise<ApiResponse<any[]>> {
  return await api.request('GET', '/webhooks', { token: user.token });
}

async function clear(user: TestUser): Promise<void> {
  for (const webhook of (await list(user)).body) expect((await api.request('DELETE', `/webhooks/${webhook.id}`, { token: user.token })).status).toBe(204);
}

describe('POST /api/webhooks', () => {
  test('creates a webhook for every event when none are named, and shows its secret once', async () => {
    const response = await create({ url: PUBLIC_URL, description: 'CRM sync' });
    expect(response.status).toBe(201);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body).toEqual({
      id: expect.stringMatching(UUID_V7),
      url: PUBLIC_URL,
      events: ALL_EVENTS,
      description: 'CRM sync',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      createdAt: expect.stringMatching(ISO_MS),
    });
    expect(Buffer.from(response.body.secret.slice(6), 'base64')).toHaveLength(32);
    const listed = await list();
    const shown = listed.body.find((webhook) => webhook.id === response.body.id);
    const { secret: _secret, ...withoutSecret } = response.body;
    expect(shown).toEqual(withoutSecret);
    expect(listed.text).not.toContain(response.body.secret.slice(6));
    await clear(owner);
  });

  test('keeps the events named, in a fixed order, each once; description null when absent', async () => {
    const response = await create({ url: PUBLIC_URL, events: ['recipient.signed', 'envelope.completed', 'recipient.signed'] });
    expect(response.status).toBe(201);
    expect(response.body.events).toEqual(['envelope.completed', 'recipient.signed']);
    expect(response.body.description).toBeNull();
    expect(response.body.url).toBe(PUBLIC_URL);
    await clear(owner);
  });

  test.each([
    ['an unknown field', { url: PUBLIC_URL, secret: 'whsec_mine' }, 'secret'],
    ['a missing url', { events: ['envelope.sent'] }, 'url'],
    ['an unknown event type', { url: PUBLIC_URL, events: ['envelope.archived'] }, 'events.0'],
    ['no events', { url: PUBLIC_URL, events: [] }, 'events'],
    ['more events than exist', { url: PUBLIC_URL, events: [...ALL_EVENTS, 'envelope.sent'] }, 'events'],
    ['a url longer than 2048 characters', { url: `https://93.184.215.14/${'a'.repeat(2030)}` }, 'url'],
    ['a description longer than 500 characters', { url: PUBLIC_URL, description: 'd'.repeat(501) }, 'description'],
    ['a url that is not a string', { url: 42 }, 'url'],
  ])('refuses %s with 400 naming the field, creating nothing', async (_what, json, path) => {
    const response = await create(json);
    expectProblem(response, 400);
    expect(response.body.type).toBe('urn:problem:validation-failed');
    expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect((await list()).body).toEqual([]);
  });

  test('refuses malformed JSON and other media types', async () => {
    expectProblem(await api.request('POST', '/webhooks', { token: owner.token, body: '{"url":', headers: { 'Content-Type': 'application/json' } }), 400);
    expectProblem(await api.request('POST', '/webhooks', { token: owner.token, body: `url=${PUBLIC_URL}`, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } }), 415);
  });

  test.each([
    ['http:', 'http://93.184.215.14/hook', 'must be an https: URL'],
    ['a loopback address', 'https://127.0.0.1:8443/hook', '127.0.0.1 is a loopback address'],
    ['localhost', 'https://localhost/hook', 'the host localhost resolves to'],
    ['a private address', 'https://10.0.0.5/hook', '10.0.0.5 is a private (RFC 1918) address'],
    ['a link-local address', 'https://169.254.10.1/hook', 'a link-local address'],
    ['the metadata address', 'https://169.254.169.254/latest/meta-data/', 'the cloud instance metadata address'],
    ['a shared (CGNAT) address', 'https://100.64.0.1/hook', 'CGNAT'],
    ['an IPv6 unique-local address', 'https://[fd00::1]/hook', 'unique-local'],
    ['an IPv4-mapped loopback address', 'https://[::ffff:127.0.0.1]/hook', '127.0.0.1 is a loopback address'],
    ['a user name and password', 'https://user:pw@93.184.215.14/hook', 'must not contain a user name or password'],
    ['an unresolvable host', 'https://no-such-host.invalid/hook', 'the host no-such-host.invalid could not be resolved'],
    ['a relative URL', '/hooks', 'is not an absolute URL'],
  ])('refuses %s with 400 saying why', async (_what, url, reason) => {
    const response = await create({ url });
    expectProblem(response, 400);
    expect(response.body.type).toBe('urn:problem:invalid-webhook-url');
    expect(response.body.detail).toContain(reason);
    expect(response.body.errors).toEqual([{ path: 'url', message: expect.stringContaining(reason) }]);
    expect((await list()).body).toEqual([]);
  });

  test('with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, accepts http: and loopback', async () => {
    await withSettings({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, async () => {
      const response = await create({ url: 'http://127.0.0.1:9/hook' });
      expect(response.status).toBe(201);
      expect(response.body.url).toBe('http://127.0.0.1:9/hook');
      // Metadata addresses stay refused.
      expectProblem(await create({ url: 'http://169.254.169.254/' }), 400);
    });
    await clear(owner);
  });

  test('allows 10 webhooks per user; the 11th is 409 webhook-limit, also when created at once', async () => {
    const user = await env.newUser();
    const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => create({ url: `${PUBLIC_URL}/${index}` }, user)));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(10);
    const refused = responses.filter((response) => response.status !== 201);
    expect(refused).toHaveLength(2);
    for (const response of refused) {
      expectProblem(response, 409);
      expect(response.body.type).toBe('urn:problem:webhook-limit');
    }
    expect((await list(user)).body).toHaveLength(10);
    // Other users are not affected, and a deletion frees a place.
    expect((await create({ url: PUBLIC_URL }, stranger)).status).toBe(201);
    const [first] = (await list(user)).body;
    expect((await api.request('DELETE', `/webhooks/${first.id}`, { token: user.token })).status).toBe(204);
    expect((await create({ url: PUBLIC_URL }, user)).status).toBe(201);
    expectProblem(await create({ url: PUBLIC_URL }, user), 409);
    await clear(stranger);
  });
});

describe('GET /api/webhooks', () => {
  test('lists the caller\'s webhooks only, oldest first, without secrets', async () => {
    const first = await create({ url: `${PUBLIC_URL}/1` });
    const second = await create({ url: `${PUBLIC_URL}/2`, events: ['envelope.voided'] });
    await create({ url: `${PUBLIC_URL}/theirs` }, stranger);
    const response = await list();
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.body.map((webhook) => webhook.id)).toEqual([first.body.id, second.body.id]);
    for (const webhook of response.body) expect(Object.keys(webhook).sort()).toEqual(['createdAt', 'description', 'events', 'id', 'url']);
    await clear(owner);
    await clear(stranger);
  });
});

describe('DELETE /api/webhooks/{id} and the deliveries log', () => {
  test('deletes the caller\'s webhook (204, empty), then 404', async () => {
    const created = await create({ url: PUBLIC_URL });
    const response = await api.request('DELETE', `/webhooks/${created.body.id}`, { token: owner.token });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expectProblem(await api.request('DELETE', `/webhooks/${created.body.id}`, { token: owner.token }), 404);
    expectProblem(await api.request('GET', `/webhooks/${created.body.id}/deliveries`, { token: owner.token }), 404);
    expect((await list()).body).toEqual([]);
  });

  test('another user\'s webhook is 404 exactly as a missing one, and is left alone', async () => {
    const theirs = await create({ url: PUBLIC_URL }, stranger);
    const missing = uuidv7();
    for (const [method, path] of [
      ['DELETE', '/webhooks/{id}'],
      ['GET', '/webhooks/{id}/deliveries'],
      ['POST', `/webhooks/{id}/deliveries/${uuidv7()}/redeliver`],
    ] as const) {
      const foreign = await api.request(method, path.replace('{id}', theirs.body.id), { token: owner.token });
      const absent = await api.request(method, path.replace('{id}', missing), { token: owner.token });
      expectProblem(foreign, 404);
      expect(foreign.body).toEqual(absent.body);
      expect(foreign.body.type).toBe('urn:problem:webhook-not-found');
    }
    expectProblem(await api.request('DELETE', '/webhooks/not-a-uuid', { token: owner.token }), 404);
    expect((await list(stranger)).body.map((webhook) => webhook.id)).toEqual([theirs.body.id]);
    await clear(stranger);
  });

  test('a new webhook\'s log is empty; redelivering an attempt it does not have is 404 delivery-not-found', async () => {
    const created = await create({ url: PUBLIC_URL });
    const log = await api.request('GET', `/webhooks/${created.body.id}/deliveries`, { token: owner.token });
    expect(log.status).toBe(200);
    expect(log.body).toEqual([]);
    const redelivery = await api.request('POST', `/webhooks/${created.body.id}/deliveries/${uuidv7()}/redeliver`, { token: owner.token });
    expectProblem(redelivery, 404);
    expect(redelivery.body.type).toBe('urn:problem:delivery-not-found');
    await clear(owner);
  });
});

describe('an event, end to end', () => {
  test('reaches the receiver signed, shows in the log, and is redelivered with the same webhook-id', async () => {
    await withSettings({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SECONDS: '1' }, async () => {
      const receiver = await startReceiver({ kind: 'status', status: 503 });
      const services = getServices();
      const runner = startQueueRunner(services.storage.queues.webhookDeliveries, async (text) => await deliverAttempt(getServices(), decodeDeliveryMessage(text)));
      try {
        const created = await create({ url: receiver.url, events: ['envelope.completed'] });
        expect(created.status).toBe(201);
        const envelopeId = uuidv7();
        const event: WebhookEventBody = {
          id: randomUUID(),
          type: 'envelope.completed',
          createdAt: new Date().toISOString(),
          data: { envelopeId, status: 'completed', hash: 'a'.repeat(64) },
        };
        const batch: OutboxBatch = { id: uuidv7(), ownerId: owner.userId, envelopeId, createdAt: event.createdAt, messages: [{ kind: 'event', event }] };
        await services.storage.tables.envelopes.submitTransaction([await services.outbox.prepare(batch)]);
        await fanOutEvent(services, { ownerId: owner.userId, batchId: batch.id, index: 0 });

        const deliveries = async (count: number) =>
          await eventually(async () => {
            const response = await api.request('GET', `/webhooks/${created.body.id}/deliveries`, { token: owner.token });
            return response.body.length >= count ? (response.body as any[]) : undefined;
          }, 20_000, `${count} deliveries`);
        // 503, retried once after 1 s, 503 again: failed.
        const failed = await deliveries(2);
        expect(failed.map((attempt) => [attempt.attempt, attempt.outcome, attempt.responseStatus])).toEqual([
          [2, 'failed', 503],
          [1, 'retrying', 503],
        ]);
        expect(failed[1].nextAttemptAt).toMatch(ISO_MS);
        expect(failed[0]).toMatchObject({ eventId: event.id, eventType: 'envelope.completed', error: 'the receiver answered HTTP 503', nextAttemptAt: null });

        receiver.mode = { kind: 'status', status: 200 };
        const redelivery = await api.request('POST', `/webhooks/${created.body.id}/deliveries/${failed[1].id}/redeliver`, { token: owner.token });
        expect(redelivery.status).toBe(202);
        expect(redelivery.text).toBe('');
        expect(redelivery.headers.get('location')).toBe(`/api/webhooks/${created.body.id}/deliveries`);
        const log = await deliveries(3);
        expect(log[0]).toMatchObject({ eventId: event.id, attempt: 3, outcome: 'succeeded', responseStatus: 200, error: null, nextAttemptAt: null });

        expect(receiver.requests).toHaveLength(3);
        const webhook = new StandardWebhook(created.body.secret);
        // Queued without its organisation (as before organisations): the fan-out names the owner's.
        const delivered = { ...event, organizationId: await organizationIdOf(owner) };
        for (const request of receiver.requests) {
          expect(request.headers['webhook-id']).toBe(event.id);
          expect(webhook.verify(request.body, request.headers as Record<string, string>)).toEqual(delivered);
        }
        expect(runner.failures).toEqual([]);
      } finally {
        await runner.stop();
        await receiver.close();
        await clear(owner);
      }
    });
  });
});
