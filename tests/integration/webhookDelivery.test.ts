/**
 * Webhook events and deliveries (docs/api.md#webhooks) against real Azurite and real loopback receivers:
 * fan-out from an outbox batch, one queue message per attempt, Standard Webhooks signatures verified
 * with the `standardwebhooks` library, retries on a fast schedule, every kind of failing receiver,
 * redelivery with the same `webhook-id`, idempotency of fan-out and of attempts, and the log.
 *
 * Loopback receivers are private addresses, so this file runs with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
 * (the SSRF rules themselves are tested in webhookTargets.test.ts). Each test file has its own
 * deliveries queue, so parallel test files never take each other's messages.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { QueueClient } from '@azure/storage-queue';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { uuidv7 } from '../../src/lib/ids.js';
import { WEBHOOK_EVENT_TYPES, type OutboxBatch, type WebhookEventBody, type WebhookEventType } from '../../src/lib/notifications/outbox.js';
import type { OutboxPointer } from '../../src/lib/notifications/outboxRepository.js';
import { createWebhook } from '../../src/lib/notifications/webhooks/create.js';
import { organizationPartition } from '../../src/lib/notifications/webhooks/organizationWebhooks.js';
import { deliverAttempt, MAX_QUEUE_DELAY_SECONDS, type DeliverOptions } from '../../src/lib/notifications/webhooks/deliver.js';
import { decodeEventPointer, fanOutEvent } from '../../src/lib/notifications/webhooks/fanOut.js';
import { listDeliveries } from '../../src/lib/notifications/webhooks/list.js';
import { decodeDeliveryMessage, DELIVERY_LOG_SIZE, type DeliveryAttemptView, type DeliveryMessage } from '../../src/lib/notifications/webhooks/model.js';
import { redeliver } from '../../src/lib/notifications/webhooks/redeliver.js';
import { deleteWebhook } from '../../src/lib/notifications/webhooks/remove.js';
import { dnsServerResolver } from '../../src/lib/outbound/target.js';
import { encodePointer } from '../../src/lib/notifications/outboxRepository.js';
import { getServices, type Services } from '../../src/lib/services.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';
import { reloadSettings } from '../support/contract.js';
import { startFakeDns, type FakeDns } from '../support/dnsServer.js';
import { waitUntil } from '../support/patience.js';
import { startQueueRunner, type QueueRunner } from '../support/queueRunner.js';
import { issueTestCertificates, startReceiver, type Receiver, type ReceivedRequest } from '../support/webhookReceiver.js';

process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
// Fast retries: two, after 1 s each.
process.env.WEBHOOK_RETRY_SECONDS = '1,1';

let services: Services;
let queue: QueueClient;
const receivers: Receiver[] = [];
let runner: QueueRunner | undefined;

beforeAll(async () => {
  reloadSettings();
  const base = getServices();
  await ensureStorage(base.storage, { allowedOrigins: ['*'] });
  queue = base.storage.queueService.getQueueClient(`webhook-deliveries-${randomBytes(6).toString('hex')}`);
  await queue.create();
  services = { ...base, storage: { ...base.storage, queues: { ...base.storage.queues, webhookDeliveries: queue } } };
});

afterEach(async () => {
  if (runner !== undefined) {
    await runner.stop();
    expect(runner.failures).toEqual([]);
    runner = undefined;
  }
  await queue.clearMessages();
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

afterAll(async () => {
  await queue.delete();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

/** Processes the deliveries queue as the queue trigger will, with these options. */
function runDeliveries(options: DeliverOptions = {}, using: Services = services): QueueRunner {
  runner = startQueueRunner(queue, async (text) => await deliverAttempt(using, decodeDeliveryMessage(text), options));
  return runner;
}

/** The services with other retry delays (WEBHOOK_RETRY_SECONDS), seconds. */
function withRetries(delays: number[]): Services {
  return { ...services, config: { ...services.config, webhookRetrySeconds: delays } };
}

/**
 * A new organisation's partition of table `webhooks` (`org_<organizationId>`): what the webhook
 * functions take as `ownerId`, and here also the outbox partition its events are written in.
 */
function newOrganization(): string {
  return organizationPartition(uuidv7());
}

/**
 * Writes an outbox batch with one event of the organisation whose webhook partition is `ownerId`, as a
 * change does, and returns the event and its queue pointer.
 */
