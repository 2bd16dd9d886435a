/**
 * GET /api/docs: the API reference, Swagger UI rendering /api/openapi.json, served from the service itself (src/lib/web/pages.ts).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ApiDocs.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ApiDocs', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'docs',
  access: 'public',
  loadHandler: async () => (await import('../handlers/ApiDocs.js')).getApiDocs,
});
