/**
 * GET /api/envelopes/{id}/audit (docs/api.md#evidence): the envelope's audit events, oldest first.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetAuditTrail.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetAuditTrail', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/audit',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/GetAuditTrail.js')).getAuditTrail,
});
