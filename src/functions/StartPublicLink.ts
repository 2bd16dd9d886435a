/**
 * POST /api/public/{publicId}/start (docs/api.md#public-links): a name and an e-mail address for a
 * template's public link; the address is e-mailed a 6-digit code. No credential: the link is the
 * capability, limited per client address, address, day and link.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/StartPublicLink.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('StartPublicLink', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'public/{publicId}/start',
  access: 'public',
  loadHandler: async () => (await import('../handlers/StartPublicLink.js')).startPublicLinkHandler,
});
