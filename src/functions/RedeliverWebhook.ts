/**
 * POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver (CONTRACT §12.2): 202, the event of that
 * attempt is sent again with the same `webhook-id`, as a new attempt in the log.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { httpFunction } from '../lib/http/register.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { redeliver } from '../lib/notifications/webhooks/redeliver.js';
import { getServices } from '../lib/services.js';

export async function redeliverOwnWebhook(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const webhookId = request.params.id ?? '';
  await redeliver({ services: getServices(), ownerId: caller.userId, webhookId, deliveryId: request.params.deliveryId ?? '' });
  return withStandardHeaders({ status: 202, headers: { Location: `/api/webhooks/${webhookId}/deliveries` } });
}

httpFunction('RedeliverWebhook', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'webhooks/{id}/deliveries/{deliveryId}/redeliver',
  access: 'bearer',
  handler: redeliverOwnWebhook,
});
