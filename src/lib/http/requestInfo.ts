/**
 * What a request tells about its client, for the audit trail (docs/api.md#evidence), the per-address request
 * limits (`rateLimits.ts`) and Turnstile.
 */
import type { HttpRequest } from '@azure/functions';
import { getConfig } from '../config.js';

/**
 * The client's IP address, without port; `null` when the request names none.
 *
 * Neither the Functions host nor the local host hands a handler the TCP peer's address: the platform's
 * front end (Azure App Service, which runs the Functions host) and the local host (`src/local/host.ts`)
 * both append it to `X-Forwarded-For`, so the last entry of that header is the socket's address, and
 * every earlier entry is whatever the connecting party wrote. With `trustProxy` = N proxies in front
 * of the service (`TRUST_PROXY`), each of which appends the address it was connected from, the client
 * is the N-th entry from the right of the header those proxies passed on (the entry N places before
 * the socket's); when the header has fewer entries, the leftmost one. Entries a client writes itself
 * lie further left, so a client cannot choose its address (the rule of Express's `trust proxy` hop
 * count, RFC 7239 §7.4).
 */
export function clientIp(request: HttpRequest, trustProxy: number = getConfig().limits.trustProxy): string | null {
  return clientIpFromForwardedFor(request.headers.get('x-forwarded-for'), trustProxy);
}

/**
 * {@link clientIp} of an `X-Forwarded-For` value whose last entry is the socket's address.
 * @param trustProxy proxies in front of the service, 0 or more
 */
export function clientIpFromForwardedFor(forwardedFor: string | null, trustProxy: number): string | null {
  if (forwardedFor === null) return null;
  const entries = forwardedFor.split(',');
  const chosen = entries[Math.max(0, entries.length - 1 - trustProxy)]?.trim() ?? '';
  if (chosen === '') return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(chosen);
  if (bracketed) return bracketed[1]!.slice(0, 64);
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(chosen);
  return (ipv4WithPort ? ipv4WithPort[1]! : chosen).slice(0, 64);
}

/** The `User-Agent` header, at most 1024 characters, or `null`. */
export function userAgent(request: HttpRequest): string | null {
  const value = request.headers.get('user-agent');
  return value === null || value === '' ? null : value.slice(0, 1024);
}
