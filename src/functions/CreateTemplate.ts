/**
 * POST /api/templates (docs/api.md#templates): a new draft template and a SAS URL to upload its PDF.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CreateTemplate.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CreateTemplate', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'templates',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  // A retry after a crash finishes the one creation or replays its answer (docs/api.md#idempotency).
  idempotency: 'resumable',
  loadHandler: async () => (await import('../handlers/CreateTemplate.js')).createOwnTemplate,
});
