/**
 * What the owner's operations in the OpenAPI document share (docs/api.md#conventions): the problem examples and
 * responses of every endpoint behind the bearer guard (401, 413, 415, 500, 503), the examples of the
 * checks of an uploaded document, and the `{id}` and `If-Match` request parameters.
 *
 * An operation module spreads {@link ownerProblems} (and {@link documentProblems} where it checks a
 * document) into its own table of examples, so that one of its responses may name a shared slug
 * beside its own (413: `payload-too-large` or `document-too-large`); the responses below serve as
 * they are wherever their description fits. The recipient's operations (signing token) share
 * {@link jsonBodyProblems} and the 413, 415, 500 and 503 responses.
 */
import type { ResponseConfig, RouteConfig, ZodMediaTypeObject, ZodRequestBody } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { problemResponses, type ProblemExample } from './responses.js';

/** An operation of the document, named by the function that serves it (`src/functions/<operationId>.ts`). */
export type Operation = RouteConfig & { operationId: string };

/**
 * The problems of a JSON request body, the same on every endpoint that takes one, the owner's and the
 * recipient's alike: not JSON, over 1 MiB, another media type.
 */
export const jsonBodyProblems = {
  'malformed-json': {},
  'payload-too-large': {},
  'unsupported-media-type': {},
} satisfies Record<string, ProblemExample>;

/**
 * The problems the owner endpoints share, by slug (the catalogue's, src/lib/problems.ts), with the `detail` the code
 * sends: those of the bearer guard, a JSON body, a list's query, an upload ticket's media type, an
 * unverified sender, storage and faults.
 */
export const ownerProblems = {
  ...jsonBodyProblems,
  'query-validation-failed': { type: 'validation-failed', detail: 'The query is invalid: limit must be a whole number from 1 to 1000.', errors: [{ path: 'limit', message: 'must be a whole number from 1 to 1000' }] },
  'invalid-cursor': {},
  'unsupported-document-type': {},
  'email-unverified': {
    detail: 'Verify your e-mail address first: open the link in the verification e-mail (ask for a new one with POST /api/ResendVerification). Until then you may create and edit drafts, but not send or complete them.',
  },
  'missing-token': {},
  'invalid-token': { detail: 'The access token has expired.' },
  'storage-unavailable': { detail: 'Storage is unavailable right now; retry shortly.' },
  'internal-error': {
    detail: 'An unexpected error occurred. Quote correlation id 0b5e2f4c-3a1d-4e6f-8a9b-1c2d3e4f5a6b when reporting it.',
    correlationId: '0b5e2f4c-3a1d-4e6f-8a9b-1c2d3e4f5a6b',
  },
} satisfies Record<string, ProblemExample>;

/**
 * The problems of the checks of an uploaded document, the same whether an envelope is sent, a
 * template activated or fields detected (docs/api.md#create-an-envelope-and-upload-its-document, docs/api.md#templates): not uploaded, too large, not a PDF,
 * damaged, encrypted, hidden layers, a storage copy. `document-too-complex` is not here: its
 * bounds differ between sealing and detection.
 */
export const documentProblems = {
  'document-not-uploaded': {},
  'document-too-large': { detail: 'The document is 30000000 bytes; at most 26214400 bytes are accepted.' },
  'document-not-pdf': { detail: 'The uploaded document is not a PDF: no %PDF- header in its first 1024 bytes.' },
  'document-damaged': {},
  'document-encrypted': {},
  'document-hidden-content': {
    detail:
      'The document has optional content (layers) that some viewers would hide: "Draft notes"; so a signer might not see what gets sealed. Make everything visible and flatten the document (for example by printing to PDF), then upload it again.',
  },
  'document-copied': {},
} satisfies Record<string, ProblemExample>;

const problem = problemResponses(ownerProblems);

