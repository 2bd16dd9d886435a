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
import { deliverOutboxMessage, recordedSigningLink, type OutboxDeliveryResult } from './outboxDelivery.js';
import type { OutboxPointer } from './outboxRepository.js';
import { renderSms } from './smsMessages.js';
import type { SmsTransport } from './smsTransport.js';
import { operationIdOf } from './transport.js';

export interface SendOutboxSmsOptions {
  services: Services;
  transport: SmsTransport;
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
 * Sends one outbox text message (see the module comment).
 * @throws the transport's error when the send fails (after marking the message `failed` on the last
 *   dequeue); storage errors
 */
export async function sendOutboxSms({ services, transport, pointer, dequeueCount, invocationId, log, now }: SendOutboxSmsOptions): Promise<OutboxDeliveryResult> {
  const id = `${pointer.batchId}.${pointer.index}`;
  return await deliverOutboxMessage({
    services,
    pointer,
    dequeueCount,
    invocationId,
    ...(log === undefined ? {} : { log }),
    ...(now === undefined ? {} : { now }),
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
