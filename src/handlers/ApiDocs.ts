/**
 * The handler of `ApiDocs` (GET /api/docs).
 * Registered in `src/functions/ApiDocs.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { DOCS_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getApiDocs(): Promise<HttpResponseInit> {
  return await staticFileResponse(DOCS_PAGE, contentSecurityPolicy());
}