async function emitEvent(ownerId: string, type: WebhookEventType = 'recipient.signed'): Promise<{ event: WebhookEventBody; pointer: OutboxPointer }> {
  const envelopeId = uuidv7();
  const event: WebhookEventBody = {
    id: randomUUID(),
    type,
    createdAt: new Date().toISOString(),
    organizationId: ownerId.slice('org_'.length),
    data: {
      envelopeId,
      status: 'sent',
      recipient: { id: randomUUID(), email: 'bob@example.com', name: 'Bob «Builder» 🖊', role: 'signer', status: 'signed' },
    },
  };
  const batch: OutboxBatch = { id: uuidv7(), ownerId, envelopeId, createdAt: new Date().toISOString(), messages: [{ kind: 'event', event }] };
  await services.storage.tables.envelopes.submitTransaction([await services.outbox.prepare(batch)]);
  return { event, pointer: { ownerId, batchId: batch.id, index: 0 } };
}

async function hook(ownerId: string, url: string, events?: WebhookEventType[]) {
  return await createWebhook({ services, ownerId, request: { url, ...(events === undefined ? {} : { events }) } });
}

/** The log once it holds `count` attempts (newest first). */
async function logOf(ownerId: string, webhookId: string, count: number): Promise<DeliveryAttemptView[]> {
  return await waitUntil(async () => {
    const log = await listDeliveries({ services, ownerId, webhookId });
    return log.length >= count ? log : undefined;
  }, 20_000, `${count} attempts in the log of ${webhookId}`);
}

/** Verifies a received request as a receiver would, with the `standardwebhooks` library. */
function verify(secret: string, request: ReceivedRequest): unknown {
  return new StandardWebhook(secret).verify(request.body, request.headers as Record<string, string>);
}

function expectIsoMs(value: string | null): void {
  expect(value).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
}

