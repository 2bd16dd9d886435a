/**
 * GET /api/sign/v/{viewId}: the signing page of an embedded view (docs/api.md#embedded-signing), where the URL of
 * `POST /api/envelopes/{id}/recipients/{recipientId}/views` leads. The token stays in the fragment, as
 * on `/api/sign`; this request carries only the view's id, which is not secret. The page's
 * Content-Security-Policy `frame-ancestors` names the origins the view allows (`'none'` for an unknown
 * or expired view, as for every other page).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/EmbeddedSigningPage.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('EmbeddedSigningPage', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'sign/v/{viewId}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/EmbeddedSigningPage.js')).getEmbeddedSigningPage,
});
