/**
 * GET /api/console: a page to try the whole flow from a browser (src/web/console). Its policy lets it
 * connect to this origin and to Blob storage, where it uploads documents and downloads sealed PDFs.
 */
import type { HttpResponseInit } from '@azure/functions';
import { httpFunction } from '../lib/http/register.js';
import { getServices } from '../lib/services.js';
import { CONSOLE_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getConsole(): Promise<HttpResponseInit> {
  const blobOrigin = new URL(getServices().storage.blobService.url).origin;
  return await staticFileResponse(CONSOLE_PAGE, contentSecurityPolicy(blobOrigin));
}

httpFunction('Console', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'console',
  access: 'public',
  handler: getConsole,
});
