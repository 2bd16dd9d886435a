/**
 * GET /api/bulk/{id}/rows (docs/api.md#bulk-send): a bulk job's rows, 100 a page, each with its status, envelope or error.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ListBulkJobRows.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ListBulkJobRows', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'bulk/{id}/rows',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  loadHandler: async () => (await import('../handlers/ListBulkJobRows.js')).listBulkJobRows,
});
