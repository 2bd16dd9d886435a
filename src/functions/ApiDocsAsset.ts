/**
 * GET /api/docs/{file}: Swagger UI's script and style sheet, and the page's own, from an allow-list (src/lib/web/pages.ts).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ApiDocsAsset.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ApiDocsAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'docs/{file}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/ApiDocsAsset.js')).getApiDocsAsset,
});
