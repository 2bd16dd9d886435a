/**
 * POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver (docs/api.md#webhooks): 202, the event of that
 * attempt is sent again with the same `webhook-id`, as a new attempt in the log.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/RedeliverWebhook.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('RedeliverWebhook', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'webhooks/{id}/deliveries/{deliveryId}/redeliver',
  access: 'bearer',
  roles: ['owner', 'admin'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/RedeliverWebhook.js')).redeliverOwnWebhook,
});
