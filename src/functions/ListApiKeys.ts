/**
 * GET /api/apikeys (docs/api.md#api-keys): the caller's API keys, newest first, never the keys themselves.
 * Only an owner's access token may call it: an API key gets 403 `jwt-required`.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListApiKeys.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListApiKeys', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'apikeys',
  access: 'jwt',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/ListApiKeys.js')).listOwnApiKeys,
});
