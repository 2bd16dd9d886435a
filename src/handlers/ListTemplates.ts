/**
 * The handler of `ListTemplates` (GET /api/templates).
 * Registered in `src/functions/ListTemplates.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { parseWith } from '../lib/http/body.js';
import { json, nextPageLink } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { listTemplatesQuery } from '../lib/templates/schemas.js';
import { listTemplates } from '../lib/templates/list.js';

export async function listOwnTemplates(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const query = parseWith(listTemplatesQuery, Object.fromEntries(request.query.entries()), 'query');
  const services = getServices();
  const page = await listTemplates(services, caller, query);
  return json(200, page.templates, { noStore: true, headers: nextPageLink(services.config.publicBaseUrl, '/api/templates', query.limit, page.nextCursor) });
}
