/**
 * GET /api/health (README.md#quick-start): 200 when Table and Blob storage answer (`degraded` with reasons while the last seal failed for its timestamp authority or revocation sources), 503 otherwise.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/Health.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('Health', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'health',
  access: 'public',
  loadHandler: async () => (await import('../handlers/Health.js')).health,
});
