/**
 * Delivers one webhook attempt (docs/api.md#webhooks): the work of one message of the `webhook-deliveries`
 * queue ({@link DeliveryMessage}).
 *
 * 1. A message that arrives before its `notBefore` goes back on the queue for the rest of the delay
 *    (the queue's visibility delay is at most 7 days; retry delays may be longer).
 * 2. The attempt is claimed on the delivery row with its ETag, so a duplicated queue message makes no
 *    second attempt; an attempt claimed by a process that died is taken over once it is stale.
 * 3. The target's host is resolved and every address checked ({@link resolveTarget}), then the body
 *    is POSTed to a checked address, signed with the Standard Webhooks scheme (`standardwebhooks`):
 *    `webhook-id` = the event id, `webhook-timestamp` = Unix seconds now, `webhook-signature` =
 *    `v1,<base64 HMAC-SHA256 over "<id>.<timestamp>.<body>">` with the secret's bytes.
 * 4. Any 2xx succeeds. Otherwise, while delays of `WEBHOOK_RETRY_SECONDS` remain, the next attempt is
 *    queued with the next delay (`retrying`), else the delivery is `failed`. A redelivery is one
 *    attempt, never retried automatically.
 * 5. The attempt is appended to the deliveries log with the delivery's new state, in one transaction.
 *    The log is pruned to the newest {@link DELIVERY_LOG_SIZE} attempts on a process's first attempt
 *    at a webhook and then every {@link PRUNE_EVERY} attempts, one prune of a webhook at a time (a
 *    prune reads every row key of the log: at every attempt that was 100 keys per delivery, and
 *    concurrent prunes deleted the same rows); the log endpoint lists only the newest
 *    {@link DELIVERY_LOG_SIZE} whatever the rows beyond them.
 *
 * The webhook's row and the delivery row are read at once.
 *
 * Storage faults are thrown, so the queue trigger retries the message; a receiver's failure never is.
 */
import type { QueueClient } from '@azure/storage-queue';
import { v7 } from 'uuid';
import { uuidv7 } from '../../ids.js';
import { LostRaceError, retryOnConflict } from '../../retryOnConflict.js';
import type { Services } from '../../services.js';
import type { StoredDelivery } from '../../storage/webhookDeliveryRepository.js';
import { DELIVERY_LOG_SIZE, encodeDeliveryMessage, type DeliveryAttemptView, type DeliveryMessage, type DeliveryRecord } from './model.js';
import { postWebhook, WEBHOOK_TIMEOUT_MS, type PostResult } from './post.js';
import { decryptWebhookSecret, secretEncryptionKey } from './secrets.js';
import { hostOf, parseTargetUrl, resolveTarget, TargetRefusedError, type HostResolver } from '../../outbound/target.js';
import { countWebhookFailure, inSpan } from '../../telemetry/index.js';

/** Longest visibility delay Azure Queue Storage accepts, seconds (7 days). */
export const MAX_QUEUE_DELAY_SECONDS = 7 * 24 * 3600;
/**
 * How long after its claim an unrecorded attempt is considered abandoned (its process died), beyond the
 * timeout, ms: shorter than the queue functions' own lease (`triggers/register.ts`
 * `QUEUE_LEASE_SECONDS`), so the lease's copy of the message, a minute after the death, takes it over.
 */
const STALE_CLAIM_MARGIN_MS = 20_000;
/** Redelivery ids remembered per delivery (duplicate queue messages arrive within minutes). */
const REMEMBERED_REDELIVERIES = 20;
/** Attempts a process records at a webhook between two prunes of its log. */
export const PRUNE_EVERY = 25;
/** Webhooks whose prune counters a process keeps before it starts afresh (each then prunes once more). */
const PRUNE_COUNTERS_KEPT = 10_000;
/** Per webhook id: attempts this process recorded since it last pruned the webhook's log. */
const sincePrune = new Map<string, number>();
/** Webhooks whose log this process is pruning now: a second prune at once would delete the same rows. */
const pruning = new Set<string>();

/**
 * Prunes the webhook's log to the newest {@link DELIVERY_LOG_SIZE} attempts on the process's first
 * attempt at the webhook and then every {@link PRUNE_EVERY}th, never twice at once. A failure is
 * logged, and the next attempt prunes again.
 */
