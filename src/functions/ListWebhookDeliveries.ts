/**
 * GET /api/webhooks/{id}/deliveries (docs/api.md#webhooks): the newest 100 attempts, newest first.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListWebhookDeliveries.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListWebhookDeliveries', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'webhooks/{id}/deliveries',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/ListWebhookDeliveries.js')).listOwnWebhookDeliveries,
});
