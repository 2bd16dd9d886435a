/**
 * The handler of `CreateWebhook` (POST /api/webhooks).
 * Registered in `src/functions/CreateWebhook.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { createWebhook } from '../lib/notifications/webhooks/create.js';
import { createWebhookRequest } from '../lib/notifications/webhooks/schemas.js';
import { organizationWebhookPartition } from '../lib/notifications/webhooks/organizationWebhooks.js';
import { getServices } from '../lib/services.js';

export async function createOwnWebhook(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const body = await readJsonBody(request, createWebhookRequest);
  const created = await createWebhook({ services, ownerId: await organizationWebhookPartition(services, caller.organizationId), request: body });
  return json(201, created, { noStore: true });
}
