/**
 * The handler of `ListEnvelopes` (GET /api/envelopes).
 * Registered in `src/functions/ListEnvelopes.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listEnvelopes } from '../lib/envelopes/list.js';
import type { Actor } from '../lib/envelopes/model.js';
import { listEnvelopesQuery } from '../lib/envelopes/schemas.js';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function listOwnEnvelopes(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const query = parseWith(listEnvelopesQuery, Object.fromEntries(request.query.entries()), 'query');
  const page = await listEnvelopes({ services: getServices(), ownerId: caller.userId, query });
  const headers: Record<string, string> = {};
  if (page.nextCursor !== undefined) {
    const next = new URL(request.url);
    next.searchParams.set('cursor', page.nextCursor);
    headers.Link = `<${next.toString()}>; rel="next"`;
  }
  return json(200, page.envelopes, { noStore: true, headers });
}
