/**
 * POST /api/webhooks (docs/api.md#webhooks): a new webhook, answered with its secret (the only time).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CreateWebhook.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CreateWebhook', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'webhooks',
  access: 'bearer',
  roles: ['owner', 'admin'],
  // The answer holds the signing secret: it refuses Idempotency-Key, so the secret is never kept in storage.
  answerHoldsSecret: true,
  loadHandler: async () => (await import('../handlers/CreateWebhook.js')).createOwnWebhook,
});
