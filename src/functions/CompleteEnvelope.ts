/**
 * POST /api/envelopes/{id}/complete (docs/api.md#what-completion-does): flatten, certify, seal.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CompleteEnvelope.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CompleteEnvelope', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/complete',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/CompleteEnvelope.js')).completeOwnEnvelope,
});
