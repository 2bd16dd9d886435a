/** GET /api/console/{file}: the console's script and style sheet, from an allow-list (src/lib/web/pages.ts). */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { httpFunction } from '../lib/http/register.js';
import { CONSOLE_ASSETS, allowedAsset, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getConsoleAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(CONSOLE_ASSETS, request.params.file ?? ''), contentSecurityPolicy(), request);
}

httpFunction('ConsoleAsset', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'console/{file}',
  access: 'public',
  handler: getConsoleAsset,
});
