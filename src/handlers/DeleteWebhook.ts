/**
 * The handler of `DeleteWebhook` (DELETE /api/webhooks/{id}).
 * Registered in `src/functions/DeleteWebhook.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { deleteWebhook } from '../lib/notifications/webhooks/remove.js';
import { organizationWebhookPartition } from '../lib/notifications/webhooks/organizationWebhooks.js';
import { getServices } from '../lib/services.js';

export async function deleteOwnWebhook(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  await deleteWebhook({ services, ownerId: await organizationWebhookPartition(services, caller.organizationId), webhookId: request.params.id ?? '', log: (message) => context.warn(message) });
  return withStandardHeaders({ status: 204 });
}
