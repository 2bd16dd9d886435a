/**
 * GET /api/signing (docs/api.md#the-recipients-api): the recipient's view of its envelope; the first read by an invited recipient marks it opened.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/GetSigningView.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetSigningView', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'signing',
  access: 'signing',
  // The way to authenticate: it runs before the recipient entered its code (a locked link is still 423).
  signingAuthentication: 'before',
  loadHandler: async () => (await import('../handlers/GetSigningView.js')).getSigningView,
});
