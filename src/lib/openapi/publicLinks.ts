/**
 * The public link endpoints in the OpenAPI document (docs/api.md#public-links): {@link registerPublicLinkOperations}
 * adds the page, what the page shows, the start (a code by e-mail) and the verification (the signing URL).
 * Response schemas are strict objects tied at compile time to the types the service answers with (bottom of this file).
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { PublicLinkFacts } from '../publicLinks/publicLinks.js';
import { startPublicLinkRequest, verifyPublicLinkRequest } from '../publicLinks/schemas.js';
import { SUPPORTED_LOCALES } from '../i18n/locales.js';
import { cacheControlNoStore, internalError, jsonBodyTooLarge, jsonRequestBody, notJson, storageUnavailable, type Operation } from './common.js';
import { problemResponses, timestamp, type ProblemExample } from './responses.js';
import { matches, type Matches } from './ties.js';

const json = 'application/json';
const publicId = 'PKx34dg9rdc9-wIRIWKzfQ';
const params = z.object({ publicId: z.string().meta({ description: 'The link\'s id: the last part of its URL, 22 base64url characters.', examples: [publicId] }) });

export const publicLinkFactsResponse = z
  .strictObject({
    name: z.string().meta({ description: 'The template\'s name: what the person is asked to sign.' }),
    sender: z.string().meta({ description: 'Who asks: the template owner\'s display name, else its e-mail address.' }),
    locale: z.enum(SUPPORTED_LOCALES).meta({ description: 'The template\'s language.' }),
    turnstileSiteKey: z.string().nullable().meta({ description: 'The Turnstile site key of the widget to show (`TURNSTILE_SITE_KEY`, while `TURNSTILE_SECRET_KEY` is set); `null`: none.' }),
  })
  .meta({ id: 'PublicLinkFacts', description: 'What the page of a public link shows.' });

const startedResponse = z
  .strictObject({ message: z.string(), expiresAt: timestamp.meta({ description: 'When the code stops working: 10 minutes after.' }) })
  .meta({ id: 'PublicLinkStarted', description: 'A code is on its way.' });

const verifiedResponse = z
  .strictObject({
    signingUrl: z.url().meta({ description: 'The person\'s signing link, `<PUBLIC_BASE_URL>/api/sign#<token>`: open it.' }),
    envelopeId: z.uuid({ version: 'v7' }).meta({ description: 'The envelope (the template owner\'s; `source: "publicLink"`).' }),
  })
  .meta({ id: 'PublicLinkVerified', description: 'The person\'s envelope, new or the one made for the address within 24 hours.' });

const problems = {
  'public-link-not-found': {},
  'link-expired': {},
  'link-exhausted': {},
  'public-link-limit': { detail: 'This address already has 3 envelopes from this link today (UTC), the most it gives one address a day.' },
  'rate-limited': { detail: 'More than 10 starts of public links from this address in an hour; retry after the time in Retry-After.' },
  'email-quota': {},
  'captcha-failed': {},
  'captcha-unavailable': {},
  'authentication-failed': { detail: 'The code is not right; 4 tries left.', attemptsLeft: 4 },
  'validation-failed': { detail: 'The request body is invalid: email must be a valid e-mail address.', errors: [{ path: 'email', message: 'must be a valid e-mail address' }] },
  'malformed-json': {},
  'email-unverified': {},
} satisfies Record<string, ProblemExample>;
const problem = problemResponses(problems);

const notFound = problem(404, 'No enabled link has this id: never one, disabled (at once), its template deleted, or the id of a link enabled again since (`public-link-not-found`).', ['public-link-not-found']);
const gone = problem(410, 'The link expired (`link-expired`), or made its `maxUses` envelopes (`link-exhausted`).', ['link-expired', 'link-exhausted']);
const badBody = problem(400, 'The body is not JSON (`malformed-json`) or is refused (`validation-failed`).', ['validation-failed', 'malformed-json']);

/** A problem answer of the page, which is the page itself (`text/html`) to a browser. */
function withPage(response: ReturnType<typeof problem>): ReturnType<typeof problem> {
  return { ...response, content: { 'text/html': { schema: { type: 'string' } }, ...response.content } };
}

