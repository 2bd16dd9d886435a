/**
 * GET /api/organization (docs/api.md#organizations).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetOrganization.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetOrganization', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'organization',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/GetOrganization.js')).getOwnOrganization,
});
