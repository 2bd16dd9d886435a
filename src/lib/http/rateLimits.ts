/**
 * Request limits (docs/api.md#rate-limits-and-quotas): at most `RATE_LIMIT_PER_MINUTE` requests per owner on the owner
 * endpoints (every `access: 'bearer'` function of `register.ts`), and at most
 * `AUTH_RATE_LIMIT_PER_MINUTE` requests per client address on Register and Login, and at most
 * {@link PUBLIC_LINK_STARTS_PER_HOUR} starts of public links per client address and hour
 * (docs/api.md#public-links). Counted per
 * instance, in memory, in fixed windows of 60 s that open at a key's first request
 * (`rate-limiter-flexible`'s `RateLimiterMemory`); a scaled-out service therefore allows up to that
 * many per instance.
 *
 * Every answer of a limited endpoint carries the headers of the IETF RateLimit draft
 * (draft-ietf-httpapi-ratelimit-headers-08 and later): `RateLimit-Policy: "default";q=<limit>;w=60` and
 * `RateLimit: "default";r=<remaining>;t=<seconds until the window resets>`; past the limit the answer
 * is 429 `rate-limited` (the catalogue's `rateLimited`) with `Retry-After`, and the handler does not run.
 *
 * An owner's requests are counted after the credential is checked (a request without a valid one is
 * answered 401 without the headers: it names no owner) and after anything `register.ts` answers before
 * running the handler without running it (an idempotent replay answers before the limit and costs none
 * of it).
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { RateLimiterRes } from 'rate-limiter-flexible';
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js';
import { getConfig, type Config } from '../config.js';
import { problemResponse, toProblemResponse } from './problem.js';
import { clientIp } from './requestInfo.js';
import { problem } from '../problems.js';

/** Length of a window, seconds (`w` of the policy). */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
/** The policy's name in both headers. */
const POLICY = '"default"';

/** What one request was granted: whether it may run, and the two headers its answer carries. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the key's window resets (`t`), at least 0. */
  secondsToReset: number;
  headers: { 'RateLimit-Policy': string; RateLimit: string };
}

/** Starts of public links (`POST /api/public/{publicId}/start`) per client address and hour (docs/api.md#public-links). */
export const PUBLIC_LINK_STARTS_PER_HOUR = 10;
/** The window of {@link PUBLIC_LINK_STARTS_PER_HOUR}, seconds. */
const HOUR_SECONDS = 3600;

/** One limit: `limit` requests per key and window (default {@link RATE_LIMIT_WINDOW_SECONDS}), in this instance's memory. */
export class RequestLimit {
  readonly #limiter: InstanceType<typeof RateLimiterMemory>;

  constructor(
    readonly limit: number,
    readonly windowSeconds: number = RATE_LIMIT_WINDOW_SECONDS,
  ) {
    this.#limiter = new RateLimiterMemory({ points: limit, duration: windowSeconds });
  }

  /** Counts one request of `key` (a refused one too: a client that keeps trying does not shorten its wait). */
  async take(key: string): Promise<RateLimitDecision> {
    try {
      return this.#decision(true, await this.#limiter.consume(key));
    } catch (rejection) {
      // The limiter rejects with its RateLimiterRes when the key is over the limit, and with an Error only on a fault.
      if (rejection instanceof Error) throw rejection;
      return this.#decision(false, rejection as RateLimiterRes);
    }
  }

  #decision(allowed: boolean, result: RateLimiterRes): RateLimitDecision {
    const secondsToReset = Math.max(0, Math.ceil(result.msBeforeNext / 1000));
    return {
      allowed,
      secondsToReset,
      headers: {
        'RateLimit-Policy': `${POLICY};q=${this.limit};w=${this.windowSeconds}`,
        RateLimit: `${POLICY};r=${Math.max(0, result.remainingPoints)};t=${secondsToReset}`,
      },
    };
  }
}

interface RequestLimits {
  owner: RequestLimit;
  clientAddress: RequestLimit;
  publicLinkStarts: RequestLimit;
}

const limitsOfConfig = new WeakMap<Config, RequestLimits>();

