/**
 * The handler of `SigningPageAsset` (GET /api/sign/{file}).
 * Registered in `src/functions/SigningPageAsset.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { SIGN_ASSETS, allowedAsset, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getSigningPageAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(SIGN_ASSETS, request.params.file ?? ''), contentSecurityPolicy(), request);
}
