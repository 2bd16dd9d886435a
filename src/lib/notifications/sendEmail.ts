/**
 * Sends the e-mail one outbox queue message points at (docs/api.md#e-mail), for the queue-triggered
 * function `SendEmail`:
 *
 * 1. reads the batch; a batch or message that does not exist, or is not an e-mail, is dropped;
 * 2. claims the message (`OutboxStore.claim`, renewed while it works): a message that already has a
 *    state was handled by an earlier delivery and is skipped; one that another delivery is sending
 *    right now goes back on the queue for when that claim ends ({@link OutboxStore.requeue}), which
 *    costs none of the queue's dequeues;
 * 3. derives the recipient's signing link from the salt the outbox carries and records it
 *    (`signingLinks.ensure`) before the e-mail that carries it can reach anyone;
 * 4. renders and sends it; once the mail server accepted it, records that first of all (the message's
 *    state `sent`, retried for up to {@link RECORD_ACCEPTANCE_ATTEMPTS} tries should storage fail),
 *    then the recipient's `lastEmail` `sent`.
 *
 * So an e-mail goes out at least once, and twice only when the sender dies, or storage stays
 * unreachable for the whole retry, between handing the message over (the server may deliver a
 * message whose answer its client never read, RFC 5321 section 6.1) and that record: the claim then
 * runs out and another delivery sends it again. docs/api.md "How e-mail is sent" gives the window as
 * measured.
 *
 * A failed send throws, and the queue retries the message after its visibility timeout. The attempt
 * of the last dequeue ({@link MAX_DEQUEUE_COUNT}, as `host.json` sets it) that fails marks the message
 * `failed` and the recipient's `lastEmail` `failed` before throwing, and the host moves the message to
 * `outbox-email-poison`, where it stays for an operator to look at (`npm run outbox -- list`).
 * Should that marking fail too, the claim stays and the sweeper finds the message stuck.
 */
import { verificationLinkFor } from '../auth/emailVerification.js';
import { organizationInvitationToken, organizationInvitationUrl } from '../auth/organizationInvitationTokens.js';
import { recordEmailOutcome } from '../recipients/lastEmail.js';
import { signingLinkKey, signingToken, signingUrl, tokenSha256 } from '../envelopes/signingLinks.js';
import type { Services } from '../services.js';
import { renderEmail } from './emailMessages.js';
import { oneTimeCode } from '../recipients/oneTimeCodes.js';
import type { EmailMessage } from './outbox.js';
import { OUTBOX_CLAIM_SECONDS, type OutboxPointer } from './outboxRepository.js';
import type { EmailTransport } from './transport.js';
import { MAX_DEQUEUE_COUNT } from '../storage/queues.js';

/** Tries at recording an accepted e-mail `sent` (with pauses of 1, 2, 4... s between them) before giving up. */
export const RECORD_ACCEPTANCE_ATTEMPTS = 5;

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

/** What became of the message. `in-flight`: another delivery holds it; it was queued again for later. */
export type SendOutboxEmailResult = 'sent' | 'already-done' | 'gone' | 'not-email' | 'in-flight';

/**
 * Sends one outbox e-mail (see the module comment).
 * @throws the transport's error when the send fails (after marking the message `failed` on the last
 *   dequeue); storage errors
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
  if (claim.outcome === 'busy') {
    const batch = await services.outbox.read(pointer.ownerId, pointer.batchId);
    const message = batch?.messages[pointer.index];
    if (message === undefined) return 'gone';
    await services.outbox.requeue(pointer, message, (Date.parse(claim.until) - now().getTime()) / 1000 + 1);
    log(`E-mail ${name}: another delivery is sending it (claimed until ${claim.until}); queued again for then.`);
    return 'in-flight';
  }

  const { batch } = claim;
  const message = batch.messages[pointer.index]!;
  if (message.kind !== 'email') {
    await services.outbox.release(pointer, invocationId);
    log(`E-mail ${name}: the outbox message is not an e-mail; dropped.`);
    return 'not-email';
  }

  // The claim is renewed while the e-mail is on its way, so that only a dead sender's claim runs out.
  const renewal = setInterval(() => {
    services.outbox.claim(pointer, invocationId, now()).catch((error: unknown) => log(`E-mail ${name}: claim not renewed (${error instanceof Error ? error.message : String(error)}).`));
  }, (OUTBOX_CLAIM_SECONDS * 1000) / 3);
  try {
    await deliver(services, transport, batch.ownerId, name, message);
  } catch (error) {
    clearInterval(renewal);
    if (dequeueCount >= MAX_DEQUEUE_COUNT) {
      await services.outbox.setState(pointer, 'failed');
      if (message.recipientId !== null) await recordOutcome(services, batch.ownerId, batch.id, message, 'failed', now());
      log(`E-mail ${name} (${message.type}) failed for good after ${dequeueCount} attempts.`);
    } else {
      await services.outbox.release(pointer, invocationId);
    }
    throw error;
  }
  try {
    // Accepted: recorded before anything else, and retried, since a delivery that finds no record
    // sends the e-mail again. Until then the claim (still renewed) keeps other deliveries off it.
    await recordAccepted(services, pointer);
  } finally {
    clearInterval(renewal);
  }
  if (message.recipientId !== null) await recordOutcome(services, batch.ownerId, batch.id, message, 'sent', now());
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

/** Records the link (if any), renders and sends; resolves once the server accepted the e-mail. */
async function deliver(services: Services, transport: EmailTransport, ownerId: string, id: string, message: EmailMessage): Promise<void> {
  const { config } = services;
  let link: string | null = null;
  if (message.type === 'verification') {
    link = verificationLinkFor(services, message);
  } else if (message.organizationInvitation !== undefined) {
    link = organizationInvitationUrl(config.publicBaseUrl, organizationInvitationToken(config.jwt.secret, message.organizationInvitation.id));
  } else if (message.linkSalt !== null) {
    if (message.recipientId === null) throw new Error(`E-mail ${id}: a link salt without a recipient`);
    const token = signingToken(signingLinkKey(config.jwt.secret), message.linkSalt);
    await services.signingLinks.ensure({ tokenSha256: tokenSha256(token), ownerId, envelopeId: message.envelopeId, recipientId: message.recipientId });
    link = signingUrl(config.publicBaseUrl, token);
  }
  const oneTime = message.type === 'otp' && message.otpSalt != null ? oneTimeCode(config.jwt.secret, message.otpSalt) : null;
  const rendered = renderEmail(message, { publicBaseUrl: config.publicBaseUrl, signingLink: link, oneTimeCode: oneTime });
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
