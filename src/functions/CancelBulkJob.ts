/**
 * POST /api/bulk/{id}/cancel (docs/api.md#bulk-send): cancels a queued or running bulk job: no row is started after it.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/CancelBulkJob.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('CancelBulkJob', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'bulk/{id}/cancel',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/CancelBulkJob.js')).cancelBulkJobHandler,
});
