/**
 * GET /api/templates (docs/api.md#templates): the templates of the organisation the caller may read (a sender's own and those shared with the organisation; all for admins, the owner and viewers), newest first, paged as envelopes are.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListTemplates.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListTemplates', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'templates',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/ListTemplates.js')).listOwnTemplates,
});
