/** GET /api/webhooks/{id}/deliveries (CONTRACT §12.2): the newest 100 attempts, newest first. */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { httpFunction } from '../lib/http/register.js';
import { json } from '../lib/http/respond.js';
import { listDeliveries } from '../lib/notifications/webhooks/list.js';
import { getServices } from '../lib/services.js';

export async function listOwnWebhookDeliveries(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, await listDeliveries({ services: getServices(), ownerId: caller.userId, webhookId: request.params.id ?? '' }), { noStore: true });
}

httpFunction('ListWebhookDeliveries', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'webhooks/{id}/deliveries',
  access: 'bearer',
  handler: listOwnWebhookDeliveries,
});
