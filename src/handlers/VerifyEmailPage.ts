/**
 * The handler of `VerifyEmailPage` (GET /api/verify-email).
 * Registered in `src/functions/VerifyEmailPage.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { VERIFY_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getVerifyEmailPage(): Promise<HttpResponseInit> {
  return await staticFileResponse(VERIFY_PAGE, contentSecurityPolicy());
}
