/**
 * PATCH /api/organization (docs/api.md#organizations).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UpdateOrganization.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UpdateOrganization', {
  methods: ['PATCH'],
  authLevel: 'anonymous',
  route: 'organization',
  access: 'bearer',
  roles: ['owner', 'admin'],
  loadHandler: async () => (await import('../handlers/UpdateOrganization.js')).updateOwnOrganization,
});
