/**
 * Several documents per envelope in the OpenAPI document (docs/api.md#several-documents):
 * {@link registerDocumentOperations} adds `POST /envelopes/{id}/documents`,
 * `PATCH`/`DELETE /envelopes/{id}/documents/{documentId}` and `GET /envelopes/{id}/download`.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { DocumentTicket } from '../envelopes/documents.js';
import { updateDocumentRequest, uploadRequest } from '../envelopes/schemas.js';
import { cacheControlNoStore, ifMatch, internalError, jsonBodyTooLarge, jsonRequestBody, notJson, ownerProblems, storageUnavailable, unauthorized, type Operation } from './common.js';
import { envelopeResponse, problemResponses, timestamp, type ProblemExample } from './responses.js';
import { matches, type Matches } from './ties.js';

const ids = { envelope: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0d', document: '0193a5d1-6b20-7c3b-8d4e-6f7a8b9c0d2f', field: '0193a5d1-5a10-7c3b-8d4e-6f7a8b9c0d1e' };

/** 201 of `POST /envelopes/{id}/documents`. */
export const documentTicketResponse = z
  .strictObject({
    documentId: z.uuid().meta({ description: 'The new document\'s id: fields name it as `documentId`.' }),
    uploadUrl: z.url().meta({
      description: 'SAS URL with create and write permission on this one blob. Send `PUT <uploadUrl>` with the PDF as body and the headers `x-ms-blob-type: BlockBlob` and `Content-Type: application/pdf`; Blob storage answers 201.',
    }),
    blobName: z.string().meta({ description: '`<envelopeId>/<documentId>/<filename>` in the container `documents`.' }),
    expiresAt: timestamp.meta({ description: 'When `uploadUrl` stops working (`UPLOAD_URL_TTL_SECONDS` after the response).' }),
  })
  .meta({ id: 'DocumentTicket', description: 'Where to upload a document added to a draft envelope.' });

/** 200 of `DELETE /envelopes/{id}/documents/{documentId}`. */
export const documentRemovedResponse = z
  .strictObject({
    removedFieldIds: z.array(z.uuid()).meta({ description: 'The fields that were on the document and went with it; `[]` when none.' }),
    envelope: envelopeResponse,
  })
  .meta({ id: 'DocumentRemoved', description: 'The fields removed with the document, and the envelope as it is now.' });

const problems = {
  ...ownerProblems,
  'validation-failed': { detail: 'The request body is invalid: order must be from 1 to 3, the number of documents.', errors: [{ path: 'order', message: 'must be from 1 to 3, the number of documents' }] },
  'envelope-not-found': {},
  'document-not-found': {},
  'forbidden-role': { detail: 'This needs the role owner, admin or sender; you are a viewer of your organization.' },
  'envelope-locked': { detail: 'The envelope is sent: its documents can no longer change (what was sent is what gets signed). Void it and start again.' },
  'envelope-closed': { detail: 'The envelope is completed; it can no longer be changed.' },
  'document-limit': { detail: 'The envelope holds 10 documents, the most allowed (10); remove one first.' },
  'last-document': {},
  'envelope-contended': {},
  'etag-mismatch': { detail: 'The envelope has changed since the ETag in If-Match; read it again.' },
  'envelope-not-completed': { detail: 'The envelope is sent, not completed: there is nothing sealed to download yet.' },
  'documents-purged': {},
} satisfies Record<string, ProblemExample>;
const problem = problemResponses(problems);

const params = z.object({
  id: z.string().meta({ description: 'The envelope id (a UUID v7). Another owner\'s envelope is answered 404, exactly as a missing one.', examples: [ids.envelope] }),
});
const documentParams = params.extend({
  documentId: z.string().meta({ description: 'The document\'s id (an `id` of the envelope\'s `documents`).', examples: [ids.document] }),
});
const bearer = [{ bearerAuth: [] }];
const etag = { description: 'Strong ETag of the envelope version now stored.', required: true, schema: { type: 'string' as const } };
const forbidden = problem(403, 'A viewer, or a sender asking for another member\'s envelope (`forbidden-role`).', ['forbidden-role']);
const notFound = problem(404, 'No envelope with this id, or another owner\'s (`envelope-not-found`); or the envelope has no document with this id (`document-not-found`).', ['envelope-not-found', 'document-not-found']);
const bodyRefused = problem(400, 'The body is not JSON (`malformed-json`) or the schema refuses it (`validation-failed`, every complaint in `errors`).', ['validation-failed', 'malformed-json']);

