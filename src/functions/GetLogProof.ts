/**
 * GET /api/log/proof: the inclusion proof of a leaf of the public log (docs/api.md#get-an-inclusion-proof).
 * Public on purpose (docs/api.md#public-log): the log holds hashes only, and anyone must be able to
 * check it without an account. No request limit, like `GET /api/verify/{sha256}`: each answer costs
 * O(log n) point reads.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetLogProof.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetLogProof', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'log/proof',
  access: 'public',
  loadHandler: async () => (await import('../handlers/GetLogProof.js')).getLogProof,
});
