/** GET /api/webhooks (CONTRACT §12.2): the caller's webhooks, without secrets. */
import type { HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { httpFunction } from '../lib/http/register.js';
import { json } from '../lib/http/respond.js';
import { listWebhooks } from '../lib/notifications/webhooks/list.js';
import { getServices } from '../lib/services.js';

export async function listOwnWebhooks(_request: unknown, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, await listWebhooks({ services: getServices(), ownerId: caller.userId }), { noStore: true });
}

httpFunction('ListWebhooks', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'webhooks',
  access: 'bearer',
  handler: listOwnWebhooks,
});
