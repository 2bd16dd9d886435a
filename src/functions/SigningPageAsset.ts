/**
 * GET /api/sign/{file}: the signing page's script and styles, PDF.js and its worker, the drawing pad
 * and the handwriting font, from an allow-list (src/lib/web/pages.ts).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/SigningPageAsset.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('SigningPageAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'sign/{file}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/SigningPageAsset.js')).getSigningPageAsset,
});
