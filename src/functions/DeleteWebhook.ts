/**
 * DELETE /api/webhooks/{id} (docs/api.md#webhooks): 204, or 404 for a webhook the caller does not have.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeleteWebhook.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeleteWebhook', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'webhooks/{id}',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/DeleteWebhook.js')).deleteOwnWebhook,
});
