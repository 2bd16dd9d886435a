/**
 * The OpenAPI 3.1 document of the service, generated from the zod schemas that validate requests
 * (`src/lib/auth/schemas.ts`, `src/lib/envelopes/schemas.ts`) and those that describe responses
 * (`./responses.ts`) with `@asteasolutions/zod-to-openapi`. Served at `GET /api/openapi.json`,
 * written to `docs/openapi.json` by `npm run openapi`, rendered at `GET /api/docs`.
 *
 * Sources: docs/api.md, the API reference, for paths, fields, success codes and everything else
 * (errors, accounts, envelopes, evidence). Paths are those of the functions in `src/functions`, below the server URL `/api`; a
 * test holds the two to the same set.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { loginRequest, registerRequest, verifyEmailRequest } from '../auth/schemas.js';
import { listEnvelopesQuery, signerInput, updateEnvelopeRequest, uploadRequest } from '../envelopes/schemas.js';
import { chainEvents, chainStart } from '../envelopes/auditHash.js';
import type { AuditEvent } from '../envelopes/model.js';
import { disclosureQuery } from '../recipients/schemas.js';
import { CONSOLE_ASSETS, DOCS_ASSETS, SIGN_ASSETS, VERIFY_ASSETS, verifySealPageAssets } from '../web/pages.js';
import { describeRequestLimits } from './rateLimits.js';
import { describeIdempotencyKeys } from './idempotency.js';
import { registerOperationsWithSigning } from './recipients.js';
import {
  auditTrailResponse,
  completeResponse,
  disclosureResponse,
  envelopeListResponse,
  envelopeResponse,
  healthResponse,
  loginResponse,
  problemResponses,
  registerResponse,
  sealVerificationResponse,
  uploadTicketResponse,
  type ProblemExample,
} from './responses.js';
import { cacheControlNoStore, documentProblems, ifMatch, internalError, jsonBodyTooLarge, jsonRequestBody, listQueryRefused, notJson, ownedIdParam, ownerProblems, queryRefused, storageUnavailable, unauthorized, type Operation } from './common.js';
import { registerWebhookOperations } from './webhooks.js';
import { registerApiKeyOperations } from './apiKeys.js';
import { registerDetectionOperations } from './detection.js';
import { registerDocumentOperations } from './documents.js';
import { registerAttachmentOperations } from './attachments.js';
import { registerTemplateOperations } from './templates.js';
import { registerBulkOperations } from './bulk.js';
import { registerPublicLinkOperations } from './publicLinks.js';
import { registerEmbeddedOperations } from './embedded.js';
import { describeRoles, registerOrganizationOperations } from './organizations.js';
import { registerPublicLogOperations } from './publicLog.js';

/** The document's `info.version`: the version of the API as this codebase implements it. */
export const API_VERSION = '0.1.0';

/** Name of the bearer-token security scheme. */
export const BEARER_AUTH = 'bearerAuth';

// Request bodies get component names here (clones of the schemas the functions validate with; a
// clone keeps every check, only the metadata differs).
const verifyEmailBody = verifyEmailRequest.meta({ id: 'VerifyEmailRequest', description: 'The token of a verification link.' });
const verifyEmailResponse = z
  .strictObject({ message: z.string(), email: z.email().meta({ description: 'The address now verified.' }) })
  .meta({ id: 'VerifyEmailResult', description: 'The verified address.' });
const messageResponse = z.strictObject({ message: z.string() }).meta({ id: 'Message', description: 'What happened, in words.' });
const registerBody = registerRequest.meta({ id: 'RegisterRequest', description: 'A new account.' });
const loginBody = loginRequest.meta({ id: 'LoginRequest', description: 'Credentials.' });
const uploadBody = uploadRequest.meta({ id: 'UploadRequest', description: 'The document to be uploaded.' });
const updateBody = updateEnvelopeRequest.meta({
  id: 'UpdateEnvelopeRequest',
  description: 'What is present is applied; `signers` replaces the whole list.',
});

const ids = {
  organization: '0193a5af-2c3d-7e4f-8a5b-6c7d8e9f0a1b',
  envelope: '0193a5b2-7c1e-7d3f-9a41-3f1c2b9e8d70',
  owner: '0193a5b0-1f2e-7a6b-8c9d-0e1f2a3b4c5d',
  signer: '5b0f3c52-8d1e-4b7a-9f3e-2c6d7a8b9e01',
  hash: '3d5c7f0a9b8e6d4c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c',
  original: '7e9b1c3d5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c',
};
const envelopeIdParam = ownedIdParam('envelope', ids.envelope);

const blob = 'https://account.blob.core.windows.net';
const sas = 'sv=2025-01-05&se=2026-11-22T10%3A30%3A30Z&sr=b&sp=r&sig=REDACTED';

const draftEnvelope = {
  id: ids.envelope,
  status: 'draft',
  ownerId: ids.owner,
  ownerEmail: 'alice@example.com',
  documentName: 'contract.pdf',
  documentUrl: `${blob}/documents/${ids.envelope}/contract.pdf?${sas}`,
  documentSha256: null,
  pageCount: null,
  documents: [{ id: ids.envelope, name: 'contract.pdf', order: 1, pageCount: null, sha256: null, uploadSha256: null, documentUrl: `${blob}/documents/${ids.envelope}/contract.pdf?${sas}` }],
  signers: [],
  fields: [],
  signingOrder: 'parallel',
  expiresAt: null,
  remindEveryDays: null,
  locale: 'en',
  createdAt: '2026-11-22T10:15:30.123Z',
  updatedAt: '2026-11-22T10:15:30.123Z',
  sentAt: null,
  completedAt: null,
  signedUrl: null,
  hash: null,
  purgedAt: null,
  voidedReason: null,
  templateId: null,
  allowReassign: false,
  output: 'separate',
};
const completedEnvelope = {
  ...draftEnvelope,
  status: 'completed',
  documentUrl: `${blob}/originals/${ids.envelope}/contract.pdf?${sas}`,
  documentSha256: ids.original,
  pageCount: 3,
  documents: [{ id: ids.envelope, name: 'contract.pdf', order: 1, pageCount: 3, sha256: ids.original, uploadSha256: ids.original, documentUrl: `${blob}/originals/${ids.envelope}/contract.pdf?${sas}` }],
  signers: [
    {
      id: ids.signer, recipientId: ids.signer, email: 'bob@example.com', name: 'Bob Builder', role: 'signer', routingOrder: 1, status: 'signed',
      actedAt: '2026-11-22T10:20:01.002Z', declineReason: null, lastEmail: { type: 'completed', status: 'sent', at: '2026-11-22T10:20:03.100Z' }, locale: null,
      delivery: ['email'],
      authentication: { method: 'accessCode' },
    },
  ],
  expiresAt: '2026-12-22T10:16:01.001Z',
  sentAt: '2026-11-22T10:16:01.001Z',
  updatedAt: '2026-11-22T10:20:02.456Z',
  completedAt: '2026-11-22T10:20:02.456Z',
  signedUrl: `${blob}/sealed/${ids.envelope}/contract.pdf?${sas}`,
  hash: ids.hash,
};

