/**
 * POST /api/ResendVerification: e-mails the owner a new verification link, at most once a minute
 * (counting the one Register sent); 409 once verified.
 *
 * Its handler loads on the function's first invocation: `src/handlers/ResendVerification.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ResendVerification', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'ResendVerification',
  access: 'bearer',
  roles: ['owner', 'admin', 'sender', 'viewer'],
  answerHoldsSecret: false,
  loadHandler: async () => (await import('../handlers/ResendVerification.js')).resendVerificationEmail,
});