async function pruneLogSometimes(services: Services, webhookId: string, log: (message: string) => void): Promise<void> {
  const count = sincePrune.get(webhookId);
  if (pruning.has(webhookId) || (count !== undefined && count + 1 < PRUNE_EVERY)) {
    sincePrune.set(webhookId, (count ?? 0) + 1);
    return;
  }
  if (count === undefined && sincePrune.size >= PRUNE_COUNTERS_KEPT) sincePrune.clear();
  sincePrune.set(webhookId, 0);
  pruning.add(webhookId);
  try {
    await services.webhookDeliveries.pruneAttempts(webhookId, DELIVERY_LOG_SIZE);
  } catch (error) {
    sincePrune.delete(webhookId);
    log(`Pruning the deliveries log of webhook ${webhookId} failed (the next attempt prunes again): ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    pruning.delete(webhookId);
  }
}

/** `User-Agent` of deliveries. */
export const WEBHOOK_USER_AGENT = 'envelope-signing-service-webhooks/1';

export interface DeliverOptions {
  /** Deadline of the receiver's answer, ms; {@link WEBHOOK_TIMEOUT_MS} unless a test shortens it. */
  timeoutMs?: number;
  /** Resolver of target hosts; the system's by default. */
  resolve?: HostResolver;
  /** Certificates to trust besides the system's (tests with their own CA). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Current time (tests); `Date.now` by default. */
  now?: () => number;
  log?: (message: string) => void;
}

/** What one message led to. */
export type DeliverOutcome =
  | { kind: 'attempted'; attempt: DeliveryAttemptView }
  /** It arrived early and went back on the queue. */
  | { kind: 'postponed'; until: string }
  /** Nothing to do: the webhook or delivery is gone, or the attempt was already made (a duplicate). */
  | { kind: 'skipped'; reason: string };

/**
 * Processes one message of the `webhook-deliveries` queue (see the module comment).
 * @throws storage errors (the queue retries the message)
 */
export async function deliverAttempt(services: Services, message: DeliveryMessage, options: DeliverOptions = {}): Promise<DeliverOutcome> {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const queue = services.storage.queues.webhookDeliveries;

  if (message.kind === 'attempt') {
    const wait = Date.parse(message.notBefore) - now();
    if (wait > 1000) {
      await enqueueDelivery(queue, message, Math.ceil(wait / 1000));
      return { kind: 'postponed', until: message.notBefore };
    }
  }

  // Both point reads at once: the delivery row is read for the claim whatever the webhook says.
  const [webhook, stored] = await Promise.all([
    services.webhooks.read(message.ownerId, message.webhookId),
    services.webhookDeliveries.read(message.webhookId, message.eventId),
  ]);
  if (webhook === null) return { kind: 'skipped', reason: 'the webhook was deleted' };

  const claimed = await claim(services, message, now, timeoutMs, stored);
  if ('reason' in claimed) return { kind: 'skipped', reason: claimed.reason };
  const { delivery, attemptNumber } = claimed;

  const startedAt = now();
  // `webhook.deliver` (docs/api.md#telemetry): the webhook's id, the event's type, the answer's status; never the URL.
  const result = await inSpan('webhook.deliver', { 'webhook.id': webhook.id, 'webhook.event_type': delivery.event.type, 'webhook.attempt': attemptNumber }, async (notes) => {
    const posted = await attemptOnce(services, delivery, webhook, { ...options, timeoutMs, now });
    if (posted.status !== null) notes.set('http.response.status_code', posted.status);
    if (!posted.ok) notes.set('error.type', posted.status === null ? 'no-answer' : String(posted.status));
    return posted;
  }, 'client');

  const retries = services.config.webhookRetrySeconds;
  let outcome: DeliveryAttemptView['outcome'];
  let nextAttemptAt: string | null = null;
  if (result.ok) outcome = 'succeeded';
  else if (message.kind === 'attempt' && message.attempt <= retries.length) {
    outcome = 'retrying';
    const delaySeconds = retries[message.attempt - 1]!;
    nextAttemptAt = new Date(now() + delaySeconds * 1000).toISOString();
    // Queued before the outcome is recorded: if recording fails, the next attempt still comes.
    await enqueueDelivery(queue, { ...message, attempt: message.attempt + 1, notBefore: nextAttemptAt }, delaySeconds);
  } else outcome = 'failed';
  if (!result.ok) countWebhookFailure({ outcome, status: result.status });

  const attempt: DeliveryAttemptView = {
    // A UUIDv7 carrying the attempt's time, which orders the log and finds the row by id.
    id: v7({ msecs: startedAt }),
    eventId: delivery.event.id,
    eventType: delivery.event.type,
    attempt: attemptNumber,
    at: new Date(startedAt).toISOString(),
    outcome,
    responseStatus: result.status,
    error: result.error,
    nextAttemptAt,
  };
  const changes =
    message.kind === 'attempt' ? { recordedAutoAttempt: message.attempt, status: outcome === 'succeeded' ? ('succeeded' as const) : outcome === 'retrying' ? ('retrying' as const) : ('failed' as const) } : null;
  await services.webhookDeliveries.recordAttempt(webhook.id, delivery.event.id, attempt, changes);
  await pruneLogSometimes(services, webhook.id, options.log ?? console.warn);
  return { kind: 'attempted', attempt };
}

/**
 * Puts a delivery message on the `webhook-deliveries` queue.
 * @param delaySeconds visibility delay; capped at {@link MAX_QUEUE_DELAY_SECONDS} (the message then
 *   waits again for the rest, see `notBefore`)
 */
export async function enqueueDelivery(queue: QueueClient, message: DeliveryMessage, delaySeconds = 0): Promise<void> {
  const visibilityTimeout = Math.max(0, Math.min(MAX_QUEUE_DELAY_SECONDS, Math.ceil(delaySeconds)));
  // A delayed message must outlive its delay: no expiry (-1).
  await queue.sendMessage(encodeDeliveryMessage(message), { messageTimeToLive: -1, ...(visibilityTimeout > 0 ? { visibilityTimeout } : {}) });
}

type Claim = { delivery: DeliveryRecord; attemptNumber: number } | { reason: string };

/**
 * Claims the attempt a message asks for on the delivery row (optimistic concurrency, re-read on conflict).
 * @param firstRead the delivery row as just read (`null`: it does not exist)
 */
async function claim(services: Services, message: DeliveryMessage, now: () => number, timeoutMs: number, firstRead: StoredDelivery | null): Promise<Claim> {
  const contendedDelivery = () => {
    throw new Error(`the delivery of event ${message.eventId} to webhook ${message.webhookId} is contended; the queue retries`);
  };
  return await retryOnConflict(async (round) => {
    const stored = round === 0 ? firstRead : await services.webhookDeliveries.read(message.webhookId, message.eventId);
    if (stored === null) return { reason: 'the delivery does not exist' };
    const current = stored.record;
    const claimedAt = new Date(now()).toISOString();
    let next: DeliveryRecord;
    if (message.kind === 'redelivery') {
      if (current.recentRedeliveries.includes(message.redeliveryId)) return { reason: 'this redelivery was already made' };
      next = {
        ...current,
        attemptCount: current.attemptCount + 1,
        recentRedeliveries: [...current.recentRedeliveries, message.redeliveryId].slice(-REMEMBERED_REDELIVERIES),
      };
      if (await services.webhookDeliveries.replaceIfUnchanged(stored, next)) return { delivery: next, attemptNumber: next.attemptCount };
      throw new LostRaceError('The delivery row');
    }
    if (current.autoAttempt === message.attempt - 1) {
      next = { ...current, autoAttempt: message.attempt, attemptCount: current.attemptCount + 1, autoAttemptNumber: current.attemptCount + 1, claimedAt };
    } else if (current.autoAttempt === message.attempt && current.recordedAutoAttempt < message.attempt) {
      const since = current.claimedAt === null ? 0 : Date.parse(current.claimedAt);
      if (now() - since < timeoutMs + STALE_CLAIM_MARGIN_MS) return { reason: `attempt ${message.attempt} is in progress elsewhere` };
      // Claimed by a process that died before recording it: take it over, under the same number.
      next = { ...current, claimedAt };
    } else {
      return { reason: `automatic attempt ${message.attempt} was already made (the delivery is at ${current.autoAttempt})` };
    }
    if (await services.webhookDeliveries.replaceIfUnchanged(stored, next)) return { delivery: next, attemptNumber: next.autoAttemptNumber };
    throw new LostRaceError('The delivery row');
  }, { exhausted: contendedDelivery });
}

/** Resolves, checks, signs and posts; every failure becomes a {@link PostResult}. */
async function attemptOnce(
  services: Services,
  delivery: DeliveryRecord,
  webhook: { id: string; ownerId: string; url: string; encryptedSecret: string },
  options: DeliverOptions & { timeoutMs: number; now: () => number },
): Promise<PostResult> {
  let secret: string;
  try {
    secret = decryptWebhookSecret(webhook.encryptedSecret, secretEncryptionKey(services.config.jwt.secret), { ownerId: webhook.ownerId, webhookId: webhook.id });
  } catch {
    return { ok: false, status: null, error: 'the webhook\'s secret cannot be decrypted (JWT_SECRET has changed since it was created); create the webhook again' };
  }
  const policy = { allowPrivate: services.config.outboundAllowPrivateNetworks, ...(options.resolve === undefined ? {} : { resolve: options.resolve }) };
  let url: URL;
  let addresses;
  try {
    url = parseTargetUrl(webhook.url, policy);
    addresses = await resolveTarget(hostOf(url), policy);
  } catch (error) {
    if (error instanceof TargetRefusedError) return { ok: false, status: null, error: `not sent: ${error.message}` };
    throw error;
  }
  const body = JSON.stringify(delivery.event);
  const timestamp = new Date(options.now());
  // Loaded on the first delivery, not when the function modules are imported (cold start).
  const { Webhook: StandardWebhook } = await import('standardwebhooks');
  const signature = new StandardWebhook(secret).sign(delivery.event.id, timestamp, body);
  return await postWebhook(
    {
      url,
      body,
      addresses,
      headers: {
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
        'webhook-id': delivery.event.id,
        'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
        'webhook-signature': signature,
      },
    },
    { timeoutMs: options.timeoutMs, ...(options.ca === undefined ? {} : { ca: options.ca }) },
  );
}

/** A fresh id for a redelivery request. */
export function newRedeliveryId(): string {
  return uuidv7();
}