describe('a delivery', () => {
  test('POSTs the stored event body as JSON, signed so that standardwebhooks verifies it, and logs the success', async () => {
    const owner = newOrganization();
    const target = await receiver({ kind: 'status', status: 204 });
    const created = await hook(owner, target.url);
    const { event, pointer } = await emitEvent(owner);
    // The pointer as the outbox queues it (base64 JSON) decodes to what fanOutEvent takes.
    expect(decodeEventPointer(encodePointer(pointer))).toEqual(pointer);
    expect(await fanOutEvent(services, pointer)).toEqual({ kind: 'fanned-out', eventId: event.id, webhookIds: [created.id] });
    runDeliveries();

    const [request] = await target.waitForRequests(1);
    expect(request!.method).toBe('POST');
    expect(request!.path).toBe('/hook');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.body).toBe(JSON.stringify(event));
    expect(request!.headers['webhook-id']).toBe(event.id);
    expect(Math.abs(Number(request!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(created.secret, request!)).toEqual(event);
    // The check can fail: another secret, or a changed body, is refused by the library.
    expect(() => verify(`whsec_${randomBytes(32).toString('base64')}`, request!)).toThrow('No matching signature found');
    expect(() => verify(created.secret, { ...request!, body: request!.body.replace('Bob', 'Eve') })).toThrow('No matching signature found');

    const [attempt] = await logOf(owner, created.id, 1);
    expect(attempt).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/),
      eventId: event.id,
      eventType: 'recipient.signed',
      attempt: 1,
      at: expect.any(String),
      outcome: 'succeeded',
      responseStatus: 204,
      error: null,
      nextAttemptAt: null,
    });
    expectIsoMs(attempt!.at);
    expect(await services.outbox.read(owner, pointer.batchId)).toMatchObject({ states: ['sent'] });
  });

  test('goes to every webhook of the owner subscribed to the type, and to no one else', async () => {
    const owner = newOrganization();
    const stranger = newOrganization();
    const [all, signedOnly, completedOnly, strangers] = await Promise.all([0, 1, 2, 3].map(() => receiver({ kind: 'status', status: 200 })));
    const hooks = [
      await hook(owner, all!.url),
      await hook(owner, signedOnly!.url, ['recipient.signed', 'envelope.completed']),
      await hook(owner, completedOnly!.url, ['envelope.completed']),
      await hook(stranger, strangers!.url),
    ];
    expect(hooks[0]!.events).toEqual([...WEBHOOK_EVENT_TYPES]);
    const { event, pointer } = await emitEvent(owner, 'recipient.signed');
    const result = await fanOutEvent(services, pointer);
    expect(result).toEqual({ kind: 'fanned-out', eventId: event.id, webhookIds: [hooks[0]!.id, hooks[1]!.id] });
    runDeliveries();
    await all!.waitForRequests(1);
    await signedOnly!.waitForRequests(1);
    expect(verify(hooks[0]!.secret, all!.requests[0]!)).toEqual(event);
    expect(verify(hooks[1]!.secret, signedOnly!.requests[0]!)).toEqual(event);
    // Each webhook signs with its own secret.
    expect(() => verify(hooks[1]!.secret, all!.requests[0]!)).toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(completedOnly!.requests).toHaveLength(0);
    expect(strangers!.requests).toHaveLength(0);
  });

  test('over HTTPS to a host name: TLS is verified against the name, and the connection goes to the checked address', async () => {
    const dns: FakeDns = await startFakeDns();
    try {
      const certificates = await issueTestCertificates('hooks.test');
      dns.records.set('hooks.test', { A: ['127.0.0.1'] });
      const target = await receiver({ kind: 'status', status: 202 }, { hostname: 'hooks.test', tls: { key: certificates.key, cert: certificates.cert } });
      const owner = newOrganization();
      const resolve = dnsServerResolver([dns.server]);
      const created = await createWebhook({ services, ownerId: owner, request: { url: target.url }, resolve });
      expect(created.url).toBe(`https://hooks.test:${target.port}/hook`);
      const { event, pointer } = await emitEvent(owner);
      await fanOutEvent(services, pointer);
      dns.queries.length = 0;
      runDeliveries({ resolve, ca: certificates.ca });
      const [request] = await target.waitForRequests(1);
      expect(verify(created.secret, request!)).toEqual(event);
      expect((await logOf(owner, created.id, 1))[0]).toMatchObject({ outcome: 'succeeded', responseStatus: 202 });
      // One resolution per attempt (A and AAAA), the one that was checked: the HTTP client looked nothing up itself.
      expect(dns.queries.sort()).toEqual(['hooks.test A', 'hooks.test AAAA']);
    } finally {
      await dns.close();
    }
  });

  test('over HTTPS with a certificate the service does not trust fails, saying so', async () => {
    const dns = await startFakeDns();
    try {
      const certificates = await issueTestCertificates('hooks.test');
      dns.records.set('hooks.test', { A: ['127.0.0.1'] });
      const target = await receiver({ kind: 'status', status: 200 }, { hostname: 'hooks.test', tls: { key: certificates.key, cert: certificates.cert } });
      const owner = newOrganization();
      const resolve = dnsServerResolver([dns.server]);
      const created = await createWebhook({ services, ownerId: owner, request: { url: target.url }, resolve });
      const { pointer } = await emitEvent(owner);
      await fanOutEvent(services, pointer);
      runDeliveries({ resolve, timeoutMs: 5000 }, withRetries([]));
      const [attempt] = await logOf(owner, created.id, 1);
      expect(attempt).toMatchObject({ attempt: 1, outcome: 'failed', responseStatus: null, nextAttemptAt: null });
      expect(attempt!.error).toMatch(/^TLS failed: .*\((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\)$/);
      expect(target.requests).toHaveLength(0);
    } finally {
      await dns.close();
    }
  });
});