const json = 'application/json';

// A type alias, not an interface: OpenAPI objects allow `x-` extension keys, which an interface would not.
type HeaderObject = {
  description: string;
  required: boolean;
  schema: { type: 'string'; const?: string; pattern?: string };
};

const headers = {
  noStore: cacheControlNoStore('the body carries a token or a signed URL'),
  etag: { description: 'Strong ETag of this envelope version; send it as `If-Match` to update only that version.', required: true, schema: { type: 'string' } },
} satisfies Record<string, HeaderObject>;

/**
 * Problems the service answers with, by slug (the catalogue's, src/lib/problems.ts), with the `detail` the code sends:
 * the examples of the error responses.
 */
const problems = {
  ...ownerProblems,
  ...documentProblems,
  'forbidden-role': { detail: 'This needs the role owner, admin or viewer; you are a sender of your organization.' },
  'validation-failed': {
    detail: 'The request body is invalid: signers.0.email must be a valid e-mail address.',
    errors: [{ path: 'signers.0.email', message: 'must be a valid e-mail address' }],
  },
  'invalid-credentials': {},
  'captcha-failed': {},
  'invalid-invitation': {},
  'email-already-registered': {},
  'login-throttled': {},
  'envelope-not-found': {},
  'seal-not-found': {},
  'asset-not-found': {},
  'envelope-closed': { detail: 'The envelope is completed; it can no longer be changed.' },
  'invalid-transition': { detail: 'The envelope is sent; its status can change to voided only, not draft.' },
  'envelope-locked': {},
  'sealed-immutable': {
    detail: 'The envelope is purged, except its sealed PDF: storage keeps it unchanged until 2036-11-20T10:15:30.123Z (the sealed container\'s immutability period); delete the envelope again after that date to remove it.',
    immutableUntil: '2036-11-20T10:15:30.123Z',
  },
  'no-signer': {},
  'envelope-contended': {},
  'etag-mismatch': { detail: 'The envelope has changed since the ETag in If-Match; read it again.' },
  'document-too-complex': {
    detail: 'The document is too complex to seal within the service limits (30 seconds and 512 MiB of memory); it may contain a decompression bomb.',
  },
  'verification-token-invalid': { detail: 'This verification link has expired: log in and ask for a new one (POST /api/ResendVerification, or the console).' },
  'email-already-verified': {},
  'verification-too-soon': { detail: 'A verification e-mail went out less than 60 seconds ago: check your inbox, or retry in 42 s.' },
  'captcha-unavailable': {},
  'invalid-event-secret': {},
  'timestamp-authority-unavailable': {},
  'revocation-unavailable': {
    detail: 'The revocation data of the sealing or timestamp certificates could not be fetched, so the document was not sealed. Try again later.',
  },
} satisfies Record<string, ProblemExample>;

/** A problem-details response (docs/api.md#conventions) with one example per slug of the table above. */
const problem = problemResponses(problems);
/** 403 of reading one envelope: a sender asked for another member's (docs/api.md#what-members-share). */
const othersEnvelope = problem(403, 'A sender asked for another member\'s envelope (`forbidden-role`): only its owner, admins, the owner and viewers read it. Another organization\'s envelope is 404.', ['forbidden-role']);

/** Answers every operation can give. */
const common = { 500: internalError };
const jsonBodyErrors = {
  400: problem(400, 'The body is not JSON (`malformed-json`) or the schema refuses it (`validation-failed`, every complaint in `errors`, unknown fields named).', [
    'validation-failed',
    'malformed-json',
  ]),
  413: jsonBodyTooLarge,
  415: notJson,
};
const notFound = problem(404, 'No envelope with this id, or another owner\'s (the same answer).', ['envelope-not-found']);
const bearer = [{ [BEARER_AUTH]: [] }];
/** 403 of the operations only a verified owner may do while the service requires verified senders. */
const emailUnverified = (verb: string): ResponseConfig =>
  problem(403, `The owner has not verified its e-mail address yet, and the service requires verified senders to ${verb} (\`email-unverified\`); drafts may still be created and edited.`, ['email-unverified']);
