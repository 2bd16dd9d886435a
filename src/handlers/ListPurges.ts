/**
 * The handler of `ListPurges` (GET /api/organization/purges).
 * Registered in `src/functions/ListPurges.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listPurges } from '../lib/envelopes/purges.js';
import type { Actor } from '../lib/envelopes/model.js';
import { listPurgesQuery } from '../lib/envelopes/schemas.js';
import { parseWith } from '../lib/http/body.js';
import { json, nextPageLink } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function listOrganizationPurges(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const query = parseWith(listPurgesQuery, Object.fromEntries(request.query.entries()), 'query');
  const services = getServices();
  const page = await listPurges(services, caller, query);
  return json(200, page.purges, { noStore: true, headers: nextPageLink(services.config.publicBaseUrl, '/api/organization/purges', query.limit, page.nextCursor) });
}
