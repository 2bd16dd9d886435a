/**
 * GET /api/log/consistency: the consistency proof between two trees of the public log (docs/api.md#get-a-consistency-proof).
 * Public on purpose (docs/api.md#public-log): the log holds hashes only, and anyone must be able to
 * check it without an account. No request limit, like `GET /api/verify/{sha256}`: each answer costs
 * O(log n) point reads.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetLogConsistency.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetLogConsistency', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'log/consistency',
  access: 'public',
  loadHandler: async () => (await import('../handlers/GetLogConsistency.js')).getLogConsistency,
});
