/**
 * What every queue-triggered sender of the outbox does with one queue message (docs/api.md#e-mail,
 * docs/api.md#sms), whatever it sends (`sendEmail.ts`, `sendSms.ts`):
 *
 * 1. claims the message (`OutboxStore.claim`, renewed while it works): a message that already has a
 *    state was handled by an earlier delivery and is skipped; one that another delivery is sending
 *    right now goes back on the queue for when that claim ends ({@link OutboxStore.requeue}), which
 *    costs none of the queue's dequeues; a batch or message that does not exist, or is of another
 *    kind, is dropped;
 * 2. sends it (the sender's `deliver`); once the service accepted it, records that first of all (the
 *    message's state `sent`, retried for up to {@link RECORD_ACCEPTANCE_ATTEMPTS} tries should storage
 *    fail), then the recipient's outcome (`lastEmail`, `lastSms`).
 *
 * So a message goes out at least once, and twice only when the sender dies, or storage stays
 * unreachable for the whole retry, between handing the message over and that record: the claim then
 * runs out and another delivery sends it again (for texts, Communication Services' repeatable requests
 * close that window too, `smsTransport.ts`).
 *
 * A failed send throws, and the queue retries the message after its visibility timeout. The attempt
 * of the last dequeue ({@link MAX_DEQUEUE_COUNT}, as `host.json` sets it) that fails marks the message
 * `failed` and the recipient's outcome `failed` before throwing, and the host moves the message to
 * the queue's `-poison` queue, where it stays for an operator to look at (`npm run outbox -- list`).
 * Should that marking fail too, the claim stays and the sweeper finds the message stuck.
 */
import { signingLinkKey, signingToken, signingUrl, tokenSha256 } from '../envelopes/signingLinks.js';
import type { InvocationContext } from '@azure/functions';
import type { Services } from '../services.js';
import { MAX_DEQUEUE_COUNT } from '../storage/queues.js';
import { inSpan } from '../telemetry/index.js';
import type { OutboxMessage } from './outbox.js';
import { OUTBOX_CLAIM_SECONDS, parsePointer, type OutboxPointer, type StoredOutboxBatch } from './outboxRepository.js';

/** Tries at recording an accepted message `sent` (with pauses of 1, 2, 4... s between them) before giving up. */
export const RECORD_ACCEPTANCE_ATTEMPTS = 5;

/**
 * What became of the message. `in-flight`: another delivery holds it; it was queued again for later.
 * `not-sent`: the sender decided not to send it (a text to a number that opted out); it is `failed`.
 */
export type OutboxDeliveryResult = 'sent' | 'already-done' | 'gone' | 'wrong-kind' | 'in-flight' | 'not-sent';

/** One delivery of one outbox queue message, as every sender takes it. */
export interface QueuedDelivery {
  services: Services;
  pointer: OutboxPointer;
  /** How often the queue has delivered this message, 1 on the first delivery. */
  dequeueCount: number;
  /** The invocation's id: the holder of the claim. */
  invocationId: string;
  /** Where to log drops, skips and final failures (never a token or a phone number). */
  log?: (message: string) => void;
  now?: () => Date;
}

/**
 * The delivery a queue-triggered sender's invocation is: the pointer its queue message carries
 * (`{ownerId, batchId, index}`), its dequeue count and id, and its log.
 * @throws Error when the message is not an outbox pointer (the host keeps it, in the poison queue, for an operator)
 */
export function queuedDelivery(entry: unknown, context: InvocationContext, services: Services): QueuedDelivery {
  const pointer = parsePointer(entry);
  if (pointer === null) throw new Error('The queue message is not an outbox pointer {ownerId, batchId, index}.');
  return { services, pointer, dequeueCount: Number(context.triggerMetadata?.dequeueCount ?? 1), invocationId: context.invocationId, log: (message) => context.log(message) };
}

export interface OutboxDeliveryOptions<M extends OutboxMessage> extends QueuedDelivery {
  /** What the log lines call the message: `E-mail`, `Text message`. */
  label: string;
  /** Whether the message is of the kind this sender sends. */
  accepts: (message: OutboxMessage) => message is M;
  /**
   * Sends it; resolves once the service accepted it, or with `{notSent}` when it decided not to send
   * it and recorded what follows itself: the message is then `failed`, with no outcome recorded here.
   * @param batch the batch as claimed (with when its first attempt began)
   */
  deliver: (message: M, batch: StoredOutboxBatch) => Promise<void | { notSent: string }>;
  /** Records the outcome on its recipient: `sent`, or `failed` for good (with the last error). */
  recordOutcome: (batch: StoredOutboxBatch, message: M, status: 'sent' | 'failed', at: Date, error?: unknown) => Promise<void>;
}

/**
 * Delivers one outbox message (see the module comment).
 * @throws the sender's error when the send fails (after marking the message `failed` on the last
 *   dequeue); storage errors
 */