describe('failures and retries', () => {
  /** Emits one event to a new webhook at `target` and runs deliveries until `count` attempts are logged. */
  async function attemptsAt(target: Receiver, count: number, options: DeliverOptions = {}) {
    const owner = newOrganization();
    const created = await hook(owner, target.url);
    const { event, pointer } = await emitEvent(owner);
    await fanOutEvent(services, pointer);
    runDeliveries(options);
    const log = await logOf(owner, created.id, count);
    return { owner, created, event, log };
  }

  test('a receiver answering 500 is retried after each delay of WEBHOOK_RETRY_SECONDS, then the delivery is failed', async () => {
    const target = await receiver({ kind: 'status', status: 500 });
    const { created, event, log } = await attemptsAt(target, 3);
    // Newest first: the last attempt failed, the earlier ones were retrying.
    expect(log.map(({ attempt, outcome, responseStatus, error }) => ({ attempt, outcome, responseStatus, error }))).toEqual([
      { attempt: 3, outcome: 'failed', responseStatus: 500, error: 'the receiver answered HTTP 500' },
      { attempt: 2, outcome: 'retrying', responseStatus: 500, error: 'the receiver answered HTTP 500' },
      { attempt: 1, outcome: 'retrying', responseStatus: 500, error: 'the receiver answered HTTP 500' },
    ]);
    for (const entry of log) expect(entry.eventId).toBe(event.id);
    expect(log[0]!.nextAttemptAt).toBeNull();
    for (const retrying of log.slice(1)) {
      const delay = Date.parse(retrying.nextAttemptAt!) - Date.parse(retrying.at);
      expect(delay).toBeGreaterThanOrEqual(1000);
      expect(delay).toBeLessThan(3000);
    }
    // The receiver saw three requests, each at least the delay after the previous, all the same event, each validly signed.
    expect(target.requests).toHaveLength(3);
    for (const request of target.requests) {
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(verify(created.secret, request)).toEqual(event);
    }
    expect(target.requests[1]!.at - target.requests[0]!.at).toBeGreaterThanOrEqual(900);
    expect(target.requests[2]!.at - target.requests[1]!.at).toBeGreaterThanOrEqual(900);
    // And nothing after the last.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(target.requests).toHaveLength(3);
  });

  test('a redirect is a failure and is not followed', async () => {
    const elsewhere = await receiver({ kind: 'status', status: 200 });
    const target = await receiver({ kind: 'redirect', location: elsewhere.url, status: 307 });
    const { log } = await attemptsAt(target, 3);
    expect(log[2]).toMatchObject({ attempt: 1, outcome: 'retrying', responseStatus: 307, error: `the receiver answered HTTP 307, a redirect to ${elsewhere.url}, which is not followed` });
    expect(log[0]).toMatchObject({ outcome: 'failed', responseStatus: 307 });
    expect(elsewhere.requests).toHaveLength(0);
  });

  test('a connection reset is a failure, logged as such', async () => {
    const target = await receiver({ kind: 'reset' });
    const { log } = await attemptsAt(target, 1);
    expect(log[0]).toMatchObject({ attempt: 1, outcome: 'retrying', responseStatus: null, error: 'the connection was reset before an answer came (ECONNRESET)' });
    expect(target.requests.length).toBeGreaterThanOrEqual(1);
  });

  test('a receiver that never answers times out (a short timeout here, 10 s in production)', async () => {
    const target = await receiver({ kind: 'hang' });
    const { log } = await attemptsAt(target, 1, { timeoutMs: 500 });
    expect(log[0]).toMatchObject({ outcome: 'retrying', responseStatus: null, error: 'no answer within 0.5 s (timed out)' });
    const [request] = target.requests;
    expect(Date.parse(log[0]!.nextAttemptAt!) - request!.at).toBeGreaterThanOrEqual(1400);
  });

  test('a slow receiver that answers within the timeout succeeds', async () => {
    const target = await receiver({ kind: 'slow', delayMs: 400, status: 200 });
    const { log } = await attemptsAt(target, 1, { timeoutMs: 3000 });
    expect(log[0]).toMatchObject({ outcome: 'succeeded', responseStatus: 200, error: null });
  });

  test('a port where nothing listens: connection refused', async () => {
    const target = await receiver({ kind: 'status', status: 200 });
    await target.close();
    const { log } = await attemptsAt(target, 1);
    expect(log[0]).toMatchObject({ outcome: 'retrying', responseStatus: null, error: 'the connection was refused (ECONNREFUSED)' });
  });

  test('a slow receiver holds back no other webhook', async () => {
    const slow = await receiver({ kind: 'hang' });
    const fast = await receiver({ kind: 'status', status: 200 });
    const owner = newOrganization();
    await hook(owner, slow.url);
    const fastHook = await hook(owner, fast.url);
    const { pointer } = await emitEvent(owner);
    await fanOutEvent(services, pointer);
    runDeliveries({ timeoutMs: 4000 });
    await slow.waitForRequests(1);
    const [attempt] = await logOf(owner, fastHook.id, 1);
    expect(attempt!.outcome).toBe('succeeded');
    // Logged while the slow receiver still holds its request open.
    expect(Date.now() - slow.requests[0]!.at).toBeLessThan(4000);
  });

  test('a secret that cannot be decrypted (JWT_SECRET changed) fails the attempt, saying why', async () => {
    const target = await receiver({ kind: 'status', status: 200 });
    const owner = newOrganization();
    const created = await hook(owner, target.url);
    const { event, pointer } = await emitEvent(owner);
    await fanOutEvent(services, pointer);
    const rotated: Services = { ...services, config: { ...services.config, jwt: { ...services.config.jwt, secret: randomBytes(48) } } };
    const message: DeliveryMessage = { kind: 'attempt', ownerId: owner, webhookId: created.id, eventId: event.id, attempt: 1, notBefore: new Date().toISOString() };
    const outcome = await deliverAttempt(rotated, message);
    expect(outcome).toMatchObject({ kind: 'attempted', attempt: { outcome: 'retrying', error: expect.stringContaining('cannot be decrypted (JWT_SECRET has changed') } });
    expect(target.requests).toHaveLength(0);
  });
});

