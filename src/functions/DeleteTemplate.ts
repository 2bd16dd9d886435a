/**
 * DELETE /api/templates/{id} (docs/api.md#templates): deletes a draft or active template; envelopes made from it keep their own document.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeleteTemplate.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeleteTemplate', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'templates/{id}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/DeleteTemplate.js')).deleteOwnTemplate,
});
