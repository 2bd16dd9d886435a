/** GET /api/docs: the API reference, Swagger UI rendering /api/openapi.json, served from the service itself (src/lib/web/pages.ts). */
import type { HttpResponseInit } from '@azure/functions';
import { httpFunction } from '../lib/http/register.js';
import { DOCS_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getApiDocs(): Promise<HttpResponseInit> {
  return await staticFileResponse(DOCS_PAGE, contentSecurityPolicy());
}

httpFunction('ApiDocs', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'docs',
  access: 'public',
  handler: getApiDocs,
});
