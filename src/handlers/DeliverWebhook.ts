/**
 * The handler of `DeliverWebhook` (queue trigger on `webhook-deliveries`).
 * Registered in `src/functions/DeliverWebhook.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext } from '@azure/functions';
import { deliverAttempt } from '../lib/notifications/webhooks/deliver.js';
import { decodeDeliveryMessage } from '../lib/notifications/webhooks/model.js';
import { getBackgroundServices } from '../lib/services.js';

export async function deliverWebhook(entry: unknown, context: InvocationContext): Promise<void> {
  const outcome = await deliverAttempt(getBackgroundServices(), decodeDeliveryMessage(entry), { log: (message) => context.log(message) });
  if (outcome.kind === 'attempted') context.debug(`Webhook attempt ${outcome.attempt.id}: ${outcome.attempt.outcome}.`);
}
