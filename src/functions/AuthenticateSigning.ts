/**
 * POST /api/signing/authenticate (docs/api.md#signer-authentication): a recipient enters its access code or one-time code.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/AuthenticateSigning.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('AuthenticateSigning', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'signing/authenticate',
  access: 'signing',
  // The way to authenticate: it runs before the recipient entered its code (a locked link is still 423).
  signingAuthentication: 'before',
  loadHandler: async () => (await import('../handlers/AuthenticateSigning.js')).authenticateSigning,
});
