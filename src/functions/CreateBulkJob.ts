/**
 * POST /api/templates/{id}/bulk (docs/api.md#bulk-send): a bulk send from an active template, rows as JSON or CSV, every row checked before the job is queued.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CreateBulkJob.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CreateBulkJob', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'templates/{id}/bulk',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  // A retry after a crash writes the same job (its id derives from the key's claim) or answers it (docs/api.md#idempotency).
  idempotency: 'resumable',
  loadHandler: async () => (await import('../handlers/CreateBulkJob.js')).createBulkJobHandler,
});