describe('idempotency', () => {
  test('a fan-out that runs twice at once, and again later, delivers the event once', async () => {
    const target = await receiver({ kind: 'status', status: 200 });
    const owner = newOrganization();
    const created = await hook(owner, target.url);
    const { pointer } = await emitEvent(owner);
    const results = await Promise.all([fanOutEvent(services, pointer), fanOutEvent(services, pointer)]);
    expect(results.map((result) => result.kind)).toEqual(['fanned-out', 'fanned-out']);
    runDeliveries();
    await target.waitForRequests(1);
    await logOf(owner, created.id, 1);
    await waitUntil(async () => ((await queue.getProperties()).approximateMessagesCount === 0 ? true : undefined), 10_000, 'the queue to drain');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(target.requests).toHaveLength(1);
    expect(await listDeliveries({ services, ownerId: owner, webhookId: created.id })).toHaveLength(1);
    expect(await fanOutEvent(services, pointer)).toEqual({ kind: 'skipped', reason: 'the event was already fanned out (sent)' });
  });

  test('a duplicated attempt message makes one attempt', async () => {
    const target = await receiver({ kind: 'status', status: 200 });
    const owner = newOrganization();
    const created = await hook(owner, target.url);
    const { event, pointer } = await emitEvent(owner);
    await fanOutEvent(services, pointer);
    const message: DeliveryMessage = { kind: 'attempt', ownerId: owner, webhookId: created.id, eventId: event.id, attempt: 1, notBefore: new Date().toISOString() };
    const [first, second] = await Promise.all([deliverAttempt(services, message), deliverAttempt(services, message)]);
    expect([first.kind, second.kind].sort()).toEqual(['attempted', 'skipped']);
    expect(await deliverAttempt(services, message)).toEqual({ kind: 'skipped', reason: 'automatic attempt 1 was already made (the delivery is at 1)' });
    expect(target.requests).toHaveLength(1);
  });

  test('an attempt due later than the queue can delay (7 days) goes back on the queue for the rest', async () => {
    const target = await receiver({ kind: 'status', status: 200 });
    const owner = newOrganization();
    const created = await hook(owner, target.url);
    const { event, pointer } = await emitEvent(owner);
    await fanOutEvent(services, pointer);
    await queue.clearMessages();
    const notBefore = new Date(Date.now() + (MAX_QUEUE_DELAY_SECONDS + 3 * 86_400) * 1000).toISOString();
    const outcome = await deliverAttempt(services, { kind: 'attempt', ownerId: owner, webhookId: created.id, eventId: event.id, attempt: 1, notBefore });
    expect(outcome).toEqual({ kind: 'postponed', until: notBefore });
    expect((await queue.getProperties()).approximateMessagesCount).toBe(1);
    // Invisible: it waits on the queue (for 7 days, then waits again for the rest).
    expect((await queue.receiveMessages({ numberOfMessages: 32 })).receivedMessageItems).toHaveLength(0);
    expect(target.requests).toHaveLength(0);
  });

  test('attempts for a deleted webhook are dropped', async () => {
    const target = await receiver({ kind: 'status', status: 200 });
    const owner = newOrganization();
    const created = await hook(owner, target.url);
    const { event, pointer } = await emitEvent(owner);
    await fanOutEvent(services, pointer);
    await deleteWebhook({ services, ownerId: owner, webhookId: created.id });
    expect(await deliverAttempt(services, { kind: 'attempt', ownerId: owner, webhookId: created.id, eventId: event.id, attempt: 1, notBefore: event.createdAt })).toEqual({
      kind: 'skipped',
      reason: 'the webhook was deleted',
    });
    expect(await services.webhookDeliveries.read(created.id, event.id)).toBeNull();
    expect(target.requests).toHaveLength(0);
  });
});

