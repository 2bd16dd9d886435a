/**
 * PUT and PATCH /api/envelopes/{id} (spec §4, CONTRACT §3, §5, §11): signers, fields, settings and status; both methods behave the same.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/UpdateEnvelope.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('UpdateEnvelope', {
  methods: ['PUT', 'PATCH'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}',
  access: 'bearer',
  loadHandler: async () => (await import('../handlers/UpdateEnvelope.js')).updateOwnEnvelope,
});
