/**
 * The handler of `ApiDocsAsset` (GET /api/docs/{file}).
 * Registered in `src/functions/ApiDocsAsset.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { DOCS_ASSETS, allowedAsset, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getApiDocsAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(DOCS_ASSETS, request.params.file ?? ''), contentSecurityPolicy(), request);
}