describe('redelivery', () => {
  test('sends the same event with the same webhook-id again, as a new attempt in the log, once per request', async () => {
    const target = await receiver({ kind: 'status', status: 500 });
    {
      const owner = newOrganization();
      const created = await hook(owner, target.url);
      const { event, pointer } = await emitEvent(owner);
      await fanOutEvent(services, pointer);
      runDeliveries();
      // Three attempts (two retries after 1 s), then failed.
      const chain = await logOf(owner, created.id, 3);
      expect(chain.map((entry) => [entry.attempt, entry.outcome])).toEqual([[3, 'failed'], [2, 'retrying'], [1, 'retrying']]);

      target.mode = { kind: 'status', status: 200 };
      const queued = await redeliver({ services, ownerId: owner, webhookId: created.id, deliveryId: chain[2]!.id });
      expect(queued.eventId).toBe(event.id);
      const log = await logOf(owner, created.id, 4);
      expect(log[0]).toMatchObject({ eventId: event.id, attempt: 4, outcome: 'succeeded', responseStatus: 200, error: null, nextAttemptAt: null });
      expect(target.requests).toHaveLength(4);
      const last = target.requests[3]!;
      expect(last.headers['webhook-id']).toBe(event.id);
      expect(last.body).toBe(JSON.stringify(event));
      expect(verify(created.secret, last)).toEqual(event);

      // A duplicated redelivery message makes no second attempt.
      const message: DeliveryMessage = { kind: 'redelivery', ownerId: owner, webhookId: created.id, eventId: event.id, redeliveryId: queued.redeliveryId };
      expect(await deliverAttempt(services, message)).toEqual({ kind: 'skipped', reason: 'this redelivery was already made' });
      // A failed redelivery is not retried automatically.
      target.mode = { kind: 'status', status: 503 };
      await redeliver({ services, ownerId: owner, webhookId: created.id, deliveryId: log[0]!.id });
      const after = await logOf(owner, created.id, 5);
      expect(after[0]).toMatchObject({ attempt: 5, outcome: 'failed', responseStatus: 503, nextAttemptAt: null });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(target.requests).toHaveLength(5);
    }
  });

  test('of an attempt not in this webhook\'s log is 404', async () => {
    const owner = newOrganization();
    const target = await receiver({ kind: 'status', status: 200 });
    const first = await hook(owner, target.url);
    const second = await hook(owner, target.url);
    const { pointer } = await emitEvent(owner);
    await fanOutEvent(services, pointer);
    runDeliveries();
    const [attempt] = await logOf(owner, first.id, 1);
    await expect(redeliver({ services, ownerId: owner, webhookId: second.id, deliveryId: attempt!.id })).rejects.toMatchObject({ status: 404, type: 'urn:problem:delivery-not-found' });
    await expect(redeliver({ services, ownerId: owner, webhookId: first.id, deliveryId: 'not-a-uuid' })).rejects.toMatchObject({ status: 404, type: 'urn:problem:delivery-not-found' });
    await expect(redeliver({ services, ownerId: uuidv7(), webhookId: first.id, deliveryId: attempt!.id })).rejects.toMatchObject({ status: 404, type: 'urn:problem:webhook-not-found' });
  });
});

describe('the deliveries log', () => {
  test(`keeps the newest ${DELIVERY_LOG_SIZE} attempts, newest first`, async () => {
    const webhookId = uuidv7();
    const eventId = randomUUID();
    const start = Date.now() - 1_000_000;
    for (let index = 0; index < DELIVERY_LOG_SIZE + 5; index++) {
      const at = start + index * 1000;
      await services.webhookDeliveries.recordAttempt(webhookId, eventId, {
        id: uuidv7ForTime(at),
        eventId,
        eventType: 'envelope.sent',
        attempt: index + 1,
        at: new Date(at).toISOString(),
        outcome: 'failed',
        responseStatus: 500,
        error: 'the receiver answered HTTP 500',
        nextAttemptAt: null,
      }, null);
    }
    expect(await services.webhookDeliveries.pruneAttempts(webhookId, DELIVERY_LOG_SIZE)).toBe(5);
    const log = await services.webhookDeliveries.listAttempts(webhookId, DELIVERY_LOG_SIZE + 50);
    expect(log).toHaveLength(DELIVERY_LOG_SIZE);
    expect(log[0]!.attempt).toBe(DELIVERY_LOG_SIZE + 5);
    expect(log.at(-1)!.attempt).toBe(6);
    expect(log.map((entry) => entry.attempt)).toEqual([...log.map((entry) => entry.attempt)].sort((a, b) => b - a));
    expect(await services.webhookDeliveries.readAttempt(webhookId, log[10]!.id)).toEqual(log[10]);
  });
});

function uuidv7ForTime(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0');
  const random = randomBytes(10).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${random.slice(0, 3)}-${((Number.parseInt(random[3]!, 16) & 0x3) | 0x8).toString(16)}${random.slice(4, 7)}-${random.slice(7, 19)}`;
}
