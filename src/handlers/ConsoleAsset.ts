/**
 * The handler of `ConsoleAsset` (GET /api/console/{file}).
 * Registered in `src/functions/ConsoleAsset.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { CONSOLE_ASSETS, allowedAsset, contentSecurityPolicy, staticFileResponse } from '../lib/web/pages.js';

export async function getConsoleAsset(request: HttpRequest): Promise<HttpResponseInit> {
  return await staticFileResponse(allowedAsset(CONSOLE_ASSETS, request.params.file ?? ''), contentSecurityPolicy(), request);
}
