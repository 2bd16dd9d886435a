/**
 * GET /api/verify-email: the page a verification link opens. It reads the token from the fragment
 * and posts it to `POST /api/VerifyEmail`. Its script and styles: `VerifyEmailPageAsset`.
 *
 * Its handler loads on the function's first invocation: `src/handlers/VerifyEmailPage.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('VerifyEmailPage', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'verify-email',
  access: 'public',
  loadHandler: async () => (await import('../handlers/VerifyEmailPage.js')).getVerifyEmailPage,
});

