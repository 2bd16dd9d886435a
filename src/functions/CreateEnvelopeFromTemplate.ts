/**
 * POST /api/templates/{id}/envelopes (docs/api.md#templates): an envelope from an active template, one recipient per role, sent at once unless `send` is false.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CreateEnvelopeFromTemplate.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CreateEnvelopeFromTemplate', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'templates/{id}/envelopes',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  // A retry after a crash finishes the one creation or replays its answer (docs/api.md#idempotency).
  idempotency: 'resumable',
  loadHandler: async () => (await import('../handlers/CreateEnvelopeFromTemplate.js')).createEnvelopeFromTemplate,
});
