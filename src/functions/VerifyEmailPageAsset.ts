/**
 * GET /api/verify-email/{file}: the script and styles of the verification page (`VerifyEmailPage`).
 *
 * Its handler loads on the function's first invocation: `src/handlers/VerifyEmailPageAsset.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('VerifyEmailPageAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'verify-email/{file}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/VerifyEmailPageAsset.js')).getVerifyEmailPageAsset,
});
