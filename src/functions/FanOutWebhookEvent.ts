/**
 * Queue trigger on `outbox-events` (docs/api.md#webhooks): each message points at one webhook event of an
 * outbox batch (`{ownerId, batchId, index}`, base64 JSON); `fanOutEvent` creates one delivery per
 * webhook of the owner that subscribes to the event and queues its first attempt on
 * `webhook-deliveries`. A throw (a storage fault) makes the host retry the message; after 5 dequeues
 * it moves to `outbox-events-poison`.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/FanOutWebhookEvent.ts`.
 */
import { QUEUES } from '../lib/storage/queues.js';
import { queueFunction } from '../lib/triggers/register.js';

queueFunction('FanOutWebhookEvent', {
  queueName: QUEUES.events,
  loadHandler: async () => (await import('../handlers/FanOutWebhookEvent.js')).fanOutWebhookEvent,
});
