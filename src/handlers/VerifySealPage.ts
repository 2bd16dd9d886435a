/**
 * The handler of `VerifySealPage` (GET /api/verify).
 * Registered in `src/functions/VerifySealPage.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { VERIFY_SEAL_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getVerifySealPage(): Promise<HttpResponseInit> {
  return await staticFileResponse(VERIFY_SEAL_PAGE, contentSecurityPolicy());
}
