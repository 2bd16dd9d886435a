/**
 * GET /api/organization/purges (docs/api.md#the-purge-log): the purge log of the caller's organization,
 * newest first, paged; admin or owner.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListPurges.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListPurges', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'organization/purges',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/ListPurges.js')).listOrganizationPurges,
});
