/**
 * GET /api/bulk/{id} (docs/api.md#bulk-send): a bulk job's status and counts (a sender's own jobs; every job of the organisation for admins, the owner and viewers).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetBulkJob.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetBulkJob', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'bulk/{id}',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/GetBulkJob.js')).getBulkJob,
});
