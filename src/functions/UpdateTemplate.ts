/**
 * PUT and PATCH /api/templates/{id} (docs/api.md#templates): name, roles, fields by role, settings, activation; both methods behave the same.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UpdateTemplate.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UpdateTemplate', {
  methods: ['PUT', 'PATCH'],
  authLevel: 'anonymous',
  route: 'templates/{id}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/UpdateTemplate.js')).updateOwnTemplate,
});
