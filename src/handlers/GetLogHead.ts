/**
 * The handler of `GetLogHead` (GET /api/log/sth).
 * Registered in `src/functions/GetLogHead.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { newestHead } from '../lib/transparency/publicLog.js';

export async function getLogHead(): Promise<HttpResponseInit> {
  return json(200, await newestHead(getServices()), { noStore: true });
}
