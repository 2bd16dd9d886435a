/**
 * Sends the e-mail one outbox queue message points at (docs/api.md#e-mail), for the queue-triggered
 * function `SendEmail`, through the outbox's delivery steps (`outboxDelivery.ts`: claim, send, record
 * `sent` first of all, retries by the queue, `failed` on the last dequeue): it derives the recipient's
 * signing link from the salt the outbox carries and records it (`signingLinks.ensure`) before the
 * e-mail that carries it can reach anyone, renders and sends it; the recipient's `lastEmail` then
 * becomes `sent` (or `failed` after the last dequeue). The host moves a message that failed for good
 * to `outbox-email-poison`.
 *
 * An e-mail goes out twice only when the sender dies, or storage stays unreachable, between handing
 * it over (the server may deliver a message whose answer its client never read, RFC 5321 section
 * 6.1) and recording it; docs/api.md "How e-mail is sent" gives the window as measured.
 */
import { verificationLinkFor } from '../auth/emailVerification.js';
import { organizationInvitationToken, organizationInvitationUrl } from '../auth/organizationInvitationTokens.js';
import { recordEmailOutcome } from '../recipients/lastEmail.js';
import type { Services } from '../services.js';
import { renderEmail } from './emailMessages.js';
import { oneTimeCode } from '../recipients/oneTimeCodes.js';
import type { EmailMessage, OutboxMessage } from './outbox.js';
import { deliverOutboxMessage, recordedSigningLink, type QueuedDelivery } from './outboxDelivery.js';
import type { EmailTransport } from './transport.js';

export { RECORD_ACCEPTANCE_ATTEMPTS } from './outboxDelivery.js';

export interface SendOutboxEmailOptions extends QueuedDelivery {
  transport: EmailTransport;
}

/** What became of the message. `in-flight`: another delivery holds it; it was queued again for later. */
export type SendOutboxEmailResult = 'sent' | 'already-done' | 'gone' | 'not-email' | 'in-flight';

/**
 * Sends one outbox e-mail (see the module comment).
 * @throws the transport's error when the send fails (after marking the message `failed` on the last
 *   dequeue); storage errors
 */
export async function sendOutboxEmail({ transport, ...delivery }: SendOutboxEmailOptions): Promise<SendOutboxEmailResult> {
  const { services, pointer } = delivery;
  const result = await deliverOutboxMessage({
    ...delivery,
    label: 'E-mail',
    accepts: (message: OutboxMessage): message is EmailMessage => message.kind === 'email',
    deliver: async (message, batch) => await deliver(services, transport, batch.ownerId, `${pointer.batchId}.${pointer.index}`, message),
    recordOutcome: async (batch, message, status, at) => {
      if (message.recipientId !== null) await recordOutcome(services, batch.ownerId, batch.id, message, status, at);
    },
  });
  // An e-mail is never left unsent by choice (only texts are, to numbers that opted out).
  if (result === 'not-sent') throw new Error(`E-mail ${pointer.batchId}.${pointer.index}: its sender declined to send it`);
  return result === 'wrong-kind' ? 'not-email' : result;
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
    link = await recordedSigningLink(services, ownerId, { envelopeId: message.envelopeId, recipientId: message.recipientId, linkSalt: message.linkSalt });
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
