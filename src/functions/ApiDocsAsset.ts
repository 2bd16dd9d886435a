/** GET /api/docs/{file}: Swagger UI's script and style sheet, and the page's own, from an allow-list (src/lib/web/pages.ts). */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { httpFunction } from '../lib/http/register.js';
import { DOCS_ASSETS, allowedAsset, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getApiDocsAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(DOCS_ASSETS, request.params.file ?? ''), contentSecurityPolicy(), request);
}

httpFunction('ApiDocsAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'docs/{file}',
  access: 'public',
  handler: getApiDocsAsset,
});
