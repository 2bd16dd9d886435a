/**
 * Sends the text message one outbox queue message points at (docs/api.md#sms), for the
 * queue-triggered function `SendSms`, through the outbox's delivery steps (`outboxDelivery.ts`: claim,
 * send, record `sent` first of all, retries by the queue, `failed` on the last dequeue): it derives the
 * recipient's signing link from the salt the outbox carries and records it (`signingLinks.ensure`)
 * before the text that carries it can reach anyone, writes the text in the recipient's locale
 * (`smsMessages.ts`) and sends it with the repeatability values of this outbox message: a UUID derived
 * from `<batchId>.<index>` and the time its first attempt began, the same on every attempt, so
 * Communication Services sends it once however often it is retried (`smsTransport.ts`). The
 * recipient's `lastSms` then becomes `sent` (or `failed` after the last dequeue). The host moves a
 * message that failed for good to `outbox-sms-poison`.
 */
import { recordSmsOutcome } from '../recipients/lastSms.js';
import type { Services } from '../services.js';
import type { OutboxMessage, SmsMessage } from './outbox.js';
import { deliverOutboxMessage, recordedSigningLink, type OutboxDeliveryResult, type QueuedDelivery } from './outboxDelivery.js';
import { renderSms } from './smsMessages.js';
import type { SmsTransport } from './smsTransport.js';
import { operationIdOf } from './transport.js';

export interface SendOutboxSmsOptions extends QueuedDelivery {
  transport: SmsTransport;
}

/**
 * Sends one outbox text message (see the module comment).
 * @throws the transport's error when the send fails (after marking the message `failed` on the last
 *   dequeue); storage errors
 */
export async function sendOutboxSms({ transport, ...delivery }: SendOutboxSmsOptions): Promise<OutboxDeliveryResult> {
  const { services, pointer } = delivery;
  const id = `${pointer.batchId}.${pointer.index}`;
  return await deliverOutboxMessage({
    ...delivery,
    label: 'Text message',
    accepts: (message: OutboxMessage): message is SmsMessage => message.kind === 'sms',
    deliver: async (message, batch) => {
      const link = await recordedSigningLink(services, batch.ownerId, message);
      const firstAttempt = batch.firstAttempts[pointer.index];
      await transport.send({
        id,
        to: message.to,
        text: renderSms(message, link),
        repeatabilityRequestId: operationIdOf(id),
        repeatabilityFirstSent: new Date(firstAttempt ?? Date.now()),
      });
    },
    recordOutcome: async (batch, message, status, at, error) => {
      await recordSmsOutcome(services, {
        ownerId: batch.ownerId,
        envelopeId: message.envelopeId,
        recipientId: message.recipientId,
        batchId: batch.id,
        status,
        at: at.toISOString(),
        ...(error === undefined ? {} : { reason: error instanceof Error ? error.message : String(error) }),
      });
    },
  });
}
