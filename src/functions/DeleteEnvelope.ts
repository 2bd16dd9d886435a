/**
 * DELETE /api/envelopes/{id} (docs/api.md#delete-an-envelope-or-purge-its-documents): 204 for a draft deleted or a finished envelope purged;
 * 409 for a sent one; 404 for a missing one or another owner's.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/DeleteEnvelope.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('DeleteEnvelope', {
  methods: ['DELETE'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  loadHandler: async () => (await import('../handlers/DeleteEnvelope.js')).deleteOwnEnvelope,
});
