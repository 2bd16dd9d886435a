/**
 * Queue trigger on `outbox-events` (CONTRACT §12.2): each message points at one webhook event of an
 * outbox batch (`{ownerId, batchId, index}`, base64 JSON); `fanOutEvent` creates one delivery per
 * webhook of the owner that subscribes to the event and queues its first attempt on
 * `webhook-deliveries`. A throw (a storage fault) makes the host retry the message; after 5 dequeues
 * it moves to `outbox-events-poison`.
 */
import type { InvocationContext } from '@azure/functions';
import { decodeEventPointer, fanOutEvent } from '../lib/notifications/webhooks/fanOut.js';
import { getServices } from '../lib/services.js';
import { QUEUES } from '../lib/storage/clients.js';
import { queueFunction } from '../lib/triggers/register.js';

export async function fanOutWebhookEvent(entry: unknown, context: InvocationContext): Promise<void> {
  const result = await fanOutEvent(getServices(), decodeEventPointer(entry), {
    dequeueCount: Number(context.triggerMetadata?.dequeueCount ?? 1),
    log: (message) => context.log(message),
  });
  if (result.kind === 'fanned-out') context.debug(`Event ${result.eventId} queued for ${result.webhookIds.length} webhook(s).`);
}

queueFunction('FanOutWebhookEvent', {
  queueName: QUEUES.events,
  handler: fanOutWebhookEvent,
});
