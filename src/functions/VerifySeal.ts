/**
 * GET /api/verify/{sha256} (docs/api.md#evidence): whether this service sealed the PDF with this SHA-256.
 * Public on purpose: whoever holds a sealed PDF can compute its hash, and the answer names only what is
 * printed on the PDF's own certificate page (envelope id, document name, completion time). A hash
 * cannot be guessed (2^256), so the endpoint reveals nothing to someone without the document.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/VerifySeal.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('VerifySeal', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'verify/{sha256}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/VerifySeal.js')).verifySeal,
});