const operations: Operation[] = [
  {
    operationId: 'AddEnvelopeDocument',
    method: 'post',
    path: '/envelopes/{id}/documents',
    tags: ['Envelopes'],
    summary: 'Add a document to a draft envelope',
    description:
      'Adds a document to a `draft`, last in order, and answers where to upload it, with the rules of `POST /api/GetUploadUrl`: `mimetype` `application/pdf` (else 415), `filename` ending in `.pdf`. ' +
      'An envelope holds 1 to `MAX_DOCUMENTS_PER_ENVELOPE` (default 10) documents (409 `document-limit` past it), together at most `MAX_ENVELOPE_BYTES` (default 100 MiB), checked at send. Each is checked, cleaned and frozen at send like the first.',
    security: bearer,
    request: { params, headers: ifMatch, body: jsonRequestBody(uploadRequest, { example: { filename: 'house-rules.pdf', mimetype: 'application/pdf' } }) },
    responses: {
      201: {
        description: 'The document is added; upload it to `uploadUrl`.',
        headers: { 'Cache-Control': cacheControlNoStore('the body carries a signed URL'), ETag: etag, Location: { description: 'The envelope.', required: true, schema: { type: 'string' } } },
        content: { 'application/json': { schema: documentTicketResponse, example: { documentId: ids.document, uploadUrl: 'https://example.blob.core.windows.net/documents/0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0d/0193a5d1-6b20-7c3b-8d4e-6f7a8b9c0d2f/house-rules.pdf?sv=2025-01-05&sp=cw&sig=...', blobName: `${ids.envelope}/${ids.document}/house-rules.pdf`, expiresAt: '2026-11-29T10:15:00.000Z' } } },
      },
      400: bodyRefused,
      401: unauthorized,
      403: forbidden,
      404: problem(404, 'No envelope with this id, or another owner\'s (the same answer).', ['envelope-not-found']),
      409: problem(409, 'The envelope is sent (`envelope-locked`) or closed (`envelope-closed`), already holds the most documents (`document-limit`), or concurrent requests kept it busy (`envelope-contended`).', ['envelope-locked', 'envelope-closed', 'document-limit', 'envelope-contended']),
      412: problem(412, '`If-Match` names another version of the envelope (`etag-mismatch`).', ['etag-mismatch']),
      413: jsonBodyTooLarge,
      415: problem(415, '`mimetype` is not `application/pdf` (`unsupported-document-type`), or the body is not JSON (`unsupported-media-type`).', ['unsupported-document-type', 'unsupported-media-type']),
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'UpdateEnvelopeDocument',
    method: 'patch',
    path: '/envelopes/{id}/documents/{documentId}',
    tags: ['Envelopes'],
    summary: 'Rename a draft\'s document or move it in the order',
    description:
      'Renames the document (`name`) and moves it to position `order` (1 to the number of documents; the others keep their relative order). The first document is the one the envelope\'s own `documentName`, `documentUrl`, `documentSha256` and `pageCount` describe; fields stay on the document they are on. The same name and place change nothing. `draft` only.',
    security: bearer,
    request: { params: documentParams, headers: ifMatch, body: jsonRequestBody(updateDocumentRequest, { example: { name: 'House rules.pdf', order: 1 } }) },
    responses: {
      200: { description: 'The envelope as it is now.', headers: { 'Cache-Control': cacheControlNoStore('the body carries signed URLs'), ETag: etag }, content: { 'application/json': { schema: envelopeResponse } } },
      400: bodyRefused,
      401: unauthorized,
      403: forbidden,
      404: notFound,
      409: problem(409, 'The envelope is sent (`envelope-locked`) or closed (`envelope-closed`), or concurrent requests kept it busy (`envelope-contended`).', ['envelope-locked', 'envelope-closed', 'envelope-contended']),
      412: problem(412, '`If-Match` names another version of the envelope (`etag-mismatch`).', ['etag-mismatch']),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'DeleteEnvelopeDocument',
    method: 'delete',
    path: '/envelopes/{id}/documents/{documentId}',
    tags: ['Envelopes'],
    summary: 'Remove a document from a draft envelope',
    description:
      'Removes the document with every field on it (`removedFieldIds` names them; `envelope.fields_replaced` is recorded when there were any) and deletes its upload. An envelope keeps at least one document (409 `last-document`). `draft` only. No body.',
    security: bearer,
    request: { params: documentParams, headers: ifMatch },
    responses: {
      200: {
        description: 'The document is removed.',
        headers: { 'Cache-Control': cacheControlNoStore('the body carries signed URLs'), ETag: etag },
        content: { 'application/json': { schema: documentRemovedResponse } },
      },
      401: unauthorized,
      403: forbidden,
      404: notFound,
      409: problem(409, 'The document is the envelope\'s last (`last-document`), the envelope is sent (`envelope-locked`) or closed (`envelope-closed`), or concurrent requests kept it busy (`envelope-contended`).', ['last-document', 'envelope-locked', 'envelope-closed', 'envelope-contended']),
      412: problem(412, '`If-Match` names another version of the envelope (`etag-mismatch`).', ['etag-mismatch']),
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'DownloadEnvelope',
    method: 'get',
    path: '/envelopes/{id}/download',
    tags: ['Envelopes'],
    summary: 'Download a completed envelope as one ZIP',
    description:
      'A completed envelope as one ZIP archive, streamed as it is made (no `Content-Length`): every sealed PDF (with `output: separate` one per document, named `01-<name>.pdf`, `02-<name>.pdf`, ... in order; with `combined` the one `combined.pdf`), `certificate.pdf` (the certificate of completion on its own), `audit.json` (the chained audit trail as `GET /api/envelopes/{id}/audit` answers it) and, under `attachments/`, the signers\' attachments. Every role of the organization that reads the envelope may download it.',
    security: bearer,
    request: { params },
    responses: {
      200: {
        description: 'The ZIP archive.',
        headers: {
          'Cache-Control': cacheControlNoStore(),
          'Content-Disposition': { description: '`attachment; filename="envelope-<id>.zip"`.', required: true, schema: { type: 'string' } },
        },
        content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
      },
      401: unauthorized,
      403: problem(403, 'A sender asking for another member\'s envelope (`forbidden-role`).', ['forbidden-role']),
      404: problem(404, 'No envelope with this id, or another organization\'s (the same answer).', ['envelope-not-found']),
      409: problem(409, 'The envelope is not completed (`envelope-not-completed`), or its documents were purged (`documents-purged`).', ['envelope-not-completed', 'documents-purged']),
      503: storageUnavailable,
      500: internalError,
    },
  },
];

/**
 * Adds the operations on an envelope's documents to `registry`.
 * @param draft the example of a draft envelope of one document (`document.ts`), from which the answers' examples are made
 */
export function registerDocumentOperations(registry: OpenAPIRegistry, draft: Record<string, unknown> & { documents: Record<string, unknown>[] }): void {
  const [first] = draft.documents;
  const added = { ...first, id: ids.document, name: 'House rules.pdf', order: 1, documentUrl: String(first?.documentUrl).replace('/contract.pdf', `/${ids.document}/house-rules.pdf`) };
  const examples: Record<string, unknown> = {
    UpdateEnvelopeDocument: { ...draft, documentName: 'House rules.pdf', documentUrl: added.documentUrl, documents: [added, { ...first, order: 2 }] },
    DeleteEnvelopeDocument: { removedFieldIds: [ids.field], envelope: draft },
  };
  for (const operation of operations) {
    const example = examples[operation.operationId];
    const ok = operation.responses[200] as { content?: Record<string, { schema: unknown; example?: unknown }> } | undefined;
    if (example !== undefined && ok?.content !== undefined) ok.content['application/json'] = { ...ok.content['application/json']!, example };
    registry.registerPath(operation);
  }
}

matches<Matches<typeof documentTicketResponse, DocumentTicket>>(true);
