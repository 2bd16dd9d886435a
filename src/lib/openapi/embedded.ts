/**
 * Embedded signing and reassignment in the OpenAPI document (docs/api.md#embedded-signing, docs/api.md#reassignment): the owner's
 * `POST .../views`, the page a view opens (`GET /sign/v/{viewId}`) and the recipient's
 * `POST /signing/reassign`. Registered by `document.ts` through {@link registerEmbeddedOperations}.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { reassignSigningRequest } from '../recipients/reassign.js';
import { createViewRequest, MAX_FRAME_ANCESTORS, type CreatedView } from '../recipients/embeddedViews.js';
import { cacheControlNoStore, internalError, jsonBodyProblems, jsonBodyTooLarge, jsonRequestBody, notJson, storageUnavailable, unauthorized, type Operation } from './common.js';
import { recipientNotFound, recipientParams, recipientViewResponse, SIGNING_AUTH, viewExample } from './recipients.js';
import { actionAuthenticationAnswers } from './signerAuthentication.js';
import { problemResponses, type ProblemExample } from './responses.js';
import { matches, type Matches } from './ties.js';

const viewId = '8c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';

export const createdViewResponse = z
  .strictObject({
    url: z.url().meta({
      description:
        '`<PUBLIC_BASE_URL>/api/sign/v/<viewId>#<token>`: open it in an iframe (of an origin named in `frameAncestors`) or a window. The token (a signing token) is in the fragment and in this answer only; it works until `expiresAt`, or until a newer view for the recipient (or a resend) replaces it.',
    }),
    expiresAt: z.iso.datetime({ precision: 3 }).meta({ description: 'When the token stops working: issue time + `EMBED_TOKEN_TTL_SECONDS` (default 900).' }),
  })
  .meta({ id: 'CreatedView', description: 'An embedded signing view.' });

matches<Matches<typeof createdViewResponse, CreatedView>>(true);

const problems = {
  'validation-failed': {
    detail: 'The request body is invalid: frameAncestors.0 must be https:.',
    errors: [{ path: 'frameAncestors.0', message: 'must be https:' }],
  },
  ...jsonBodyProblems,
  'invalid-token': { detail: 'This signing link is not valid (any more): use the link of your newest e-mail about this envelope.' },
  'envelope-not-sent': {},
  'not-a-signing-role': {},
  'envelope-closed': { detail: 'The envelope is completed; nothing more can be signed.' },
  'already-acted': { detail: 'This recipient has already acted (signed).' },
  'not-your-turn': { detail: 'It is not this recipient\'s turn yet: waiting for Ada Lovelace (signer).' },
  'envelope-contended': {},
  'reassign-not-allowed': {},
  'recipient-exists': { detail: 'carol@example.com is already a recipient of this envelope; name someone who is not.' },
  'recipient-limit': { detail: 'This envelope already has 100 recipients, the most it may have (100): it cannot take one more. Ask the sender instead.' },
  'authentication-required': { detail: 'Enter your code first (POST /api/signing/authenticate): this recipient must prove who it is before it can act.', attemptsLeft: 5 },
} satisfies Record<string, ProblemExample>;

const problem = problemResponses(problems);
const noStore = cacheControlNoStore();
const common = { 500: internalError, 503: storageUnavailable };

function operations(bearerAuth: string): Operation[] {
  return [
    {
      operationId: 'CreateRecipientView',
      method: 'post',
      path: '/envelopes/{id}/recipients/{recipientId}/views',
      tags: ['Envelopes'],
      summary: 'Open an embedded signing view for a recipient',
      description:
        'For a recipient who must act (`signer`, `approver`, `viewer`; any delivery), whose turn it is and who has not acted, while the envelope is `sent`: a URL that opens the signing page inside your application. ' +
        'Its token works for `EMBED_TOKEN_TTL_SECONDS` (default 900); a new view for the recipient ends the previous one. The page may be framed only by the `frameAncestors` origins (its `Content-Security-Policy: frame-ancestors`; none: `\'none\'`); framed, it posts ' +
        '`{source: "envelope-signing", event, envelopeId, recipientId}` to the parent window (target origin: an allowed ancestor) for `loaded`, `signed`, `approved`, `viewed`, `declined`, `completed` (after the action that completed the envelope) and `error`, never a token. ' +
        'In a top-level window, after the recipient acted or declined, it goes to `returnUrl` with `?event=...&envelopeId=...&recipientId=...`. Records `recipient.view_created`. ' +
        'The body may be omitted (no `Content-Type`): no framing, no return URL. The answer carries a token: it is never stored for an `Idempotency-Key` (the header is refused).',
      security: [{ [bearerAuth]: [] }],
      request: {
        params: recipientParams,
        body: {
          required: false,
          content: {
            'application/json': {
              schema: createViewRequest,
              example: { frameAncestors: ['https://app.example.com'], returnUrl: 'https://app.example.com/contracts/42/signed' },
            },
          },
        },
      },
      responses: {
        201: {
          description: 'The view; its token is in this answer only.',
          headers: { 'Cache-Control': noStore },
          content: {
            'application/json': {
              schema: createdViewResponse,
              example: { url: `https://sign.example.com/api/sign/v/${viewId}#q3Jx9vLmT0bW8cYh2nKd5sQe7uRf1aZp4iGo6xVwEyM`, expiresAt: '2026-11-22T10:30:30.123Z' },
            },
          },
        },
        400: problem(
          400,
          `The body is not JSON (\`malformed-json\`) or is refused (\`validation-failed\`): more than ${MAX_FRAME_ANCESTORS} \`frameAncestors\`, one that is not an origin or not \`https:\`, a \`returnUrl\` that is not an absolute \`https:\` URL (\`http://localhost\` and \`http://127.0.0.1\` only with \`WEBHOOK_ALLOW_PRIVATE_NETWORKS=true\`), unknown fields named.`,
          ['validation-failed', 'malformed-json'],
        ),
        401: unauthorized,
        404: recipientNotFound,
        409: problem(
          409,
          'The recipient is a `cc` (`not-a-signing-role`), the envelope is a draft (`envelope-not-sent`) or closed or expired (`envelope-closed`), the recipient has acted (`already-acted`) or its turn has not come (`not-your-turn`); checked in this order.',
          ['not-a-signing-role', 'envelope-not-sent', 'envelope-closed', 'already-acted', 'not-your-turn', 'envelope-contended'],
        ),
        413: jsonBodyTooLarge,
        415: problem(415, 'A body sent with another media type than `application/json`.', ['unsupported-media-type']),
        ...common,
      },
    },
    {
      operationId: 'EmbeddedSigningPage',
      method: 'get',
      path: '/sign/v/{viewId}',
      tags: ['Pages'],
      summary: 'The signing page of an embedded view (HTML)',
      description:
        'Where a view\'s URL leads: the signing page, with the token in the fragment as on `/api/sign`. Its `Content-Security-Policy` `frame-ancestors` lists the view\'s `frameAncestors` (`\'none\'` when it has none, or the view is unknown or expired). Not cached (`no-store`): it differs per view.',
      security: [],
      request: { params: z.object({ viewId: z.string().meta({ description: 'The view\'s id (a UUID; not secret).', examples: [viewId] }) }) },
      responses: {
        200: {
          description: 'The page.',
          headers: {
            'Content-Security-Policy': { description: 'The pages\' policy, with the view\'s `frame-ancestors`.', required: true, schema: { type: 'string' } },
            'Cache-Control': noStore,
          },
          content: { 'text/html': { schema: { type: 'string' } } },
        },
        ...common,
      },
    },
    {
      operationId: 'ReassignSigning',
      method: 'post',
      path: '/signing/reassign',
      tags: ['Signing'],
      summary: 'Hand this recipient\'s part to someone else',
      description:
        'When the envelope allows it (`allowReassign`), a signer or approver whose turn it is and who has not acted names who acts instead: it becomes `reassigned` (final; it blocks nothing), and a new recipient with the same role, routing order and fields (new ids) is added after it and invited by e-mail. ' +
        'The new recipient inherits the caller\'s signer authentication, started over: the same access code (the sender gives it to the new recipient) or one-time codes e-mailed to the new address. ' +
        'Records `recipient.reassigned` `{recipientId, newRecipientId, email, reason}`, then `recipient.invited`; webhook `recipient.reassigned`. Checks run in this order: token (401), a link locked by wrong codes (423), a recipient that has not entered its code (403 `authentication-required`), role and setting (403), envelope status, already acted, turn (409), body (400), new address already a recipient, envelope already at 100 recipients (409).',
      security: [{ [SIGNING_AUTH]: [] }],
      request: {
        body: jsonRequestBody(reassignSigningRequest, { example: { email: 'carol@example.com', name: 'Carol Jones', reason: 'Carol signs contracts for our company.' } }),
      },
      responses: {
        200: {
          description: 'The recipient\'s view, now `reassigned` (`canAct` false).',
          headers: { 'Cache-Control': cacheControlNoStore('the body carries signed URLs') },
          content: {
            'application/json': {
              schema: recipientViewResponse,
              example: {
                ...viewExample,
                envelope: { ...viewExample.envelope, allowReassign: true },
                recipient: { ...viewExample.recipient, status: 'reassigned', actedAt: '2026-11-22T10:18:40.512Z' },
                canAct: false,
              },
            },
          },
        },
        400: problem(400, '`email`, `name` or `reason` missing or invalid (`validation-failed`), or the body is not JSON (`malformed-json`).', ['validation-failed', 'malformed-json']),
        401: problem(401, 'No signing token, or one that no longer works (`invalid-token`).', ['invalid-token']),
        403: problem(403, `The envelope does not allow reassignment, or the recipient is not a signer or approver (\`reassign-not-allowed\`). ${actionAuthenticationAnswers[403]}`, ['reassign-not-allowed', 'authentication-required']),
        409: problem(
          409,
          'The envelope is not `sent` (`envelope-closed`), the recipient already acted (`already-acted`) or its turn has not come (`not-your-turn`), the new address is already a recipient (`recipient-exists`), or the envelope already has 100 recipients, those who handed on included (`recipient-limit`).',
          ['envelope-closed', 'already-acted', 'not-your-turn', 'recipient-exists', 'recipient-limit', 'envelope-contended'],
        ),
        423: actionAuthenticationAnswers[423],
        413: jsonBodyTooLarge,
        415: notJson,
        ...common,
      },
    },
  ];
}

/** Adds the operations above to the document. */
export function registerEmbeddedOperations(registry: OpenAPIRegistry, bearerAuth: string): void {
  for (const operation of operations(bearerAuth)) registry.registerPath(operation);
}
