/**
 * The handler of `GetBulkJob` (GET /api/bulk/{id}).
 * Registered in `src/functions/GetBulkJob.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { readBulkJob } from '../lib/bulk/jobs.js';
import { toBulkJobView } from '../lib/bulk/model.js';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function getBulkJob(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, toBulkJobView(await readBulkJob(getServices(), caller, request.params.id ?? '')), { noStore: true });
}
