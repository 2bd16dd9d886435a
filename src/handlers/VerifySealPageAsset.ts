/**
 * The handler of `VerifySealPageAsset` (GET /api/verify/assets/{file}).
 * Registered in `src/functions/VerifySealPageAsset.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { allowedAsset, contentSecurityPolicy, staticFileResponse, verifySealPageAssets } from '../lib/web/pages.js';

export async function getVerifySealPageAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(verifySealPageAssets(), request.params.file ?? ''), contentSecurityPolicy(), request);
}
