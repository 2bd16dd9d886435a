/**
 * GET /api/envelopes/{id} (docs/api.md#the-envelope).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetEnvelope.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetEnvelope', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/GetEnvelope.js')).getEnvelope,
});