const documentErrors = {
  409: problem(
    409,
    'Refused by the lifecycle: the envelope is completed or voided (`envelope-closed`), the transition is not allowed (`invalid-transition`, the allowed ones in `detail`), it has no signer with role `signer` (`no-signer`), the document is not uploaded yet (`document-not-uploaded`), or concurrent requests kept it busy (`envelope-contended`).',
    ['envelope-closed', 'invalid-transition', 'no-signer', 'document-not-uploaded', 'envelope-contended'],
  ),
  412: problem(412, '`If-Match` names another version of the envelope (`etag-mismatch`): read it again.', ['etag-mismatch']),
  413: problem(413, 'The uploaded document is larger than `MAX_DOCUMENT_BYTES` (`document-too-large`).', ['document-too-large']),
  415: problem(415, 'The uploaded document is not a PDF: no `%PDF-` header in its first 1024 bytes (`document-not-pdf`).', ['document-not-pdf']),
  422: problem(
    422,
    'The document cannot be sealed: it cannot be parsed or repaired (`document-damaged`), needs a password (`document-encrypted`), forbids changes (`document-certified`, `document-signed-not-extensible`), or exceeds 30 s or 512 MiB (`document-too-complex`); or it cannot be frozen: it has content some viewer would hide, layers or annotations printed but not shown on screen (`document-hidden-content`, naming them), or it is a storage copy of another blob, not an upload (`document-copied`).',
    ['document-damaged', 'document-encrypted', 'document-too-complex', 'document-hidden-content', 'document-copied'],
  ),
};
/** A file of a page: its bytes, or 304 when the `If-None-Match` of the request names its `ETag`. */
const assetResponses = (contentTypes: string[]): Record<number, ResponseConfig> => ({
  200: {
    description: 'The file, with a strong `ETag`.',
    content: Object.fromEntries(contentTypes.map((type) => [type, { schema: { type: 'string' } }])),
  },
  304: { description: 'Not modified: the `If-None-Match` of the request names the file\'s `ETag`; no body.' },
  404: problem(404, 'Not a file of the page (`asset-not-found`).', ['asset-not-found']),
});

/** The signing page's files (and the verify page's, which serves its languages too): {@link assetResponses}, and the message catalogues as JSON (message key → ICU MessageFormat text). */
function signPageAssetResponses(): Record<number, ResponseConfig> {
  const responses = assetResponses(['text/css', 'text/javascript', 'font/ttf']);
  const ok = responses[200]!;
  ok.content = {
    ...ok.content,
    'application/json': {
      schema: { type: 'object', additionalProperties: { type: 'string' } },
      example: { languageName: 'Deutsch', nextField: 'Nächstes Feld', pageOf: 'Seite {number} von {count}' },
    },
  };
  return responses;
}

const text = (contentType: string, description: string): ResponseConfig => ({
  description,
  content: { [contentType]: { schema: { type: 'string' } } },
});

/**
 * Every operation of the service, keyed by the name of the function that serves it
 * (`src/functions/<name>.ts`); `UpdateEnvelope` serves both PUT and PATCH.
 */
