/**
 * GET /api/webhooks (docs/api.md#webhooks): the caller's webhooks, without secrets.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListWebhooks.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListWebhooks', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'webhooks',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/ListWebhooks.js')).listOwnWebhooks,
});
