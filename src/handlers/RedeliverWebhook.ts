/**
 * The handler of `RedeliverWebhook` (POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver).
 * Registered in `src/functions/RedeliverWebhook.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { redeliver } from '../lib/notifications/webhooks/redeliver.js';
import { organizationWebhookPartition } from '../lib/notifications/webhooks/organizationWebhooks.js';
import { getServices } from '../lib/services.js';

export async function redeliverOwnWebhook(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const webhookId = request.params.id ?? '';
  await redeliver({ services, ownerId: await organizationWebhookPartition(services, caller.organizationId), webhookId, deliveryId: request.params.deliveryId ?? '' });
  return withStandardHeaders({ status: 202, headers: { Location: `/api/webhooks/${webhookId}/deliveries` } });
}
