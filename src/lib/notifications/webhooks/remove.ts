/**
 * Deleting a webhook (docs/api.md#webhooks, `DELETE /api/webhooks/{id}`).
 */
import type { Services } from '../../services.js';
import { readOwnedWebhook, webhookNotFound } from './views.js';

/**
 * Deletes the organisation's webhook (`ownerId`: its partition, `organizationWebhooks.ts`), and the row it was copied from, then its deliveries and log. Attempts already queued find the webhook
 * gone and are dropped. A failure while deleting the log leaves rows nobody can reach (they are
 * keyed by the deleted webhook's id); it is logged, not answered.
 * @throws AppError 404 `webhook-not-found` (also for another owner's webhook, and for one deleted concurrently)
 */
export async function deleteWebhook({
  services,
  ownerId,
  webhookId,
  log = console.warn,
}: {
  services: Pick<Services, 'webhooks' | 'webhookDeliveries'>;
  ownerId: string;
  webhookId: string;
  log?: (message: string) => void;
}): Promise<void> {
  const webhook = await readOwnedWebhook(services.webhooks, ownerId, webhookId);
  if (!(await services.webhooks.delete(ownerId, webhook.id))) throw webhookNotFound();
  // The row it was copied from before organisations (docs/architecture.md#tables): attempts queued
  // before the copy find it gone, and are dropped like those of the copy.
  if (webhook.migratedFrom != null) await services.webhooks.delete(webhook.migratedFrom, webhook.id);
  try {
    await services.webhookDeliveries.deleteAll(webhook.id);
  } catch (error) {
    log(`The deliveries of deleted webhook ${webhook.id} were not all deleted: ${error instanceof Error ? error.message : String(error)}`);
  }
}
