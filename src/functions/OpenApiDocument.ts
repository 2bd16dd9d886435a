/** GET /api/openapi.json: the OpenAPI 3.1 document of the service, generated from its zod schemas (src/lib/openapi/document.ts). */
import type { HttpResponseInit } from '@azure/functions';
import { httpFunction } from '../lib/http/register.js';
import { json } from '../lib/http/respond.js';

let document: Record<string, unknown> | undefined;

export async function getOpenApiDocument(): Promise<HttpResponseInit> {
  // The generator (zod-to-openapi) loads on the first request for the document, not at every cold start.
  document ??= (await import('../lib/openapi/document.js')).buildOpenApiDocument();
  return json(200, document, { headers: { 'Cache-Control': 'no-cache' } });
}

httpFunction('OpenApiDocument', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'openapi.json',
  access: 'public',
  handler: getOpenApiDocument,
});
