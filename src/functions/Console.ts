/**
 * GET /api/console: a page to try the whole flow from a browser (src/web/console). Its policy lets it
 * connect to this origin and to Blob storage, where it uploads documents and downloads sealed PDFs.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/Console.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('Console', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'console',
  access: 'public',
  loadHandler: async () => (await import('../handlers/Console.js')).getConsole,
});
