/**
 * The handler of `ListPurges` (GET /api/organization/purges).
 * Registered in `src/functions/ListPurges.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { listPurges } from '../lib/envelopes/purges.js';
import { listPurgesQuery } from '../lib/envelopes/schemas.js';
import { getServices } from '../lib/services.js';

export async function listOrganizationPurges(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const query = parseWith(listPurgesQuery, Object.fromEntries(request.query.entries()), 'query');
  const services = getServices();
  const page = await listPurges(services, caller, query);
  const headers: Record<string, string> = {};
  if (page.nextCursor !== undefined) {
    // Built on PUBLIC_BASE_URL and the parsed query, never on the request's Host (as the envelope list).
    const parameters = new URLSearchParams();
    if (query.limit !== undefined) parameters.set('limit', String(query.limit));
    parameters.set('cursor', page.nextCursor);
    headers.Link = `<${services.config.publicBaseUrl}/api/organization/purges?${parameters.toString()}>; rel="next"`;
  }
  return json(200, page.purges, { noStore: true, headers });
}
