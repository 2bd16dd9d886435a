/**
 * The handler of `SigningPage` (GET /api/sign).
 * Registered in `src/functions/SigningPage.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { getServices } from '../lib/services.js';
import { SIGN_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getSigningPage(): Promise<HttpResponseInit> {
  const blobOrigin = new URL(getServices().storage.blobService.url).origin;
  return await staticFileResponse(SIGN_PAGE, contentSecurityPolicy(blobOrigin));
}
