/**
 * GET /api/log/key: the public JWK of the log key that signs the tree heads (docs/api.md#signed-tree-heads).
 * Public on purpose (docs/api.md#public-log): the log holds hashes only, and anyone must be able to
 * check it without an account. No request limit, like `GET /api/verify/{sha256}`: each answer costs
 * O(log n) point reads.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetLogKey.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetLogKey', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'log/key',
  access: 'public',
  loadHandler: async () => (await import('../handlers/GetLogKey.js')).getLogKey,
});
