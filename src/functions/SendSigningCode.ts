/**
 * POST /api/signing/otp (docs/api.md#signer-authentication): e-mails a recipient with `emailOtp` authentication a 6-digit one-time code.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/SendSigningCode.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('SendSigningCode', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'signing/otp',
  access: 'signing',
  // The way to authenticate: it runs before the recipient entered its code (a locked link is still 423).
  signingAuthentication: 'before',
  loadHandler: async () => (await import('../handlers/SendSigningCode.js')).sendSigningCode,
});
