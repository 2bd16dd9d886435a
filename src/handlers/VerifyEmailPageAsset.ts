/**
 * The handler of `VerifyEmailPageAsset` (GET /api/verify-email/{file}).
 * Registered in `src/functions/VerifyEmailPageAsset.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { VERIFY_ASSETS, allowedAsset, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getVerifyEmailPageAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(VERIFY_ASSETS, request.params.file ?? ''), contentSecurityPolicy(), request);
}