/** The limits of `config`'s settings, one pair per parsed configuration (tests start services with other settings). */
function requestLimits(config: Config): RequestLimits {
  let limits = limitsOfConfig.get(config);
  if (limits === undefined) {
    limits = {
      owner: new RequestLimit(config.limits.ownerRequestsPerMinute),
      clientAddress: new RequestLimit(config.limits.authRequestsPerMinute),
      publicLinkStarts: new RequestLimit(PUBLIC_LINK_STARTS_PER_HOUR, HOUR_SECONDS),
    };
    limitsOfConfig.set(config, limits);
  }
  return limits;
}

/**
 * Runs `answer` if `key` is within `limit`, and adds the RateLimit headers to whatever it answers
 * (any error it throws mapped to problem details here, so that those carry them too).
 * @returns the answer, or 429 `rate-limited` (with `Retry-After`) without calling `answer`
 */
export async function withinRequestLimit(
  limit: RequestLimit,
  key: string,
  context: InvocationContext,
  answer: () => Promise<HttpResponseInit>,
): Promise<HttpResponseInit> {
  const decision = await limit.take(key);
  if (!decision.allowed) {
    return problemResponse(
      problem('rateLimited', { detail: `More than ${limit.limit} requests in ${limit.windowSeconds} seconds; retry after the time in Retry-After.`, retryAfterSeconds: Math.max(1, decision.secondsToReset), headers: decision.headers }),
    );
  }
  let response: HttpResponseInit;
  try {
    response = await answer();
  } catch (error) {
    response = toProblemResponse(error, context);
  }
  return withHeaders(response, decision.headers);
}

/** An owner endpoint's request, counted for the owner `ownerId` (`RATE_LIMIT_PER_MINUTE`). */
export async function withinOwnerRequestLimit(ownerId: string, context: InvocationContext, answer: () => Promise<HttpResponseInit>): Promise<HttpResponseInit> {
  return await withinRequestLimit(requestLimits(getConfig()).owner, `owner:${ownerId}`, context, answer);
}

/** A Register or Login request, counted for its client address (`AUTH_RATE_LIMIT_PER_MINUTE`, `TRUST_PROXY`). */
export async function withinClientAddressRequestLimit(request: HttpRequest, context: InvocationContext, answer: () => Promise<HttpResponseInit>): Promise<HttpResponseInit> {
  const config = getConfig();
  const address = clientIp(request, config.limits.trustProxy) ?? 'unknown';
  return await withinRequestLimit(requestLimits(config).clientAddress, `ip:${address}`, context, answer);
}

/**
 * Counts one start of a public link for a client address ({@link PUBLIC_LINK_STARTS_PER_HOUR} per hour,
 * `TRUST_PROXY` as for Register and Login, docs/api.md#public-links). The start calls it after the
 * captcha, so that a request without a solved captcha costs none of the address's starts.
 * @returns the RateLimit headers the answer carries
 * @throws AppError 429 `rate-limited` with `Retry-After` and the same headers
 */
export async function takePublicLinkStart(request: HttpRequest): Promise<Record<string, string>> {
  const config = getConfig();
  const address = clientIp(request, config.limits.trustProxy) ?? 'unknown';
  const limit = requestLimits(config).publicLinkStarts;
  const decision = await limit.take(`ip:${address}`);
  if (!decision.allowed) {
    throw problem('rateLimited', { detail: `More than ${limit.limit} starts of public links from this address in an hour; retry after the time in Retry-After.`, retryAfterSeconds: Math.max(1, decision.secondsToReset), headers: decision.headers });
  }
  return decision.headers;
}

/** `response` with `headers` added (a plain header object, or a `Headers`-like init copied into one). */
function withHeaders(response: HttpResponseInit, headers: Record<string, string>): HttpResponseInit {
  const given = response.headers;
  if (given === undefined || (typeof given === 'object' && given !== null && Object.getPrototypeOf(given) === Object.prototype)) {
    return { ...response, headers: { ...(given as Record<string, string> | undefined), ...headers } };
  }
  const merged = new Headers(given as ConstructorParameters<typeof Headers>[0]);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return { ...response, headers: Object.fromEntries(merged.entries()) };
}
