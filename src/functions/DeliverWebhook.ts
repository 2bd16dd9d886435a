/**
 * Queue trigger on `webhook-deliveries` (CONTRACT §12.2): each message is one attempt to deliver one
 * event to one webhook (or a redelivery); `deliverAttempt` makes it, logs it, and queues the next
 * attempt after the next delay of `WEBHOOK_RETRY_SECONDS` when it failed. A receiver's failure is an
 * outcome, never a throw; a throw (a storage fault) makes the host retry the message.
 */
import type { InvocationContext } from '@azure/functions';
import { deliverAttempt } from '../lib/notifications/webhooks/deliver.js';
import { decodeDeliveryMessage } from '../lib/notifications/webhooks/model.js';
import { getServices } from '../lib/services.js';
import { QUEUES } from '../lib/storage/clients.js';
import { queueFunction } from '../lib/triggers/register.js';

export async function deliverWebhook(entry: unknown, context: InvocationContext): Promise<void> {
  const outcome = await deliverAttempt(getServices(), decodeDeliveryMessage(entry), { log: (message) => context.log(message) });
  if (outcome.kind === 'attempted') context.debug(`Webhook attempt ${outcome.attempt.id}: ${outcome.attempt.outcome}.`);
}

queueFunction('DeliverWebhook', {
  queueName: QUEUES.webhookDeliveries,
  handler: deliverWebhook,
});
