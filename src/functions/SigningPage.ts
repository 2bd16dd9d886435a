/**
 * GET /api/sign: the signing page (src/web/sign, docs/pages.md). The recipient's link is
 * `<PUBLIC_BASE_URL>/api/sign#<token>`: the token stays in the fragment, which browsers never send, so
 * this request carries nothing secret; the page's script reads it and sends it only as the bearer
 * token of `/api/signing`. Its policy lets it read the document and the sealed PDF from Blob storage.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/SigningPage.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('SigningPage', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'sign',
  access: 'public',
  loadHandler: async () => (await import('../handlers/SigningPage.js')).getSigningPage,
});
