/**
 * The handler of `GetLogKey` (GET /api/log/key).
 * Registered in `src/functions/GetLogKey.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { logPublicKey } from '../lib/transparency/publicLog.js';

export async function getLogKey(): Promise<HttpResponseInit> {
  return json(200, logPublicKey(getServices()));
}
