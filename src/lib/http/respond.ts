/**
 * Successful responses: JSON bodies with the headers every response carries (docs/api.md#conventions).
 */
import type { HttpResponseInit } from '@azure/functions';

/** An RFC 9110 token: what `Headers` accepts as a name. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Adds `X-Content-Type-Options: nosniff` (every response, docs/api.md#conventions) without dropping existing
 * headers. The headers come back as a plain object with lower-case names (as `Headers` gives them);
 * a plain object with string values, what every handler here returns, is copied without building a
 * `Headers` (twice per response on the hot read path).
 */
export function withStandardHeaders(init: HttpResponseInit): HttpResponseInit {
  const given = init.headers;
  if (given === undefined || (typeof given === 'object' && given !== null && Object.getPrototypeOf(given) === Object.prototype)) {
    const headers: Record<string, string> = {};
    let plain = true;
    for (const [name, value] of Object.entries((given ?? {}) as Record<string, unknown>)) {
      const key = name.toLowerCase();
      if (typeof value !== 'string' || !HEADER_NAME.test(name) || value !== value.trim() || key === '__proto__' || Object.hasOwn(headers, key)) {
        plain = false;
        break;
      }
      headers[key] = value;
    }
    if (plain) {
      headers['x-content-type-options'] = 'nosniff';
      return { ...init, headers };
    }
  }
  const headers = new Headers(given as ConstructorParameters<typeof Headers>[0]);
  headers.set('X-Content-Type-Options', 'nosniff');
  return { ...init, headers: Object.fromEntries(headers.entries()) };
}

export interface JsonOptions {
  /** Extra response headers (ETag, Link, Location...). */
  headers?: Record<string, string>;
  /** Send `Cache-Control: no-store`: required when the body carries a token or a signed URL (docs/api.md#conventions). */
  noStore?: boolean;
}

/** A JSON response (`application/json; charset=utf-8`). */
export function json(status: number, body: unknown, options: JsonOptions = {}): HttpResponseInit {
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', ...options.headers };
  if (options.noStore) headers['Cache-Control'] = 'no-store';
  return withStandardHeaders({ status, body: JSON.stringify(body), headers });
}

/**
 * The `Link: <...>; rel="next"` header (RFC 8288) of a paged list whose query is `limit` and `cursor`
 * (docs/api.md#list-envelopes): built on `PUBLIC_BASE_URL` and the query as parsed, never on the
 * request's `Host` or raw query, so a forged `Host` header cannot make the service hand out links to
 * another site. `{}` when there is no next page.
 * @param path the list's path under the origin, `/api/...`
 */
export function nextPageLink(publicBaseUrl: string, path: string, limit: number | undefined, nextCursor: string | undefined): Record<string, string> {
  if (nextCursor === undefined) return {};
  const parameters = new URLSearchParams();
  if (limit !== undefined) parameters.set('limit', String(limit));
  parameters.set('cursor', nextCursor);
  return { Link: `<${publicBaseUrl}${path}?${parameters.toString()}>; rel="next"` };
}