const operations: Operation[] = [
  {
    operationId: 'PublicLinkPage',
    method: 'get',
    path: '/sign/t/{publicId}',
    tags: ['Pages'],
    summary: 'The page of a template\'s public link (HTML)',
    description:
      'Phone-first, in the signing page\'s styles and languages: asks a name and an e-mail address (with the Turnstile widget when `TURNSTILE_SITE_KEY` is set), then the e-mailed code, then opens the signing page of the person\'s envelope. A link that does not answer gets the same page with its status (404 or 410), which says why.',
    security: [],
    request: { params },
    responses: {
      200: { description: 'The page.', content: { 'text/html': { schema: { type: 'string' } } } },
      404: withPage(problem(404, 'No enabled link has this id: the page (`text/html`), which says so; a problem (`public-link-not-found`) to a client that asks for JSON only.', ['public-link-not-found'])),
      410: withPage(problem(410, 'The link expired or is used up: the page, which says so (to a client that asks for JSON only, the problem).', ['link-expired', 'link-exhausted'])),
      500: internalError,
    },
  },
  {
    operationId: 'DescribePublicLink',
    method: 'get',
    path: '/public/{publicId}',
    tags: ['Public links'],
    summary: 'What a public link\'s page shows',
    security: [],
    request: { params },
    responses: {
      200: { description: 'The link answers.', headers: { 'Cache-Control': cacheControlNoStore() }, content: { [json]: { schema: publicLinkFactsResponse, example: { name: 'Gym waiver', sender: 'Ada Lovelace', locale: 'en', turnstileSiteKey: null } } } },
      404: notFound,
      410: gone,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'StartPublicLink',
    method: 'post',
    path: '/public/{publicId}/start',
    tags: ['Public links'],
    summary: 'E-mail a 6-digit code to whoever opened the link',
    description:
      'No credential: the link is the capability. Checked in this order: the link (404); with `TURNSTILE_SECRET_KEY`, `turnstileToken` (403 `captcha-failed`, missing or bad), before any limit; 10 starts per client address and hour (`TRUST_PROXY` as for Login; 429 `rate-limited` with `Retry-After`; the answers counted carry `RateLimit-Policy: "default";q=10;w=3600` and `RateLimit`); expiry and `maxUses` (410); 3 envelopes and 10 codes per address, link and UTC day (429 `public-link-limit`); the owner\'s organization\'s `EMAIL_DAILY_QUOTA`, which the code e-mail counts toward (429 `email-quota`). Then 202, and the code goes out through the outbox: 6 digits, 10 minutes, 5 tries; a new start replaces the address\'s pending code. Only a keyed hash of the code is stored.',
    security: [],
    request: { params, body: jsonRequestBody(startPublicLinkRequest, { example: { name: 'Pat Public', email: 'pat@example.com' } }) },
    responses: {
      202: { description: 'A code is on its way.', headers: { 'Cache-Control': cacheControlNoStore() }, content: { [json]: { schema: startedResponse, example: { message: 'A code is on its way to this address.', expiresAt: '2026-11-29T10:25:00.000Z' } } } },
      400: badBody,
      403: problem(403, 'With `TURNSTILE_SECRET_KEY` set, the token is missing or not valid (`captcha-failed`).', ['captcha-failed']),
      404: notFound,
      410: gone,
      413: jsonBodyTooLarge,
      415: notJson,
      429: problem(429, 'More than 10 starts from this client address in an hour (`rate-limited`); the address already had 3 envelopes or 10 codes from this link today (`public-link-limit`, `Retry-After` until the next UTC midnight); the owner\'s organization has no e-mail left today (`email-quota`).', ['rate-limited', 'public-link-limit', 'email-quota']),
      503: problem(503, 'Turnstile (`captcha-unavailable`) or storage does not answer.', ['captcha-unavailable']),
      500: internalError,
    },
  },
  {
    operationId: 'VerifyPublicLink',
    method: 'post',
    path: '/public/{publicId}/verify',
    tags: ['Public links'],
    summary: 'The e-mailed code, for the person\'s signing URL',
    description:
      'A right code is used up, and the answer is the signing URL of the person\'s envelope: the one made for this address by this link within 24 hours, unless it is finished; else a new one from the template, sent, owned by the template\'s owner and counted in its quotas, with the person in the open role (in the first routing order, the fixed recipients after), `source: "publicLink"` (also in `envelope.created`). A use of `maxUses` is claimed before the envelope is made, so parallel verifications never make more. A wrong code: 403 with `attemptsLeft`; the 5th wrong one spends the code.',
    security: [],
    request: { params, body: jsonRequestBody(verifyPublicLinkRequest, { example: { email: 'pat@example.com', code: '042917' } }) },
    responses: {
      201: { description: 'The person\'s envelope.', headers: { 'Cache-Control': cacheControlNoStore('The body carries a signing link.') }, content: { [json]: { schema: verifiedResponse, example: { signingUrl: 'https://sign.example.com/api/sign#Zk9x3vQ2m7Lr0PpA1sT6uW8yB4cD5eF2gH3iJ4kL5mN', envelopeId: '0193a5d1-7b3c-7d4e-9f5a-6b7c8d9e0f1a' } } } },
      400: badBody,
      403: problem(403, 'The code is wrong (`authentication-failed`, `attemptsLeft` the tries left), or none is waiting for this address at this link (used, expired, tried 5 times: `attemptsLeft` 0); the template\'s owner must verify its address before envelopes can be sent (`email-unverified`).', ['authentication-failed', 'email-unverified']),
      404: notFound,
      410: gone,
      413: jsonBodyTooLarge,
      415: notJson,
      429: problem(429, 'The address already had 3 envelopes from this link today (`public-link-limit`); the owner\'s organization has no e-mail left today for the invitation (`email-quota`).', ['public-link-limit', 'email-quota']),
      503: storageUnavailable,
      500: internalError,
    },
  },
];

/** Registers the public link endpoints under `paths`. */
export function registerPublicLinkOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations) registry.registerPath(operation);
}

// Compile-time ties between the schemas above and the types the service answers with.
matches<Matches<typeof publicLinkFactsResponse, PublicLinkFacts>>(true);