/** 401 of every operation behind the bearer guard: an access token (JWT) or, acting as the owner, an API key. */
export const unauthorized = problem(401, 'No access token, or one that is invalid, expired or of a deleted account; or an API key that is unknown, deleted or expired.', ['missing-token', 'invalid-token']);
/** 503 when Table or Blob storage does not answer, with `Retry-After`. */
export const storageUnavailable = problem(503, 'Storage does not answer (`storage-unavailable`); retry after `Retry-After` seconds.', ['storage-unavailable']);
/** 500: a fault, answered with a correlation id only. */
export const internalError = problem(500, 'An unexpected fault; the body carries a `correlationId` that the log also has, and nothing else.', ['internal-error']);
/** 400 of a list whose query is refused: `limit`, `cursor` and the filters are checked (docs/api.md#list-envelopes). */
export const listQueryRefused = problem(400, 'A query parameter is invalid or unknown (`validation-failed`), or `cursor` is not one this service issued (`invalid-cursor`).', ['query-validation-failed', 'invalid-cursor']);
/** 400 of a query parameter that is invalid or unknown. */
export const queryRefused = problem(400, 'A query parameter is invalid or unknown (`validation-failed`).', ['query-validation-failed']);
/** 413 of a JSON body over 1 MiB. */
export const jsonBodyTooLarge = problem(413, 'The JSON body is larger than 1 MiB.', ['payload-too-large']);
/** 415 of a body that is not `application/json`. */
export const notJson = problem(415, 'The body is not sent as `application/json`.', ['unsupported-media-type']);

/**
 * The `{id}` path parameter of an owner's envelope or template: a UUID v7; another owner's is
 * answered 404 exactly as a missing one (docs/api.md#the-envelope).
 * @param noun what the id names (`envelope`, `template`)
 * @param example an id for the document's example
 */
export function ownedIdParam(noun: string, example: string): z.ZodObject<{ id: z.ZodString }> {
  return z.object({ id: z.string().meta({ description: `The ${noun} id (a UUID v7). Another owner's ${noun} is answered 404, exactly as a missing one.`, examples: [example] }) });
}

/** The optional `If-Match` header of a change (RFC 9110 §13.1.1): the `ETag` it is based on; another version gives 412. */
export const ifMatch = z.object({
  'If-Match': z.string().optional().meta({ description: 'The `ETag` of the version this change is based on; another version gives 412.', examples: ['"3"'] }),
});

/**
 * The `Cache-Control: no-store` response header (RFC 9111 §5.2.2.5) of an answer no cache may keep.
 * @param reason why, when the body carries something secret or short-lived (`the body carries signed URLs`)
 */
export function cacheControlNoStore(reason?: string): { description: string; required: true; schema: { type: 'string'; const: 'no-store' } } {
  return { description: reason === undefined ? '`no-store`.' : `\`no-store\`: ${reason}.`, required: true, schema: { type: 'string', const: 'no-store' } };
}

/**
 * The required `application/json` body of an operation's request (OpenAPI 3.1 §4.8.13, Request Body
 * Object): its schema and either one `example` or named `examples` (OpenAPI 3.1 §4.8.14, Media Type Object).
 * @param schema the zod schema the handler parses the body with
 * @param samples `{ example }` or `{ examples: { name: { summary, value } } }`
 */
export function jsonRequestBody(schema: ZodMediaTypeObject['schema'], samples: Pick<ZodMediaTypeObject, 'example' | 'examples'>): ZodRequestBody {
  return { required: true, content: { 'application/json': { schema, ...samples } } };
}

/** What {@link deleteOperation} takes: the operation without its method, and the two answers that differ by resource. */
export type DeleteOperation = Omit<Operation, 'method' | 'responses'> & {
  /** 404: no such resource, or another owner's (the same answer). */
  notFound: ResponseConfig;
  /** 409: concurrent requests kept changing it; retry. */
  contended: ResponseConfig;
  /** Further answers of this operation (403 of an endpoint that needs the owner's access token). */
  responses?: Operation['responses'];
};

/**
 * The DELETE of an owner's API key, template or webhook: 204 with no body once deleted, 401 from the
 * bearer guard, 404 for a missing or another owner's resource, 409 when concurrent requests kept
 * changing it, 503 and 500 (docs/api.md#conventions).
 */
export function deleteOperation({ operationId, notFound, contended, responses, ...operation }: DeleteOperation): Operation {
  return {
    operationId,
    method: 'delete',
    ...operation,
    responses: { 204: { description: 'Deleted.' }, 401: unauthorized, 404: notFound, 409: contended, 503: storageUnavailable, 500: internalError, ...responses },
  };
}
