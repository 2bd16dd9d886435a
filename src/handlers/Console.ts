/**
 * The handler of `Console` (GET /api/console).
 * Registered in `src/functions/Console.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { getServices } from '../lib/services.js';
import { CONSOLE_PAGE, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getConsole(): Promise<HttpResponseInit> {
  const blobOrigin = new URL(getServices().storage.blobService.url).origin;
  return await staticFileResponse(CONSOLE_PAGE, contentSecurityPolicy(blobOrigin));
}
