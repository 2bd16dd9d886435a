/**
 * GET /api/log/sth: the newest signed tree head of the public log (docs/api.md#signed-tree-heads); on an empty log, a head of the empty tree, made now.
 * Public on purpose (docs/api.md#public-log): the log holds hashes only, and anyone must be able to
 * check it without an account. No request limit, like `GET /api/verify/{sha256}`: each answer costs
 * O(log n) point reads.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetLogHead.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetLogHead', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'log/sth',
  access: 'public',
  loadHandler: async () => (await import('../handlers/GetLogHead.js')).getLogHead,
});
