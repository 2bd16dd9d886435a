/**
 * The handler of `GetLogProof` (GET /api/log/proof?hash=<hex>[&treeSize=N]).
 * Registered in `src/functions/GetLogProof.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { inclusionProof } from '../lib/transparency/publicLog.js';
import { logProofQuery } from '../lib/transparency/schemas.js';

export async function getLogProof(request: HttpRequest): Promise<HttpResponseInit> {
  const query = parseWith(logProofQuery, Object.fromEntries(request.query.entries()), 'query');
  return json(200, await inclusionProof(getServices(), { hash: query.hash, ...(query.treeSize === undefined ? {} : { treeSize: query.treeSize }) }));
}
