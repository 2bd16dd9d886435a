/**
 * GET /api/organization/invitations (docs/api.md#invitations-to-an-organization).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListOrganizationInvitations.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListOrganizationInvitations', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'organization/invitations',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/ListOrganizationInvitations.js')).listInvitations,
});
