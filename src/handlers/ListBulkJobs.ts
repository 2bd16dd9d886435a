/**
 * The handler of `ListBulkJobs` (GET /api/bulk).
 * Registered in `src/functions/ListBulkJobs.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listBulkJobs } from '../lib/bulk/jobs.js';
import { listBulkJobsQuery } from '../lib/bulk/schemas.js';
import type { Actor } from '../lib/envelopes/model.js';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function listBulkJobsHandler(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const query = parseWith(listBulkJobsQuery, Object.fromEntries(request.query.entries()), 'query');
  const services = getServices();
  const page = await listBulkJobs(services, caller, query);
  const headers: Record<string, string> = {};
  if (page.nextCursor !== undefined) {
    // Built on PUBLIC_BASE_URL and the parsed query, never on the request's Host (as the envelope list).
    const parameters = new URLSearchParams();
    if (query.limit !== undefined) parameters.set('limit', String(query.limit));
    parameters.set('cursor', page.nextCursor);
    headers.Link = `<${services.config.publicBaseUrl}/api/bulk?${parameters.toString()}>; rel="next"`;
  }
  return json(200, page.jobs, { noStore: true, headers });
}
