/**
 * GET /api/console/{file}: the console's script and style sheet, from an allow-list (src/lib/web/pages.ts).
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/ConsoleAsset.ts`.
 */
import { httpFunction } from '../lib/http/register.js';

httpFunction('ConsoleAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'console/{file}',
  access: 'public',
  loadHandler: async () => (await import('../handlers/ConsoleAsset.js')).getConsoleAsset,
});
