/**
 * GET /api/disclosure[?locale=] (docs/api.md#consent-to-electronic-signatures): the service's own
 * disclosure about electronic records and signatures in a supported locale (`src/lib/i18n/disclosure.ts`),
 * English by default. Public. A recipient agrees to its organisation's text for its locale when the
 * organisation set one, which `GET /api/signing/disclosure` gives.
 *
 * Its handler loads on the function's first invocation: `src/handlers/GetDisclosure.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('GetDisclosure', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'disclosure',
  access: 'public',
  loadHandler: async () => (await import('../handlers/GetDisclosure.js')).getDisclosure,
});