const operations: Operation[] = [
  {
    operationId: 'Register',
    method: 'post',
    path: '/Register',
    tags: ['Accounts'],
    summary: 'Create an account with an invitation code or an organization\'s invitation',
    description:
      'The invitation code is checked first: an invalid, expired or used-up code gives 403 and reveals nothing else. An address already registered gives 409 and does not consume the code. With a Turnstile secret configured, `turnstileToken` is verified. With `invitationCode` the account becomes the owner of a new organization; with `organizationInvitation` instead (exactly one of the two), it joins the invitation\'s organization with the invited role, and the invitation is used up.',
    security: [],
    request: {
      body: jsonRequestBody(registerBody, { example: { email: 'ada@example.com', password: 'correct horse battery', invitationCode: 'inv_q3Xx7bqfVbQ1bG9m0hTQwZ8kL2pN4sRt', name: 'Ada Lovelace' } }),
    },
    responses: {
      201: {
        description: 'The account is created; log in with `POST /api/Login`.',
        content: { [json]: { schema: registerResponse, example: { message: 'Account created. Log in with POST /api/Login.', userId: ids.owner } } },
      },
      ...jsonBodyErrors,
      403: problem(403, 'The invitation code is invalid, expired or used up (`invalid-invitation`), or the captcha failed (`captcha-failed`).', [
        'invalid-invitation',
        'captcha-failed',
      ]),
      409: problem(409, 'The e-mail address is already registered (`email-already-registered`); the invitation code is not consumed.', ['email-already-registered']),
      503: problem(503, 'Captcha verification (`captcha-unavailable`) or storage is unavailable.', ['captcha-unavailable', 'storage-unavailable']),
      ...common,
    },
  },
  {
    operationId: 'Login',
    method: 'post',
    path: '/Login',
    tags: ['Accounts'],
    summary: 'Log in for an access token',
    description:
      'An unknown address and a wrong password give the same 401. After 5 failures for one account within 15 minutes of its first failure, further attempts get 429 until the window closes.',
    security: [],
    request: { body: jsonRequestBody(loginBody, { example: { email: 'ada@example.com', password: 'correct horse battery' } }) },
    responses: {
      200: {
        description: 'An access token (JWT) and the user.',
        headers: { 'Cache-Control': headers.noStore },
        content: {
          [json]: {
            schema: loginResponse,
            example: {
              token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiIwMTkzYTViMC0xZjJlLTdhNmItOGM5ZC0wZTFmMmEzYjRjNWQifQ.c2lnbmF0dXJl',
              user: { userId: ids.owner, email: 'ada@example.com', role: 'user', emailVerified: true, name: 'Ada Lovelace' },
            },
          },
        },
      },
      ...jsonBodyErrors,
      401: problem(401, 'Wrong e-mail address or password (`invalid-credentials`), or the captcha failed (`captcha-failed`).', ['invalid-credentials', 'captcha-failed']),
      429: problem(429, 'Too many failed logins for this account (`login-throttled`); `Retry-After` is the seconds until the window closes.', ['login-throttled']),
      503: problem(503, 'Captcha verification (`captcha-unavailable`) or storage is unavailable.', ['captcha-unavailable', 'storage-unavailable']),
      ...common,
    },
  },
  {
    operationId: 'VerifyEmail',
    method: 'post',
    path: '/VerifyEmail',
    tags: ['Accounts'],
    summary: 'Verify an owner\'s e-mail address with the token of its verification link',
    description:
      'Register (and `POST /api/ResendVerification`) e-mails a link `<PUBLIC_BASE_URL>/api/verify-email#<token>`, valid 48 hours; its page posts the token here. Verifying twice is harmless. While the service requires verified senders (`REQUIRE_EMAIL_VERIFICATION`, on by default), an unverified owner may create and edit drafts but not send or complete them.',
    security: [],
    request: { body: jsonRequestBody(verifyEmailBody, { example: { token: 'YWRhQGV4YW1wbGUuY29t.1796210130.3Xq7bqfVbQ1bG9m0hTQwZ8kL2pN4sRtq3Xx7bqfVbQ1' } }) },
    responses: {
      200: {
        description: 'The address is verified.',
        headers: { 'Cache-Control': headers.noStore },
        content: { [json]: { schema: verifyEmailResponse, example: { message: 'Your e-mail address is verified: you can now send envelopes.', email: 'ada@example.com' } } },
      },
      ...jsonBodyErrors,
      400: problem(400, 'The body is invalid (`validation-failed`, `malformed-json`), or the token is malformed, not this service\'s, expired or of no account (`verification-token-invalid`).', [
        'validation-failed',
        'malformed-json',
        'verification-token-invalid',
      ]),
      503: storageUnavailable,
      ...common,
    },
  },
  {
    operationId: 'ResendVerification',
    method: 'post',
    path: '/ResendVerification',
    tags: ['Accounts'],
    summary: 'E-mail the owner a new verification link',
    description: 'At most once per 60 seconds, counting the e-mail Register sent. No body.',
    security: bearer,
    responses: {
      202: { description: 'A new link is queued (valid 48 hours).', content: { [json]: { schema: messageResponse, example: { message: 'A new verification link is on its way: open it within 48 hours.' } } } },
      401: unauthorized,
      409: problem(409, 'The address is already verified (`email-already-verified`).', ['email-already-verified']),
      429: problem(429, 'A verification e-mail went out less than 60 seconds ago (`verification-too-soon`); `Retry-After` says when to ask again.', ['verification-too-soon']),
      503: storageUnavailable,
      ...common,
    },
  },
  {
    operationId: 'GetUploadUrl',
    method: 'post',
    path: '/GetUploadUrl',
    tags: ['Envelopes'],
    summary: 'Create a draft envelope and get a URL to upload its PDF',
    description:
      'Creates the envelope in `draft` with no signers. Then send the file straight to Blob storage: `PUT <uploadUrl>` with the PDF as body and the headers `x-ms-blob-type: BlockBlob` and `Content-Type: application/pdf` (Blob storage answers 201; browsers may do this, CORS allows it from `ALLOWED_ORIGINS`). The document is checked when it is used (send, complete).',
    security: bearer,
    request: { body: jsonRequestBody(uploadBody, { example: { filename: 'contract.pdf', mimetype: 'application/pdf' } }) },
    responses: {
      201: {
        description: 'The draft envelope exists; upload its document to `uploadUrl`.',
        headers: {
          'Cache-Control': headers.noStore,
          Location: { description: 'The new envelope, `/api/envelopes/{envelopeId}`.', required: true, schema: { type: 'string' } },
        },
        content: {
          [json]: {
            schema: uploadTicketResponse,
            example: {
              uploadUrl: `${blob}/documents/${ids.envelope}/contract.pdf?sv=2025-01-05&se=2026-11-22T10%3A30%3A30Z&sr=b&sp=cw&sig=REDACTED`,
              envelopeId: ids.envelope,
              blobName: `${ids.envelope}/contract.pdf`,
              expiresAt: '2026-11-22T10:30:30.123Z',
            },
          },
        },
      },
      ...jsonBodyErrors,
      401: unauthorized,
      415: problem(415, 'The body is not sent as `application/json`, or `mimetype` is not `application/pdf` (`unsupported-document-type`).', [
        'unsupported-media-type',
        'unsupported-document-type',
      ]),
      503: storageUnavailable,
      ...common,
    },
  },
  {
    operationId: 'ListEnvelopes',
    method: 'get',
    path: '/envelopes',
    tags: ['Envelopes'],
    summary: 'List the caller\'s envelopes, or its organization\'s, newest first',
    description:
      'At most `limit` (default 1000) envelopes; when more exist, the `Link` header names the next page. The cost of a page does not grow with the owner\'s number of envelopes. With `scope=organization` (owner, admin, viewer) every member\'s envelopes, each naming its owner (`ownerId`, `ownerEmail`); the cost of a page does not grow with the organization\'s number of envelopes or members.',
    security: bearer,
    request: { query: listEnvelopesQuery },
    responses: {
      200: {
        description: 'The envelopes of this page, newest first.',
        headers: {
          'Cache-Control': headers.noStore,
          Link: { description: '`<...&cursor=...>; rel="next"` when more envelopes exist.', required: false, schema: { type: 'string' } },
        },
        content: { [json]: { schema: envelopeListResponse, example: [completedEnvelope, draftEnvelope] } },
      },
      400: listQueryRefused,
      403: problem(403, 'A sender asked for `scope=organization` (`forbidden-role`): only the owner, admins and viewers see the organization\'s envelopes.', ['forbidden-role']),
      401: unauthorized,
      503: storageUnavailable,
      ...common,
    },
  },
  {
    operationId: 'GetEnvelope',
    method: 'get',
    path: '/envelopes/{id}',
    tags: ['Envelopes'],
    summary: 'Read an envelope',
    security: bearer,
    request: { params: envelopeIdParam },
    responses: {
      200: {
        description: 'The envelope, with fresh read-only SAS URLs.',
        headers: { 'Cache-Control': headers.noStore, ETag: headers.etag },
        content: { [json]: { schema: envelopeResponse, example: draftEnvelope } },
      },
      401: unauthorized,
      403: othersEnvelope,
      404: notFound,
      503: storageUnavailable,
      ...common,
    },
  },
  ...(['put', 'patch'] as const).map((method) => ({
    operationId: method === 'put' ? 'UpdateEnvelope' : 'PatchEnvelope',
    method,
    path: '/envelopes/{id}',
    tags: ['Envelopes'],
    summary: `${method === 'put' ? 'Update' : 'Update (PATCH)'} an envelope: signers, fields, settings and status`,
    description:
      '`PUT` and `PATCH` behave the same: what is present in the body changes, what is absent stays. `signers` replaces the whole list (`null` and `{}` entries are dropped); an entry whose `id` or `recipientId` names a current signer keeps that identity. `fields` replaces the whole list of fields. The settings `signingOrder`, `expiresAt`, `remindEveryDays` and `locale` change one each. `status` moves `draft` to `sent` (needs the uploaded, valid document and a signer with role `signer`) or `draft`/`sent` to `voided`. Completed and voided envelopes refuse every change.',
    security: bearer,
    request: {
      params: envelopeIdParam,
      headers: ifMatch,
      body: jsonRequestBody(updateBody, {
        examples: {
          signers: { summary: 'Name the signers', value: { signers: [{ email: 'bob@example.com', name: 'Bob Builder', role: 'signer' }] } },
          send: { summary: 'Send the envelope', value: { status: 'sent' } },
          keep: { summary: 'Keep a signer, add another', value: { signers: [{ id: ids.signer, email: 'bob@example.com', name: 'Bob Builder' }, { email: 'carol@example.com', name: 'Carol', role: 'cc' }] } },
        },
      }),
    },
    responses: {
      200: {
        description: 'The updated envelope.',
        headers: { 'Cache-Control': headers.noStore, ETag: headers.etag },
        content: {
          [json]: {
            schema: envelopeResponse,
            example: {
              ...draftEnvelope,
              signers: [{ ...completedEnvelope.signers[0], status: 'created', actedAt: null, lastEmail: null }],
            },
          },
        },
      },
      ...jsonBodyErrors,
      401: unauthorized,
      403: emailUnverified('send'),
      404: notFound,
      ...documentErrors,
      413: problem(413, 'The JSON body is larger than 1 MiB, or (when sending) the uploaded document is larger than `MAX_DOCUMENT_BYTES` (`document-too-large`).', [
        'payload-too-large',
        'document-too-large',
      ]),
      415: problem(415, 'The body is not sent as `application/json`, or (when sending) the uploaded document is not a PDF (`document-not-pdf`).', [
        'unsupported-media-type',
        'document-not-pdf',
      ]),
      503: storageUnavailable,
      ...common,
    },
  })),
  {
    operationId: 'DeleteEnvelope',
    method: 'delete',
    path: '/envelopes/{id}',
    tags: ['Envelopes'],
    summary: 'Delete a draft, or purge a finished envelope\'s documents',
    description:
      'A `draft` is deleted with its upload and its audit trail; afterwards it is answered 404 like any unknown envelope. ' +
      'A `completed`, `declined`, `expired` or `voided` envelope is purged: its documents (the upload, the frozen copy, the sealed PDF) are deleted, ' +
      'while the envelope stays with `purgedAt` set, `documentUrl` and `signedUrl` `null`, its `hash` and its audit trail (event `envelope.purged`); ' +
      'its signing links stop working (401) and `GET /api/verify/{sha256}` still answers for its hash. Purging again answers 204 and changes nothing. ' +
      'A `sent` envelope must be voided first (409 `envelope-locked`). ' +
      'Each purge is recorded in the organization\'s purge log (`GET /api/organization/purges`) and told by the `envelope.purged` webhook. ' +
      'A sealed PDF still under the storage account\'s immutability period (WORM) stays until that period ends: the rest is purged and the answer is 409 `sealed-immutable` with `immutableUntil`. No body.',
    security: bearer,
    request: { params: envelopeIdParam },
    responses: {
      204: { description: 'The draft is deleted, or the finished envelope\'s documents are purged (now or before).' },
      401: unauthorized,
      404: notFound,
      409: problem(
        409,
        'The envelope is `sent` (`envelope-locked`): void it first; or concurrent requests kept it busy (`envelope-contended`; retry); or it is purged except its sealed PDF, which storage keeps until `immutableUntil` (`sealed-immutable`).',
        ['envelope-locked', 'envelope-contended', 'sealed-immutable'],
      ),
      503: storageUnavailable,
      ...common,
    },
  },
  {
    operationId: 'CompleteEnvelope',
    method: 'post',
    path: '/envelopes/{id}/complete',
    tags: ['Envelopes'],
    summary: 'Complete an envelope: flatten, certify and seal its PDF',
    description:
      'Flattens every form field, appends a certificate-of-completion page and seals the result with a PAdES baseline signature (B-T with a timestamp authority configured). Safe to retry: completing a completed envelope answers 200 with the same `hash` and a fresh `signedUrl`, whatever `If-Match` says. The `completed` e-mail goes to the owner and, for an envelope that was sent, to every recipient; a draft completed here e-mails only the owner. Each e-mail counts toward the owner\'s `EMAIL_DAILY_QUOTA`; the completion is never refused for it, and e-mails past it are not sent (`lastEmail` `failed`, `reason` `quota`). No body.',
    security: bearer,
    request: { params: envelopeIdParam, headers: ifMatch },
    responses: {
      200: {
        description: 'The envelope is completed; `signedUrl` reads the sealed PDF, whose SHA-256 is `hash`.',
        headers: { 'Cache-Control': headers.noStore, ETag: headers.etag },
        content: {
          [json]: {
            schema: completeResponse,
            example: {
              message: 'Envelope completed: the document is flattened and sealed.',
              signedUrl: completedEnvelope.signedUrl,
              hash: ids.hash,
              documents: [{ id: ids.envelope, name: 'contract.pdf', signedUrl: completedEnvelope.signedUrl, hash: ids.hash }],
            },
          },
        },
      },
      401: unauthorized,
      403: emailUnverified('complete'),
      404: notFound,
      ...documentErrors,
      503: problem(503, 'Storage, the timestamp authority (`timestamp-authority-unavailable`) or a revocation source of the seal (`revocation-unavailable`, B-LT and B-LTA) is unavailable; nothing was changed.', [
        'storage-unavailable',
        'timestamp-authority-unavailable',
        'revocation-unavailable',
      ]),
      ...common,
    },
  },
  {
    operationId: 'GetAuditTrail',
    method: 'get',
    path: '/envelopes/{id}/audit',
    tags: ['Evidence'],
    summary: 'Read an envelope\'s audit trail',
    description:
      'One event per successful change, oldest first, numbered 1, 2, 3, ... without gaps. Each event names the one before it: `hash` is the SHA-256 of the event as shown here, less `hash`, in RFC 8785 canonical JSON; `prevHash` the previous event\'s `hash` (for the first, the SHA-256 of the envelope id). At completion the events before `envelope.completed` are sealed into the PDF as `audit.json`.',
    security: bearer,
    request: { params: envelopeIdParam },
    responses: {
      200: {
        description: 'The events, oldest first.',
        headers: { 'Cache-Control': headers.noStore },
        content: {
          [json]: {
            schema: auditTrailResponse,
            example: auditTrailExample(),
          },
        },
      },
      401: unauthorized,
      403: othersEnvelope,
      404: notFound,
      503: storageUnavailable,
      ...common,
    },
  },
  {
    operationId: 'VerifySeal',
    method: 'get',
    path: '/verify/{sha256}',
    tags: ['Evidence'],
    summary: 'Check whether this service sealed a PDF',
    description:
      'Public: the answer names only what the sealed PDF\'s own certificate page prints, and a SHA-256 cannot be guessed, so it tells nothing to someone without the document.',
    security: [],
    request: {
      params: z.object({
        sha256: z.string().meta({ description: 'Hex SHA-256 of the whole sealed PDF (`sha256sum sealed.pdf`).', examples: [ids.hash] }),
      }),
    },
    responses: {
      200: {
        description: 'This service sealed a PDF with this SHA-256.',
        content: { [json]: { schema: sealVerificationResponse, example: { envelopeId: ids.envelope, completedAt: '2026-11-22T10:20:02.456Z', documentName: 'contract.pdf' } } },
      },
      404: problem(404, 'This service sealed no document with this SHA-256 (`seal-not-found`): originals and anything else included.', ['seal-not-found']),
      503: storageUnavailable,
      ...common,
    },
  },
  {
    operationId: 'GetDisclosure',
    method: 'get',
    path: '/disclosure',
    tags: ['Evidence'],
    summary: 'The service\'s disclosure about electronic records and signatures, in a language',
    description:
      'Public. The service\'s own disclosure in `locale` (default `en`); every supported locale has its own text and version, which changes whenever the text does. A recipient is shown, and agrees to, its organization\'s own text for its locale when the organization set one (`GET /api/signing/disclosure` gives exactly what the recipient agrees to); `consent: true` of `POST /api/signing/complete` records it in the acting audit event (`details.consent`), and the certificate of completion prints each version agreed to once.',
    security: [],
    request: { query: disclosureQuery },
    responses: {
      200: {
        description: 'The service\'s disclosure in that locale.',
        content: { [json]: { schema: disclosureResponse, example: { text: 'Consent to use electronic records and signatures. By ticking the box you agree that ...', version: 'esd-38207a19803b', locale: 'en' } } },
      },
      400: queryRefused,
      ...common,
    },
  },
  {
    operationId: 'Health',
    method: 'get',
    path: '/health',
    tags: ['Service'],
    summary: 'Whether the service and its storage answer',
    security: [],
    responses: {
      200: {
        description: 'Table and Blob storage answer: `ok`, or `degraded` while this instance\'s last seal failed for its timestamp authority or revocation sources.',
        content: { [json]: { schema: healthResponse, example: { status: 'ok' } } },
      },
      503: problem(503, 'Storage does not answer (`storage-unavailable`).', ['storage-unavailable']),
      ...common,
    },
  },
  {
    operationId: 'AcsEvents',
    method: 'post',
    path: '/events/acs',
    tags: ['Service'],
    summary: 'Communication Services\' SMS events, through Event Grid',
    description:
      'The endpoint of an Event Grid subscription to the Communication Services resource (docs/api.md, Events from Communication Services). The subscription sends the secret `ACS_EVENT_SECRET` as the `aeg-sas-key` header or the `code` query parameter (`/api/events/acs?code=<secret>`); without it, or with no secret set, 401 and nothing changes. The body is an array of Event Grid events (or CloudEvents 1.0 events). `Microsoft.EventGrid.SubscriptionValidationEvent`: the handshake, answered `{validationResponse}`. `Microsoft.Communication.SMSReceived`: a reply whose whole text, trimmed, in any case, is STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT, OPT-OUT or REVOKE opts its number out of text messages (never texted again; recipients get e-mail instead); START, UNSTOP or YES opts it back in. `Microsoft.Communication.SMSDeliveryReportReceived`: sets the recipient\'s `lastSms` to `delivered` or `failed`. Other events are accepted and ignored.',
    security: [],
    request: {
      query: z.object({ code: z.string().optional().meta({ description: 'The shared secret, when the subscription does not send `aeg-sas-key`.' }) }),
      body: jsonRequestBody(z.array(z.object({ eventType: z.string(), data: z.record(z.string(), z.unknown()) }).loose()).meta({ description: 'Event Grid events.' }), {
        example: [{ id: '7f0b…', eventType: 'Microsoft.Communication.SMSReceived', subject: 'phonenumber/15555555555', data: { messageId: 'Incoming_2026…', from: '+4915123456789', to: '+18005550100', message: 'STOP', receivedTimestamp: '2026-11-22T10:15:30.123Z' }, eventTime: '2026-11-22T10:15:30.123Z', dataVersion: '1.0' }],
      }),
    },
    responses: {
      200: {
        description: 'The handshake\'s answer, or the events were read (`received`: how many).',
        headers: { 'Cache-Control': cacheControlNoStore() },
        content: { [json]: { schema: z.union([z.strictObject({ validationResponse: z.string() }), z.strictObject({ received: z.int() })]), example: { validationResponse: '512d38b6-c7b8-40c8-89fe-f46f9e9622b6' } } },
      },
      400: problem(400, 'An event is not an object with an `eventType`, or a validation event has no `validationCode` (`validation-failed`), or the body is not JSON (`malformed-json`).', ['validation-failed', 'malformed-json']),
      401: problem(401, 'No `aeg-sas-key` or `code` equal to `ACS_EVENT_SECRET`, or no secret set (`invalid-event-secret`).', ['invalid-event-secret']),
      413: jsonBodyTooLarge,
      415: notJson,
      ...common,
    },
  },
  {
    operationId: 'OpenApiDocument',
    method: 'get',
    path: '/openapi.json',
    tags: ['Service'],
    summary: 'This document',
    security: [],
    responses: {
      200: { description: 'The OpenAPI 3.1 document of the service.', content: { [json]: { schema: { type: 'object' } } } },
      ...common,
    },
  },
  {
    operationId: 'ApiDocs',
    method: 'get',
    path: '/docs',
    tags: ['Pages'],
    summary: 'The API reference (HTML)',
    description: 'This document rendered by Swagger UI, served from the service itself: no external requests.',
    security: [],
    responses: { 200: text('text/html', 'The page.'), ...common },
  },
  {
    operationId: 'ApiDocsAsset',
    method: 'get',
    path: '/docs/{file}',
    tags: ['Pages'],
    summary: 'A script or style sheet of the API reference',
    security: [],
    request: { params: z.object({ file: z.enum(Object.keys(DOCS_ASSETS) as [string, ...string[]]) }) },
    responses: { ...assetResponses(['text/css', 'text/javascript']), ...common },
  },
  {
    operationId: 'Console',
    method: 'get',
    path: '/console',
    tags: ['Pages'],
    summary: 'The console (HTML): try the whole flow from a browser',
    description:
      'Register with an invitation code, log in, list envelopes, upload a PDF straight to its SAS URL with a progress bar, edit signers and their signing order, place fields on the rendered pages, send, follow each recipient\'s status and last e-mail (and resend an invitation), complete, download the sealed PDF with its SHA-256, and manage webhooks and see their deliveries. Static HTML, CSS and scripts; no external requests.',
    security: [],
    responses: { 200: text('text/html', 'The page.'), ...common },
  },
  {
    operationId: 'ConsoleAsset',
    method: 'get',
    path: '/console/{file}',
    tags: ['Pages'],
    summary: 'A script or style sheet of the console, or PDF.js',
    security: [],
    request: { params: z.object({ file: z.enum(Object.keys(CONSOLE_ASSETS) as [string, ...string[]]) }) },
    responses: { ...assetResponses(['text/css', 'text/javascript']), ...common },
  },
  {
    operationId: 'SigningPage',
    method: 'get',
    path: '/sign',
    tags: ['Pages'],
    summary: 'The signing page (HTML): where a recipient\'s e-mail link leads',
    description:
      'The link is `/api/sign#<signing token>`: the token stays in the fragment, which browsers never send to a server; the page reads it and uses it as the bearer token of `/api/signing`. It shows the document\'s pages with the recipient\'s fields, lets the recipient adopt a signature (typed, or drawn with a mouse, finger or pen), consent, and finish or decline; then offers the sealed PDF once the envelope is completed. Static HTML, CSS and scripts of this service; no external requests.',
    security: [],
    responses: { 200: text('text/html', 'The page.'), ...common },
  },
  {
    operationId: 'SigningPageAsset',
    method: 'get',
    path: '/sign/{file}',
    tags: ['Pages'],
    summary: 'A script, style sheet, font or message catalogue of the signing page, PDF.js or the drawing pad',
    description: '`messages-<locale>.json` is the page\'s message catalogue of one supported locale (ICU MessageFormat); `messages-en.js` the English one as an ES module, which the page always has to fall back on.',
    security: [],
    request: { params: z.object({ file: z.enum(Object.keys(SIGN_ASSETS) as [string, ...string[]]) }) },
    responses: { ...signPageAssetResponses(), ...common },
  },
  {
    operationId: 'VerifyEmailPage',
    method: 'get',
    path: '/verify-email',
    tags: ['Pages'],
    summary: 'The page a verification link opens (HTML)',
    description: 'The link is `/api/verify-email#<token>`: the page reads the token from the fragment and posts it to `POST /api/VerifyEmail`.',
    security: [],
    responses: { 200: text('text/html', 'The page.'), ...common },
  },
  {
    operationId: 'VerifyEmailPageAsset',
    method: 'get',
    path: '/verify-email/{file}',
    tags: ['Pages'],
    summary: 'The script or style sheet of the verification page',
    security: [],
    request: { params: z.object({ file: z.enum(Object.keys(VERIFY_ASSETS) as [string, ...string[]]) }) },
    responses: { ...assetResponses(['text/css', 'text/javascript']), ...common },
  },
  {
    operationId: 'VerifySealPage',
    method: 'get',
    path: '/verify',
    tags: ['Pages'],
    summary: 'The verify page (HTML): check a sealed PDF in the browser',
    description:
      'Drop a sealed PDF on it: the page checks, in the browser, the seal over the whole file, who sealed it, the embedded `audit.json` chain and the certificate\'s printed hashes (and, when asked, this service\'s record of the seal and its public log), the same checks as `npm run verify`. The file is never uploaded.',
    security: [],
    responses: { 200: text('text/html', 'The page.'), ...common },
  },
  {
    operationId: 'VerifySealPageAsset',
    method: 'get',
    path: '/verify/assets/{file}',
    tags: ['Pages'],
    summary: 'A script, style sheet, font or message catalogue of the verify page, PDF.js, or a module of the verifier it runs',
    description: '`verification.js` is the verifier of `npm run verify`; the `m_*.js` modules are what it imports (pkijs, asn1js, canonicalize and their dependencies), served as they are with their imports pointing at each other. `i18n.js`, `intl-messageformat.js`, `messages-<locale>.json`, `messages-en.js`, `fonts.css` and the fonts are the signing page\'s languages, which the verify page speaks too.',
    security: [],
    request: { params: z.object({ file: z.enum(Object.keys(verifySealPageAssets()) as [string, ...string[]]) }) },
    responses: { ...signPageAssetResponses(), ...common },
  },
];

