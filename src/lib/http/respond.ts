/**
 * Successful responses: JSON bodies with the headers every response carries (CONTRACT §1).
 */
import type { HttpResponseInit } from '@azure/functions';

/** Adds `X-Content-Type-Options: nosniff` (every response, CONTRACT §1) without dropping existing headers. */
export function withStandardHeaders(init: HttpResponseInit): HttpResponseInit {
  const headers = new Headers(init.headers as ConstructorParameters<typeof Headers>[0]);
  headers.set('X-Content-Type-Options', 'nosniff');
  return { ...init, headers: Object.fromEntries(headers.entries()) };
}

export interface JsonOptions {
  /** Extra response headers (ETag, Link, Location...). */
  headers?: Record<string, string>;
  /** Send `Cache-Control: no-store`: required when the body carries a token or a signed URL (CONTRACT §1). */
  noStore?: boolean;
}

/** A JSON response (`application/json; charset=utf-8`). */
export function json(status: number, body: unknown, options: JsonOptions = {}): HttpResponseInit {
  const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', ...options.headers };
  if (options.noStore) headers['Cache-Control'] = 'no-store';
  return withStandardHeaders({ status, body: JSON.stringify(body), headers });
}
