/**
 * GET /api/verify: the verify page (docs/evidence.md#the-verify-page). Anyone drops a sealed PDF on it
 * and reads the verifier's report, computed in the browser: the file is never uploaded. Its script,
 * styles and the verifier: `VerifySealPageAsset`.
 *
 * Its handler loads on the function's first invocation: `src/handlers/VerifySealPage.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('VerifySealPage', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'verify',
  access: 'public',
  loadHandler: async () => (await import('../handlers/VerifySealPage.js')).getVerifySealPage,
});
