/** DELETE /api/webhooks/{id} (CONTRACT §12.2): 204, or 404 for a webhook the caller does not have. */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { httpFunction } from '../lib/http/register.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { deleteWebhook } from '../lib/notifications/webhooks/remove.js';
import { getServices } from '../lib/services.js';

export async function deleteOwnWebhook(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  await deleteWebhook({ services: getServices(), ownerId: caller.userId, webhookId: request.params.id ?? '', log: (message) => context.warn(message) });
  return withStandardHeaders({ status: 204 });
}

httpFunction('DeleteWebhook', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'webhooks/{id}',
  access: 'bearer',
  handler: deleteOwnWebhook,
});
