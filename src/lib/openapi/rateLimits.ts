/**
 * The request limits and quotas of the OpenAPI document (docs/api.md#rate-limits-and-quotas; `src/lib/http/rateLimits.ts`,
 * `src/lib/auth/password.ts`, `src/lib/recipients/resend.ts`, `src/lib/envelopes/dailyQuota.ts`).
 *
 * Applied to the generated document by {@link describeRequestLimits}, so that every owner operation
 * (those secured by the bearer scheme, whichever module registers them) and Register and Login state
 * the `RateLimit-Policy` and `RateLimit` headers on their answers and the 429 `rate-limited` answer,
 * without each operation having to repeat them.
 */
import { problemExampleValue } from './responses.js';
import { RATE_LIMIT_WINDOW_SECONDS } from '../http/rateLimits.js';

type JsonObject = Record<string, unknown>;

interface Problem {
  /** Absent: the catalogue's default detail. */
  detail?: string;
}

/** Problems of the limits, by slug, with the `detail` the code sends (absent: the catalogue's): the examples of their answers. */
const problems = {
  'rate-limited': { detail: 'More than 600 requests in 60 seconds; retry after the time in Retry-After.' },
  'password-hashing-busy': {},
  'resend-too-soon': { detail: 'The previous resend to this recipient was less than 60 seconds ago; retry after the time in Retry-After.' },
  'resend-limit': { detail: 'This recipient has been re-sent the invitation 5 times, the most an envelope allows.' },
  'email-quota': { detail: 'This would queue 2 e-mails, and your organization has 1 of its 1000 e-mails left today (UTC).' },
  'sms-quota': { detail: 'This would queue 2 text messages, and your organization has 1 of its 100 text messages left today (UTC).' },
} satisfies Record<string, Problem>;

type Slug = keyof typeof problems;

const retryAfter = (required: boolean, description = 'Seconds to wait before retrying.') => ({ description, required, schema: { type: 'string', pattern: '^[0-9]+$' } });

/** The two headers of the IETF RateLimit draft (draft-ietf-httpapi-ratelimit-headers-08 and later). */
function rateLimitHeaders(required: boolean, scope: string): JsonObject {
  return {
    'RateLimit-Policy': {
      description: `The limit of this endpoint: \`"default";q=<requests>;w=${RATE_LIMIT_WINDOW_SECONDS}\`, \`q\` requests ${scope} in windows of \`w\` seconds, counted per instance. On every answer the limit counted; an owner endpoint's answers given before it (a failed credential check, an API key on a key endpoint, a refused \`Idempotency-Key\`, a replay) carry none.`,
      required,
      schema: { type: 'string', pattern: `^"default";q=[0-9]+;w=${RATE_LIMIT_WINDOW_SECONDS}$` },
    },
    RateLimit: {
      description: 'What is left of it: `"default";r=<remaining requests>;t=<seconds until the window resets>`.',
      required,
      schema: { type: 'string', pattern: '^"default";r=[0-9]+;t=[0-9]+$' },
    },
  };
}

/** Statuses answered before the limit when it counts per client address: only the host's and faults. */
const BEFORE_THE_ADDRESS_LIMIT = new Set(['413', '500']);

/** What a send past a daily quota answers (docs/api.md#rate-limits-and-quotas). */
const SEND_PAST_QUOTA =
  'Sending would queue more invitations than the organization has left of `EMAIL_DAILY_QUOTA` (`email-quota`) or, by text, of `SMS_DAILY_QUOTA` (`sms-quota`) today (`Retry-After` until the next UTC midnight); nothing is changed.';

