/**
 * POST /api/apikeys (docs/api.md#api-keys): a new API key, answered with the key itself (the only time).
 * Only an owner's access token may call it: an API key gets 403 `jwt-required`.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CreateApiKey.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CreateApiKey', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'apikeys',
  access: 'jwt',
  roles: ['owner', 'admin', 'sender'],
  // The answer holds the new key: it refuses Idempotency-Key, so the key is never kept in storage.
  answerHoldsSecret: true,
  loadHandler: async () => (await import('../handlers/CreateApiKey.js')).createOwnApiKey,
});
