/**
 * The handler of `GetLogConsistency` (GET /api/log/consistency?first=M&second=N).
 * Registered in `src/functions/GetLogConsistency.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { consistencyProof } from '../lib/transparency/publicLog.js';
import { logConsistencyQuery } from '../lib/transparency/schemas.js';

export async function getLogConsistency(request: HttpRequest): Promise<HttpResponseInit> {
  const query = parseWith(logConsistencyQuery, Object.fromEntries(request.query.entries()), 'query');
  return json(200, await consistencyProof(getServices(), query));
}
