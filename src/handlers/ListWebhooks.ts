/**
 * The handler of `ListWebhooks` (GET /api/webhooks).
 * Registered in `src/functions/ListWebhooks.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { listWebhooks } from '../lib/notifications/webhooks/list.js';
import { organizationWebhookPartition } from '../lib/notifications/webhooks/organizationWebhooks.js';
import { getServices } from '../lib/services.js';

export async function listOwnWebhooks(_request: unknown, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  return json(200, await listWebhooks({ services, ownerId: await organizationWebhookPartition(services, caller.organizationId) }), { noStore: true });
}
