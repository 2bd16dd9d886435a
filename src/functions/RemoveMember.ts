/**
 * DELETE /api/organization/members/{userId} (docs/api.md#removing-a-member).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/RemoveMember.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('RemoveMember', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'organization/members/{userId}',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/RemoveMember.js')).removeOrganizationMember,
});
