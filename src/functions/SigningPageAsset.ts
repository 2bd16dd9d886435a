/**
 * GET /api/sign/{file}: the signing page's script and styles, PDF.js and its worker, the drawing pad
 * and the handwriting font, from an allow-list (src/lib/web/pages.ts).
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { httpFunction } from '../lib/http/register.js';
import { SIGN_ASSETS, allowedAsset, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getSigningPageAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(SIGN_ASSETS, request.params.file ?? ''), contentSecurityPolicy(), request);
}

httpFunction('SigningPageAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'sign/{file}',
  access: 'public',
  handler: getSigningPageAsset,
});
