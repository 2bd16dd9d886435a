/**
 * GET /api/disclosure: the disclosure about electronic records and signatures that a recipient
 * agrees to with `consent: true` (`src/lib/recipients/consent.ts`). Public: the signing page shows it
 * word for word before asking for consent.
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
