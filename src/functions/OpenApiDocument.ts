/**
 * GET /api/openapi.json: the OpenAPI 3.1 document of the service, generated from its zod schemas (src/lib/openapi/document.ts).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/OpenApiDocument.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('OpenApiDocument', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'openapi.json',
  access: 'public',
  loadHandler: async () => (await import('../handlers/OpenApiDocument.js')).getOpenApiDocument,
});
