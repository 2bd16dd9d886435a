/**
 * GET /api/bulk (docs/api.md#bulk-send): the bulk jobs the caller sees (a sender its own, everyone else the organisation's), newest first, paged as envelopes are.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListBulkJobs.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListBulkJobs', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'bulk',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/ListBulkJobs.js')).listBulkJobsHandler,
});
