/**
 * POST /api/VerifyEmail `{token}`: marks the owner's address verified (the token of the link Register
 * or ResendVerification e-mailed; `src/lib/auth/emailVerification.ts`). Public: the token is the proof.
 *
 * Its handler loads on the function's first invocation: `src/handlers/VerifyEmail.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('VerifyEmail', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'VerifyEmail',
  access: 'public',
  loadHandler: async () => (await import('../handlers/VerifyEmail.js')).verifyEmailAddress,
});
