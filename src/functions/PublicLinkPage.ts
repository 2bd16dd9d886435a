/**
 * GET /api/sign/t/{publicId}: the page of a template's public link (src/web/sign/publicLink.js,
 * docs/pages.md, docs/api.md#public-links): name and e-mail address, then the e-mailed code, then on
 * to the signing page. A link that does not answer (disabled, unknown) gets the page's 404.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/PublicLinkPage.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('PublicLinkPage', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'sign/t/{publicId}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/PublicLinkPage.js')).getPublicLinkPage,
});
