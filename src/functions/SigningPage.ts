/**
 * GET /api/sign: the signing page (src/web/sign, CONTRACT §13). The recipient's link is
 * `<PUBLIC_BASE_URL>/api/sign#<token>`: the token stays in the fragment, which browsers never send, so
 * this request carries nothing secret; the page's script reads it and sends it only as the bearer
 * token of `/api/signing`. Its policy lets it read the document and the sealed PDF from Blob storage.
 */
import type { HttpResponseInit } from '@azure/functions';
import { httpFunction } from '../lib/http/register.js';
import { getServices } from '../lib/services.js';
import { SIGN_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getSigningPage(): Promise<HttpResponseInit> {
  const blobOrigin = new URL(getServices().storage.blobService.url).origin;
  return await staticFileResponse(SIGN_PAGE, contentSecurityPolicy(blobOrigin));
}

httpFunction('SigningPage', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'sign',
  access: 'public',
  handler: getSigningPage,
});
