/**
 * GET /api/envelopes (docs/api.md#list-envelopes): the caller's envelopes, newest first, paged with a Link header.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListEnvelopes.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListEnvelopes', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'envelopes',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/ListEnvelopes.js')).listOwnEnvelopes,
});
