/**
 * PATCH /api/organization/members/{userId} (docs/api.md#members).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UpdateMember.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UpdateMember', {
  methods: ['PATCH'],
  authLevel: 'anonymous',
  route: 'organization/members/{userId}',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/UpdateMember.js')).updateOrganizationMember,
});
