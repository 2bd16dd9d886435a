/**
 * The handler of `ListEnvelopes` (GET /api/envelopes).
 * Registered in `src/functions/ListEnvelopes.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listEnvelopes } from '../lib/envelopes/list.js';
import type { Actor } from '../lib/envelopes/model.js';
import { listEnvelopesQuery, type ListEnvelopesQuery } from '../lib/envelopes/schemas.js';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function listOwnEnvelopes(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const query = parseWith(listEnvelopesQuery, Object.fromEntries(request.query.entries()), 'query');
  const services = getServices();
  const page = await listEnvelopes({ services, actor: caller, query });
  const headers: Record<string, string> = {};
  if (page.nextCursor !== undefined) headers.Link = `<${nextPageUrl(services.config.publicBaseUrl, query, page.nextCursor)}>; rel="next"`;
  return json(200, page.envelopes, { noStore: true, headers });
}

/**
 * The next page's absolute URL (RFC 8288 `Link` target): built on `PUBLIC_BASE_URL` and the query as
 * parsed, never on the request's `Host` or raw query (docs/api.md#text-the-service-accepts), so a forged `Host` header
 * cannot make the service hand out links to another site.
 */
function nextPageUrl(publicBaseUrl: string, query: ListEnvelopesQuery, cursor: string): string {
  const parameters = new URLSearchParams();
  if (query.scope !== undefined) parameters.set('scope', query.scope);
  if (query.status !== undefined) parameters.set('status', query.status);
  if (query.limit !== undefined) parameters.set('limit', String(query.limit));
  parameters.set('cursor', cursor);
  return `${publicBaseUrl}/api/envelopes?${parameters.toString()}`;
}
