/**
 * The handler of `ListBulkJobRows` (GET /api/bulk/{id}/rows).
 * Registered in `src/functions/ListBulkJobRows.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listBulkRows } from '../lib/bulk/jobs.js';
import { bulkRowsQuery } from '../lib/bulk/schemas.js';
import type { Actor } from '../lib/envelopes/model.js';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function listBulkJobRows(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const query = parseWith(bulkRowsQuery, Object.fromEntries(request.query.entries()), 'query');
  return json(200, await listBulkRows(getServices(), caller, request.params.id ?? '', query.cursor), { noStore: true });
}