export async function deliverOutboxMessage<M extends OutboxMessage>(options: OutboxDeliveryOptions<M>): Promise<OutboxDeliveryResult> {
  const { services, pointer, dequeueCount, invocationId, label, log = () => undefined, now = () => new Date() } = options;
  const name = `${pointer.batchId}.${pointer.index}`;
  const claim = await services.outbox.claim(pointer, invocationId, now());
  if (claim.outcome === 'gone') {
    log(`${label} ${name}: no such outbox message; dropped.`);
    return 'gone';
  }
  if (claim.outcome === 'done') {
    log(`${label} ${name}: already ${claim.state}; skipped.`);
    return 'already-done';
  }
  if (claim.outcome === 'busy') {
    const batch = await services.outbox.read(pointer.ownerId, pointer.batchId);
    const message = batch?.messages[pointer.index];
    if (message === undefined) return 'gone';
    await services.outbox.requeue(pointer, message, (Date.parse(claim.until) - now().getTime()) / 1000 + 1);
    log(`${label} ${name}: another delivery is sending it (claimed until ${claim.until}); queued again for then.`);
    return 'in-flight';
  }

  const { batch } = claim;
  const message = batch.messages[pointer.index]!;
  if (!options.accepts(message)) {
    await services.outbox.release(pointer, invocationId);
    log(`${label} ${name}: the outbox message is of another kind (${message.kind}); dropped.`);
    return 'wrong-kind';
  }

  // The claim is renewed while the message is on its way, so that only a dead sender's claim runs out.
  const renewal = setInterval(() => {
    services.outbox.claim(pointer, invocationId, now()).catch((error: unknown) => log(`${label} ${name}: claim not renewed (${error instanceof Error ? error.message : String(error)}).`));
  }, (OUTBOX_CLAIM_SECONDS * 1000) / 3);
  let outcome: void | { notSent: string };
  try {
    // `email.send` or `sms.send` (docs/api.md#telemetry): the message's type and attempt, never its address or text.
    const sent: OutboxMessage = message;
    const attributes = { 'outbox.batch_id': pointer.batchId, 'outbox.index': pointer.index, 'outbox.dequeue_count': dequeueCount, ...(sent.kind === 'event' ? {} : { 'notification.type': sent.type }) };
    outcome = await inSpan(`${sent.kind === 'sms' ? 'sms' : sent.kind === 'email' ? 'email' : 'event'}.send`, attributes, async () => await options.deliver(message, batch), 'client');
  } catch (error) {
    clearInterval(renewal);
    if (dequeueCount >= MAX_DEQUEUE_COUNT) {
      await services.outbox.setState(pointer, 'failed');
      await options.recordOutcome(batch, message, 'failed', now(), error);
      const sent: OutboxMessage = message;
      log(`${label} ${name} (${sent.kind === 'event' ? sent.event.type : sent.type}) failed for good after ${dequeueCount} attempts.`);
    } else {
      await services.outbox.release(pointer, invocationId);
    }
    throw error;
  }
  if (outcome !== undefined) {
    clearInterval(renewal);
    await services.outbox.setState(pointer, 'failed');
    log(`${label} ${name}: not sent (${outcome.notSent}).`);
    return 'not-sent';
  }
  try {
    // Accepted: recorded before anything else, and retried, since a delivery that finds no record
    // sends the message again. Until then the claim (still renewed) keeps other deliveries off it.
    await recordAccepted(services, pointer);
  } finally {
    clearInterval(renewal);
  }
  await options.recordOutcome(batch, message, 'sent', now());
  return 'sent';
}

/** Sets the message's state `sent`, retrying storage faults (see {@link RECORD_ACCEPTANCE_ATTEMPTS}). */
async function recordAccepted(services: Services, pointer: OutboxPointer): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await services.outbox.setState(pointer, 'sent');
      return;
    } catch (error) {
      if (attempt >= RECORD_ACCEPTANCE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000 * 2 ** (attempt - 1)));
    }
  }
}

/**
 * The recipient's signing link that a message carries (docs/api.md#signing-links), derived from the
 * salt the outbox captured, recorded in `signingLinks` before the message that carries it can reach
 * anyone (so the link works the moment it arrives).
 * @returns `<PUBLIC_BASE_URL>/api/sign#<token>`
 */
export async function recordedSigningLink(services: Services, ownerId: string, link: { envelopeId: string; recipientId: string; linkSalt: string }): Promise<string> {
  const { config } = services;
  const token = signingToken(signingLinkKey(config.jwt.secret), link.linkSalt);
  await services.signingLinks.ensure({ tokenSha256: tokenSha256(token), ownerId, envelopeId: link.envelopeId, recipientId: link.recipientId });
  return signingUrl(config.publicBaseUrl, token);
}
