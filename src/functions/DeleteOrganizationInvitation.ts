/**
 * DELETE /api/organization/invitations/{id} (docs/api.md#invitations-to-an-organization).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeleteOrganizationInvitation.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeleteOrganizationInvitation', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'organization/invitations/{id}',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/DeleteOrganizationInvitation.js')).deleteInvitation,
});
