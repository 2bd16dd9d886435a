/**
 * Sends the text message one outbox queue message points at (docs/api.md#sms), for the
 * queue-triggered function `SendSms`, through the outbox's delivery steps (`outboxDelivery.ts`: claim,
 * send, record `sent` first of all, retries by the queue, `failed` on the last dequeue). A number that
 * opted out is not texted: `recipients/smsOptOut.ts` records it and e-mails what the text carried
 * (docs/api.md#opting-out-of-text-messages). Otherwise it derives the recipient's signing link from
 * the salt the outbox carries and records it (`signingLinks.ensure`) before the text that carries it
 * can reach anyone (or, for a one-time code, derives the code), writes the text in the recipient's locale
 * (`smsMessages.ts`) and sends it with the repeatability values of this outbox message: a UUID derived
 * from `<batchId>.<index>` and the time its first attempt began, the same on every attempt, so
 * Communication Services sends it once however often it is retried (`smsTransport.ts`). The
 * recipient's `lastSms` then becomes `sent` (or `failed` after the last dequeue), and Communication
 * Services' id of the text is kept so its delivery report finds the recipient. The host moves a
 * message that failed for good to `outbox-sms-poison`.
 */
import { recordSmsOutcome } from '../recipients/lastSms.js';
import type { Services } from '../services.js';
import type { OutboxMessage, SmsMessage } from './outbox.js';
import { deliverOutboxMessage, recordedSigningLink, type OutboxDeliveryResult, type QueuedDelivery } from './outboxDelivery.js';
import { renderSms, renderSmsCode } from './smsMessages.js';
import { oneTimeCode } from '../recipients/oneTimeCodes.js';
import { OPTED_OUT_REASON, textRefusedForOptOut } from '../recipients/smsOptOut.js';
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
      // A number that opted out is never texted (docs/api.md#opting-out-of-text-messages): what the
      // text carried goes by e-mail instead, and the message is done, unsent.
      const optOut = await services.smsNumbers.currentOptOut(message.to);
      if (optOut !== null) {
        await textRefusedForOptOut(services, { ownerId: batch.ownerId, batchId: batch.id, message, optOut, now: new Date(), ...(delivery.log === undefined ? {} : { log: delivery.log }) });
        return { notSent: OPTED_OUT_REASON };
      }
      const text = await textOf(services, batch.ownerId, message);
      const firstAttempt = batch.firstAttempts[pointer.index];
      const { messageId } = await transport.send({
        id,
        to: message.to,
        text,
        repeatabilityRequestId: operationIdOf(id),
        repeatabilityFirstSent: new Date(firstAttempt ?? Date.now()),
      });
      // Its delivery report names the text by this id: it must find the recipient (docs/api.md#lastsms).
      await services.smsNumbers.recordAccepted(messageId, { ownerId: batch.ownerId, envelopeId: message.envelopeId, recipientId: message.recipientId, batchId: batch.id, to: message.to }, new Date());
      return undefined;
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

/**
 * The words of the text: a one-time code derived from its salt (`recipients/oneTimeCodes.ts`), or the
 * signing link, recorded before the text that carries it can reach anyone.
 */
async function textOf(services: Services, ownerId: string, message: SmsMessage): Promise<string> {
  if (message.type === 'otp') {
    if (message.otpSalt === undefined) throw new Error(`the one-time code text of recipient ${message.recipientId} has no salt`);
    return renderSmsCode(message, oneTimeCode(services.config.jwt.secret, message.otpSalt));
  }
  if (message.linkSalt === null) throw new Error(`the ${message.type} text of recipient ${message.recipientId} has no link salt`);
  return renderSms(message, await recordedSigningLink(services, ownerId, { ...message, linkSalt: message.linkSalt }));
}
