/**
 * DELETE /api/apikeys/{id} (docs/api.md#api-keys): 204, or 404 for a key the caller does not have.
 * Only an owner's access token may call it: an API key gets 403 `jwt-required`.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeleteApiKey.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeleteApiKey', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'apikeys/{id}',
  access: 'jwt',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/DeleteApiKey.js')).deleteOwnApiKey,
});
