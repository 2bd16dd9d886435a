/**
 * GET /api/verify/assets/{file}: the verify page's script and styles, PDF.js, the signing page's languages
 * it speaks (`i18n.js`, catalogues, fonts), and the verifier's modules (`VerifySealPage`;
 * src/lib/web/pages.ts). Two segments, so it never meets
 * `GET /api/verify/{sha256}` (`VerifySeal`).
 *
 * Its handler loads on the function's first invocation: `src/handlers/VerifySealPageAsset.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('VerifySealPageAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'verify/assets/{file}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/VerifySealPageAsset.js')).getVerifySealPageAsset,
});
