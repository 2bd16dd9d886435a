/**
 * What a request tells about its client, for the audit trail (CONTRACT §10) and Turnstile.
 */
import type { HttpRequest } from '@azure/functions';

/**
 * The client's IP: the last entry of `X-Forwarded-For`, which the platform's front end (Azure App
 * Service, or the local host) appends, without port; earlier entries are client-supplied and not
 * trusted. `null` when absent.
 */
export function clientIp(request: HttpRequest): string | null {
  const forwarded = request.headers.get('x-forwarded-for');
  if (forwarded === null) return null;
  const last = forwarded.split(',').at(-1)?.trim() ?? '';
  if (last === '') return null;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(last);
  if (bracketed) return bracketed[1]!;
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(last);
  return (ipv4WithPort ? ipv4WithPort[1]! : last).slice(0, 64);
}

/** The `User-Agent` header, at most 1024 characters, or `null`. */
export function userAgent(request: HttpRequest): string | null {
  const value = request.headers.get('user-agent');
  return value === null || value === '' ? null : value.slice(0, 1024);
}
