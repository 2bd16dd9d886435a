/**
 * GET /api/templates/{id} (docs/api.md#templates): one template, with a 15-minute read URL of its document.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetTemplate.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetTemplate', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'templates/{id}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/GetTemplate.js')).getOwnTemplate,
});
