/**
 * GET /api/signing/disclosure (docs/api.md#consent-to-electronic-signatures): the disclosure the
 * recipient is shown above its consent box and agrees to, in the language asked for (`?locale=`, the
 * page's language) or its own: its organisation's text for that locale, else the service's.
 *
 * Its handler loads on the function's first invocation: `src/handlers/GetSigningDisclosure.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetSigningDisclosure', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'signing/disclosure',
  access: 'signing',
  loadHandler: async () => (await import('../handlers/GetSigningDisclosure.js')).getSigningDisclosure,
});
