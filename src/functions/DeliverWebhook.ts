/**
 * Queue trigger on `webhook-deliveries` (docs/api.md#webhooks): each message is one attempt to deliver one
 * event to one webhook (or a redelivery); `deliverAttempt` makes it, logs it, and queues the next
 * attempt after the next delay of `WEBHOOK_RETRY_SECONDS` when it failed. A receiver's failure is an
 * outcome, never a throw; a throw (a storage fault) makes the host retry the message.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeliverWebhook.ts`.
 */
import { QUEUES } from '../lib/storage/queues.js';
import { queueFunction } from '../lib/triggers/register.js';

queueFunction('DeliverWebhook', {
  queueName: QUEUES.webhookDeliveries,
  loadHandler: async () => (await import('../handlers/DeliverWebhook.js')).deliverWebhook,
});
