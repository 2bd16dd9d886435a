/**
 * Sends the e-mail one outbox queue message points at (CONTRACT §12.1), for the queue-triggered
 * function `SendEmail`:
 *
 * 1. reads the batch; a batch or message that does not exist, or is not an e-mail, is dropped;
 * 2. claims the message (`OutboxStore.claim`): a message that already has a state was handled by an
 *    earlier delivery and is skipped, so an e-mail goes out at most once as far as the mail server's
 *    acceptance can tell; one that another delivery is sending right now is retried later;
 * 3. derives the recipient's signing link from the salt the outbox carries and records it
 *    (`signingLinks.ensure`) before the e-mail that carries it can reach anyone;
 * 4. renders and sends it; once accepted, sets the message's state `sent` and the recipient's
 *    `lastEmail` to `sent`.
 *
 * A failed send throws, and the queue retries the message after its visibility timeout. The attempt
 * of the last dequeue ({@link MAX_DEQUEUE_COUNT}, as `host.json` sets it) that fails marks the message
 * `failed` and the recipient's `lastEmail` `failed` before throwing, and the host moves the message to
 * `outbox-email-poison`, where it stays for an operator to look at.
 */
import { verificationLinkFor } from '../auth/emailVerification.js';
import { recordEmailOutcome } from '../recipients/lastEmail.js';
import { signingLinkKey, signingToken, signingUrl, tokenSha256 } from '../recipients/signingLinks.js';
import type { Services } from '../services.js';
import { renderEmail } from './emailMessages.js';
import type { EmailMessage } from './outbox.js';
import type { OutboxPointer } from './outboxRepository.js';
import type { EmailTransport } from './transport.js';

/** Dequeues after which the host moves a failing message to the poison queue (`host.json` `extensions.queues.maxDequeueCount`). */
export const MAX_DEQUEUE_COUNT = 5;

/** Thrown when another delivery of the same message holds it: the queue retries this one later. */
export class EmailInFlightError extends Error {
  constructor(pointer: OutboxPointer, until: string) {
    super(`E-mail ${pointer.batchId}.${pointer.index} is being sent by another delivery (claimed until ${until}); retrying later`);
    this.name = 'EmailInFlightError';
  }
}

export interface SendOutboxEmailOptions {
  services: Services;
  transport: EmailTransport;
  pointer: OutboxPointer;
  /** How often the queue has delivered this message, 1 on the first delivery. */
  dequeueCount: number;
  /** The invocation's id: the holder of the claim. */
  invocationId: string;
  /** Where to log drops, skips and final failures (never a token). */
  log?: (message: string) => void;
  now?: () => Date;
}

/** What became of the message. */
export type SendOutboxEmailResult = 'sent' | 'already-done' | 'gone' | 'not-email';

/**
 * Sends one outbox e-mail (see the module comment).
 * @throws EmailInFlightError when another delivery holds the message; the transport's error when the
 *   send fails (after marking the message `failed` on the last dequeue); storage errors
 */
export async function sendOutboxEmail({ services, transport, pointer, dequeueCount, invocationId, log = () => undefined, now = () => new Date() }: SendOutboxEmailOptions): Promise<SendOutboxEmailResult> {
  const name = `${pointer.batchId}.${pointer.index}`;
  const claim = await services.outbox.claim(pointer, invocationId, now());
  if (claim.outcome === 'gone') {
    log(`E-mail ${name}: no such outbox message; dropped.`);
    return 'gone';
  }
  if (claim.outcome === 'done') {
    log(`E-mail ${name}: already ${claim.state}; skipped.`);
    return 'already-done';
  }
  if (claim.outcome === 'busy') throw new EmailInFlightError(pointer, claim.until);

  const { batch } = claim;
  const message = batch.messages[pointer.index]!;
  if (message.kind !== 'email') {
    await services.outbox.release(pointer, invocationId);
    log(`E-mail ${name}: the outbox message is not an e-mail; dropped.`);
    return 'not-email';
  }

  try {
    await deliver(services, transport, batch.ownerId, name, message);
  } catch (error) {
    if (dequeueCount >= MAX_DEQUEUE_COUNT) {
      await services.outbox.setState(pointer, 'failed');
      if (message.recipientId !== null) await recordOutcome(services, batch.ownerId, batch.id, message, 'failed', now());
      log(`E-mail ${name} (${message.type}) failed for good after ${dequeueCount} attempts.`);
    } else {
      await services.outbox.release(pointer, invocationId);
    }
    throw error;
  }
  // Accepted: from here on nothing may count as a failed send. Should this write fail, the claim
  // keeps other deliveries off the message until it expires.
  await services.outbox.setState(pointer, 'sent');
  if (message.recipientId !== null) await recordOutcome(services, batch.ownerId, batch.id, message, 'sent', now());
  return 'sent';
}

/** Records the link (if any), renders and sends; resolves once the server accepted the e-mail. */
async function deliver(services: Services, transport: EmailTransport, ownerId: string, id: string, message: EmailMessage): Promise<void> {
  const { config } = services;
  let link: string | null = null;
  if (message.type === 'verification') {
    link = verificationLinkFor(services, message);
  } else if (message.linkSalt !== null) {
    if (message.recipientId === null) throw new Error(`E-mail ${id}: a link salt without a recipient`);
    const token = signingToken(signingLinkKey(config.jwt.secret), message.linkSalt);
    await services.signingLinks.ensure({ tokenSha256: tokenSha256(token), ownerId, envelopeId: message.envelopeId, recipientId: message.recipientId });
    link = signingUrl(config.publicBaseUrl, token);
  }
  const rendered = renderEmail(message, { publicBaseUrl: config.publicBaseUrl, signingLink: link });
  await transport.send({
    id,
    to: message.to,
    replyTo: message.recipientId === null ? null : message.ownerEmail,
    ...rendered,
  });
}

async function recordOutcome(services: Services, ownerId: string, batchId: string, message: EmailMessage, status: 'sent' | 'failed', at: Date): Promise<void> {
  await recordEmailOutcome(services, { ownerId, envelopeId: message.envelopeId, recipientId: message.recipientId!, batchId, status, at: at.toISOString() });
}
