/**
 * The handler of `ListWebhookDeliveries` (GET /api/webhooks/{id}/deliveries).
 * Registered in `src/functions/ListWebhookDeliveries.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { listDeliveries } from '../lib/notifications/webhooks/list.js';
import { organizationWebhookPartition } from '../lib/notifications/webhooks/organizationWebhooks.js';
import { getServices } from '../lib/services.js';

export async function listOwnWebhookDeliveries(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  return json(200, await listDeliveries({ services, ownerId: await organizationWebhookPartition(services, caller.organizationId), webhookId: request.params.id ?? '' }), { noStore: true });
}