const description = `The API behind an e-signature product: people register with an invitation code, log in for a JWT, upload a PDF straight to Azure Blob Storage through a SAS URL, name the signers of the envelope, and complete it: the service flattens the PDF's form fields, appends a certificate of completion, seals the result with a PAdES signature and returns the sealed document's address and SHA-256.

Conventions: request and response bodies are JSON (\`application/json; charset=utf-8\`), at most 1 MiB; unknown fields in a request body are refused with 400. Every error is RFC 9457 \`application/problem+json\` (schema \`Problem\`). Timestamps are ISO 8601 UTC with milliseconds; envelope and user ids are UUID v7. Paths are matched case-insensitively. Every response sends \`X-Content-Type-Options: nosniff\`.

Limits: every limit a request body or query has is stated in its schema (\`minLength\`, \`maxLength\`, \`pattern\`, \`maxContains\`, enums), with lengths in characters (Unicode code points), so that a client or gateway validating against this document accepts what the service accepts. Three rules are beyond JSON Schema and stated in words where they apply: the password's limit in bytes, unique e-mail addresses and ids within a signer list, and \`id\` equal to \`recipientId\` when a signer carries both. Unknown query parameters are refused with 400.

Request limits: the owner endpoints allow \`RATE_LIMIT_PER_MINUTE\` requests per owner and minute, Register and Login \`AUTH_RATE_LIMIT_PER_MINUTE\` per client address, counted per instance; their answers carry \`RateLimit-Policy\` and \`RateLimit\` (IETF RateLimit header fields draft), and past the limit they answer 429 \`rate-limited\` with \`Retry-After\`.

The project's own reference, with every rule and setting, is \`docs/api.md\` in the repository. Try it: \`GET /api/console\` is a small page for the whole flow; \`GET /api/docs\` renders this document.`;

