/**
 * Redelivering an event (docs/api.md#webhooks, `POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver`):
 * the same event, with the same `webhook-id`, as one new attempt in the log, without automatic retries.
 */
import type { Services } from '../../services.js';
import { enqueueDelivery, newRedeliveryId } from './deliver.js';
import { readOwnedWebhook } from './views.js';
import { problem } from '../../problems.js';

/**
 * Queues a redelivery of the event of one attempt of the owner's webhook.
 * @returns the event id and the redelivery id the queue message carries
 * @throws AppError 404 `webhook-not-found` (also another owner's), 404 `delivery-not-found` when the
 *   webhook's log has no attempt with this id
 */
export async function redeliver({
  services,
  ownerId,
  webhookId,
  deliveryId,
}: {
  services: Pick<Services, 'webhooks' | 'webhookDeliveries' | 'storage'>;
  ownerId: string;
  webhookId: string;
  deliveryId: string;
}): Promise<{ eventId: string; redeliveryId: string }> {
  const webhook = await readOwnedWebhook(services.webhooks, ownerId, webhookId);
  const attempt = await services.webhookDeliveries.readAttempt(webhook.id, deliveryId);
  if (attempt === null || (await services.webhookDeliveries.read(webhook.id, attempt.eventId)) === null) {
    throw problem('deliveryNotFound');
  }
  const redeliveryId = newRedeliveryId();
  await enqueueDelivery(services.storage.queues.webhookDeliveries, { kind: 'redelivery', ownerId, webhookId: webhook.id, eventId: attempt.eventId, redeliveryId });
  return { eventId: attempt.eventId, redeliveryId };
}
