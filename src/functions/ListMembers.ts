/**
 * GET /api/organization/members (docs/api.md#members).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListMembers.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListMembers', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'organization/members',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/ListMembers.js')).listOrganizationMembers,
});