/**
 * The operations' tags (OpenAPI 3.1 §4.8.22, Tag Object), by name, in the order the reference shows
 * them, with what each groups.
 */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Accounts: 'Registration with an invitation code, and login.',
  Envelopes: 'Upload, signers, fields, lifecycle and completion.',
  Templates: 'Reusable documents with roles and fields, shared within the organization or private, and the envelopes made from them.',
  'Bulk send': 'One envelope per row from an active template, rows as JSON or CSV, made in the background: the job\'s status, rows and cancel.',
  'Public links': 'A template\'s link anyone can open: a name and an e-mail address, a code by e-mail, then an envelope of their own to sign.',
  Signing: 'The recipient\'s API, authenticated by the signing token of its e-mail link.',
  Evidence: 'Audit trail, seal verification and the public append-only log.',
  Webhooks: 'Endpoints that receive signed events about the owner\'s envelopes (Standard Webhooks).',
  'API keys': 'Long-lived keys a server sends instead of the owner\'s access token (`Authorization: Bearer esk_...`).',
  Organizations: 'The caller\'s organization: its members and their roles, invitations, handing it over.',
  Service: 'Health and this document.',
  Pages: 'The API reference, the console and the signing page, for browsers.',
};

/**
 * Builds the document (a fresh object on every call; deterministic, so the committed copy can be
 * compared with it).
 * @returns an OpenAPI 3.1.0 document: `paths` keyed below the server URL `/api`
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', BEARER_AUTH, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'The `token` of `POST /api/Login`: `Authorization: Bearer <token>` (RFC 6750). HS256, `typ: at+jwt` (RFC 9068), valid `JWT_TTL_SECONDS` (default 3600). Every operation that takes it also takes an API key of the owner (`Authorization: Bearer esk_...`, from `POST /api/apikeys`), acting as the owner, except the API key operations themselves, which answer an API key with 403 `jwt-required`.',
  });
  registerOperationsWithSigning(registry, operations, BEARER_AUTH);
  registerWebhookOperations(registry);
  registerApiKeyOperations(registry);
  registerDetectionOperations(registry);
  registerDocumentOperations(registry, draftEnvelope);
  registerAttachmentOperations(registry);
  registerTemplateOperations(registry);
  registerBulkOperations(registry);
  registerPublicLinkOperations(registry);
  registerEmbeddedOperations(registry, BEARER_AUTH);
  registerOrganizationOperations(registry);
  registerPublicLogOperations(registry);
  // The signer list's schema refers to `SignerInput` by name (its items may also be `null` or `{}`), so
  // the component is generated from the schema itself, which carries that id.
  const generator = new OpenApiGeneratorV31([{ type: 'schema', schema: signerInput }, ...registry.definitions], { sortComponents: 'alphabetically' });
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Envelope Signing Service API',
      version: API_VERSION,
      description,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/api', description: 'This service' }],
    tags: Object.entries(TAG_DESCRIPTIONS).map(([name, description]) => ({ name, description })),
  });
  const plain = describeRequestLimits(describeRoles(JSON.parse(JSON.stringify(document)) as Record<string, unknown>, BEARER_AUTH), BEARER_AUTH);
  describeIdempotencyKeys(plain, BEARER_AUTH, { $ref: '#/components/schemas/Problem' });
  return plain;
}

/** The document as `npm run openapi` writes it to `docs/openapi.json`: two-space JSON and a final newline. */
export function serializeOpenApiDocument(document: Record<string, unknown> = buildOpenApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

/**
 * The audit trail's example: three events chained as the service chains them
 * (docs/api.md#chained-audit-trail), so that their hashes verify.
 */
function auditTrailExample(): AuditEvent[] {
  const made = chainEvents(
    [
      { sequence: 1, type: 'envelope.created', at: '2026-11-22T10:15:30.123Z', actorId: ids.owner, actorEmail: 'owner@example.com', ip: '203.0.113.7', userAgent: 'curl/8.5.0', apiKeyId: null, details: { documentName: 'contract.pdf', blobName: `${ids.envelope}/contract.pdf` } },
      { sequence: 2, type: 'envelope.signers_replaced', at: '2026-11-22T10:16:01.001Z', actorId: ids.owner, actorEmail: 'owner@example.com', ip: '203.0.113.7', userAgent: 'crm-sync/2.1', apiKeyId: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0d', details: { added: [{ id: ids.signer, email: 'bob@example.com' }], removed: [] } },
    ],
    ids.organization,
    chainStart(ids.envelope),
  );
  const auditHead = made.at(-1)!.hash;
  const completed = chainEvents(
    [{ sequence: 3, type: 'envelope.completed', at: '2026-11-22T10:20:02.456Z', actorId: ids.owner, actorEmail: 'owner@example.com', ip: '203.0.113.7', userAgent: 'curl/8.5.0', apiKeyId: null, details: { originalSha256: ids.original, sealedSha256: ids.hash, auditHead } }],
    ids.organization,
    auditHead,
  );
  return [...made, ...completed];
}
