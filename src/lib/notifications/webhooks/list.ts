/**
 * Reading webhooks and their deliveries log (docs/api.md#webhooks: `GET /api/webhooks`,
 * `GET /api/webhooks/{id}/deliveries`).
 */
import type { Services } from '../../services.js';
import { DELIVERY_LOG_SIZE, type DeliveryAttemptView, type WebhookView } from './model.js';
import { readOwnedWebhook, toWebhookView } from './views.js';

/** The owner's webhooks, oldest first, without secrets. */
export async function listWebhooks({ services, ownerId }: { services: Pick<Services, 'webhooks'>; ownerId: string }): Promise<WebhookView[]> {
  return (await services.webhooks.list(ownerId)).map(toWebhookView);
}

/**
 * The newest {@link DELIVERY_LOG_SIZE} attempts of the owner's webhook, newest first.
 * @throws AppError 404 `webhook-not-found` (also for another owner's webhook)
 */
export async function listDeliveries({
  services,
  ownerId,
  webhookId,
}: {
  services: Pick<Services, 'webhooks' | 'webhookDeliveries'>;
  ownerId: string;
  webhookId: string;
}): Promise<DeliveryAttemptView[]> {
  const webhook = await readOwnedWebhook(services.webhooks, ownerId, webhookId);
  return await services.webhookDeliveries.listAttempts(webhook.id, DELIVERY_LOG_SIZE);
}
