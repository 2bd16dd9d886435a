/**
 * POST /api/public/{publicId}/verify (docs/api.md#public-links): the e-mailed code, then the signing
 * URL of the person's envelope (made from the template, sent, or the one it already has).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/VerifyPublicLink.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('VerifyPublicLink', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'public/{publicId}/verify',
  access: 'public',
  loadHandler: async () => (await import('../handlers/VerifyPublicLink.js')).verifyPublicLinkHandler,
});