/** Problems the limits add to particular operations, by operationId and status. */
const additions: Record<string, Record<string, { slugs: Slug[]; sentence: string; retryAfterRequired?: boolean }>> = {
  Register: {
    503: { slugs: ['password-hashing-busy'], sentence: 'Too many passwords are being hashed at once on this instance (`password-hashing-busy`, `Retry-After: 1`).' },
  },
  Login: {
    503: { slugs: ['password-hashing-busy'], sentence: 'Too many passwords are being checked at once on this instance (`password-hashing-busy`, `Retry-After: 1`).' },
  },
  UpdateEnvelope: {
    429: { slugs: ['email-quota', 'sms-quota'], sentence: SEND_PAST_QUOTA },
  },
  PatchEnvelope: {
    429: { slugs: ['email-quota', 'sms-quota'], sentence: SEND_PAST_QUOTA },
  },
  ResendInvitation: {
    429: {
      slugs: ['resend-too-soon', 'resend-limit', 'email-quota', 'sms-quota'],
      sentence:
        'The previous resend to this recipient was less than 60 s ago (`resend-too-soon`, `Retry-After` the seconds left), the recipient was already re-sent 5 times (`resend-limit`, no `Retry-After`: waiting does not help), or the organization has no e-mail left of `EMAIL_DAILY_QUOTA` (`email-quota`) or, for a recipient invited by text, no text left of `SMS_DAILY_QUOTA` (`sms-quota`) today (`Retry-After` until the next UTC midnight). Nothing is changed.',
      retryAfterRequired: false,
    },
  },
};

function example(status: number, slug: Slug): JsonObject {
  return { summary: slug, value: problemExampleValue(slug, status, problems[slug]) };
}

/** Adds problem examples to the operation's answer of `status`, creating a problem answer when it has none. */
function addProblems(responses: JsonObject, status: string, slugs: Slug[], sentence: string, retryAfterRequired: boolean): void {
  const existing = responses[status] as JsonObject | undefined;
  const examples = Object.fromEntries(slugs.map((slug) => [slug, example(Number(status), slug)]));
  if (existing === undefined) {
    responses[status] = {
      description: sentence,
      headers: { 'Retry-After': retryAfter(retryAfterRequired) },
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' }, examples } },
    };
    return;
  }
  const content = ((existing.content ?? {}) as JsonObject)['application/problem+json'] as JsonObject | undefined;
  const headers = { ...((existing.headers ?? {}) as JsonObject) };
  if (!retryAfterRequired && headers['Retry-After'] !== undefined) headers['Retry-After'] = retryAfter(false);
  responses[status] = {
    ...existing,
    description: `${String(existing.description)} ${sentence}`,
    headers,
    content: { ...(existing.content as JsonObject), 'application/problem+json': { ...content, examples: { ...((content?.examples ?? {}) as JsonObject), ...examples } } },
  };
}

/**
 * Describes the limits in `document` (an OpenAPI 3.1 document as `document.ts` generates it, changed
 * in place): the RateLimit headers on every answer of the owner operations (secured by `bearerAuth`)
 * and of Register and Login, their 429 `rate-limited`, and the problems of the hashing bound, the
 * resend rules and the e-mail quota.
 * @returns `document`
 */
export function describeRequestLimits(document: JsonObject, bearerAuth: string): JsonObject {
  for (const item of Object.values(document.paths as Record<string, Record<string, JsonObject>>)) {
    for (const operation of Object.values(item)) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      const operationId = String(operation.operationId);
      const perOwner = ((operation.security ?? []) as JsonObject[]).some((requirement) => bearerAuth in requirement);
      const perAddress = operationId === 'Register' || operationId === 'Login';
      const responses = operation.responses as JsonObject;
      for (const [status, slugAdditions] of Object.entries(additions[operationId] ?? {})) {
        addProblems(responses, status, slugAdditions.slugs, slugAdditions.sentence, slugAdditions.retryAfterRequired ?? true);
      }
      if (!perOwner && !perAddress) continue;
      const limit = perOwner ? '`RATE_LIMIT_PER_MINUTE` (default 600) requests per owner' : '`AUTH_RATE_LIMIT_PER_MINUTE` (default 20) requests per client address';
      addProblems(responses, '429', ['rate-limited'], `More than ${limit} in ${RATE_LIMIT_WINDOW_SECONDS} s on this instance (\`rate-limited\`); \`Retry-After\` is the seconds until the window resets.`, true);
      // An owner's request meets the guard and idempotency keys before the limit: a failed credential
      // check (401), an API key on a key endpoint (403 `jwt-required`), an `Idempotency-Key` refused,
      // and a replay (of any status) are answered without counting, so without the headers.
      for (const [status, response] of Object.entries(responses)) {
        const answer = response as JsonObject;
        const required = perOwner ? false : !BEFORE_THE_ADDRESS_LIMIT.has(status);
        answer.headers = { ...((answer.headers ?? {}) as JsonObject), ...rateLimitHeaders(required, perOwner ? 'per owner' : 'per client address') };
      }
    }
  }
  return document;
}
