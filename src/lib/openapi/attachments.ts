/**
 * Files from signers in the OpenAPI document (docs/api.md#files-from-signers):
 * {@link registerAttachmentOperations} adds `POST /signing/attachments` (the recipient's upload) and
 * `GET /envelopes/{id}/attachments` and `GET /envelopes/{id}/attachments/{attachmentId}` (the owner's list and read).
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { MAX_ATTACHMENT_NAME, MAX_IMAGE_PIXELS } from '../envelopes/attachments.js';
import { ATTACHMENT_TYPES, MAX_ATTACHMENT_BYTES } from '../envelopes/fieldRules.js';
import { cacheControlNoStore, internalError, storageUnavailable, unauthorized, type Operation } from './common.js';
import { problemResponses, sha256Hex, type ProblemExample } from './responses.js';
import { SIGNING_AUTH } from './recipients.js';
import { actionAuthenticationAnswers } from './signerAuthentication.js';

const ids = { envelope: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0d', field: '0193a5d1-5a10-7c3b-8d4e-6f7a8b9c0d1e', attachment: '0193a5d2-1c3e-7f40-8a51-9b6c7d8e9f01' };

/** 201 of `POST /signing/attachments`. */
export const attachmentResponse = z
  .strictObject({
    attachmentId: z.uuid().meta({ description: 'Send `{attachmentId}` as the field\'s value with `POST /api/signing/complete`.' }),
    name: z.string().min(1).max(MAX_ATTACHMENT_NAME).meta({ description: `From \`Content-Disposition\` (\`filename*\`, else \`filename\`), without folders or control characters, at most ${MAX_ATTACHMENT_NAME} characters; else \`attachment-<n>.<ext>\`.` }),
    contentType: z.enum(ATTACHMENT_TYPES),
    size: z.int().min(1).max(MAX_ATTACHMENT_BYTES).meta({ description: 'Bytes as stored (a PDF after cleaning).' }),
    sha256: sha256Hex.meta({ description: 'SHA-256 of the bytes as stored.' }),
  })
  .meta({ id: 'Attachment', description: 'A file the recipient uploaded to one of its fields.' });

const problems = {
  'invalid-token': { detail: 'This signing link is not valid (any more): use the link of your newest e-mail about this envelope.' },
  'authentication-required': {},
  'role-cannot-act': {},
  'envelope-closed': { detail: 'The envelope is declined; nothing more can be done with it.' },
  'already-acted': { detail: 'You already acted (signed) on this envelope at 2026-11-22T10:18:40.512Z.' },
  'not-your-turn': { detail: 'It is not your turn yet: waiting for Ada Lovelace (signer).' },
  'validation-failed': { detail: 'The query is invalid: fieldId is a text field, not an attachment or image field.', errors: [{ path: 'fieldId', message: 'is a text field, not an attachment or image field' }] },
  'attachment-type': { detail: 'The file is not image/png: its first bytes are those of image/jpeg.' },
  'attachment-damaged': {},
  'image-too-many-pixels': { detail: 'The image is 10000 × 8000 pixels, more than 50 megapixels; send a smaller one.' },
  'document-damaged': {},
  'document-encrypted': {},
  'attachment-too-large': { detail: 'The file is larger than this field accepts: at most 2097152 bytes.' },
  'payload-too-large': { detail: `The request body is larger than ${MAX_ATTACHMENT_BYTES} bytes.` },
  'envelope-not-found': {},
  'attachment-not-found': {},
  'forbidden-role': { detail: 'This needs the role owner, admin or sender; you are a viewer of your organization.' },
  'documents-purged': {},
} satisfies Record<string, ProblemExample>;
const problem = problemResponses(problems);

/** One entry of `GET /envelopes/{id}/attachments`. */
const listedAttachment = z
  .strictObject({
    attachmentId: z.uuid().meta({ description: 'Read the file with `GET /api/envelopes/{id}/attachments/{attachmentId}`.' }),
    fieldId: z.uuid().meta({ description: 'The `attachment` or `image` field the file is the value of.' }),
    fieldType: z.enum(['attachment', 'image']),
    fieldLabel: z.string().nullable().meta({ description: 'The field\'s label, `null` without one.' }),
    documentId: z.uuid().meta({ description: 'The document the field is on.' }),
    recipientId: z.uuid().meta({ description: 'The signer who uploaded it.' }),
    recipientName: z.string(),
    name: z.string().min(1).max(MAX_ATTACHMENT_NAME),
    contentType: z.enum(ATTACHMENT_TYPES),
    size: z.int().min(0).max(MAX_ATTACHMENT_BYTES).meta({ description: 'Bytes as stored (a PDF after cleaning).' }),
    sha256: sha256Hex.meta({ description: 'SHA-256 of the bytes as stored.' }),
    uploadedAt: z.iso.datetime().meta({ description: 'When it was uploaded (ISO 8601, UTC).' }),
  })
  .meta({ id: 'ListedAttachment', description: 'A file a signer gave, as its value of an `attachment` or `image` field.' });

const operations: Operation[] = [
  {
    operationId: 'UploadSigningAttachment',
    method: 'post',
    path: '/signing/attachments',
    tags: ['Signing'],
    summary: 'Upload a file to an attachment or image field',
    description:
      `The body is the file's bytes, its \`Content-Type\` one of the field's \`accept\` (an \`image\` field: \`image/jpeg\` or \`image/png\`), its name in \`Content-Disposition\` (\`attachment; filename*=UTF-8''…\` or \`filename="…"\`). The bytes must be of that type by their first bytes; a PDF is parsed and cleaned as documents are (the cleaned file is stored); an image's header gives its size, at most ${MAX_IMAGE_PIXELS / 1_000_000} megapixels. The file is stored with the envelope, nothing else changes: send \`{attachmentId}\` as the field's value with \`POST /api/signing/complete\`. A file never used is deleted with the envelope. The same checks as complete's come first: token (401), lock (423), code (403), role (403), status, already acted, turn (409).`,
    security: [{ [SIGNING_AUTH]: [] }],
    request: {
      query: z.strictObject({ fieldId: z.string().meta({ description: 'One of the recipient\'s `attachment` or `image` fields.', examples: [ids.field] }) }),
      headers: z.object({ 'content-disposition': z.string().optional().meta({ description: 'The file\'s name (RFC 6266, RFC 8187).', examples: ['attachment; filename*=UTF-8\'\'passport.pdf'] }) }),
      body: {
        required: true,
        // The file's bytes; the example stands for a PDF's first line.
        content: Object.fromEntries(ATTACHMENT_TYPES.map((type) => [type, { schema: { type: 'string' as const, format: 'binary' }, ...(type === 'application/pdf' ? { example: '%PDF-1.7 …' } : {}) }])),
      },
    },
    responses: {
      201: {
        description: 'The file is stored.',
        headers: { 'Cache-Control': cacheControlNoStore() },
        content: { 'application/json': { schema: attachmentResponse, example: { attachmentId: ids.attachment, name: 'passport.pdf', contentType: 'application/pdf', size: 184_230, sha256: '3f8a1c5e7b9d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a' } } },
      },
      400: problem(400, '`fieldId` is missing, not the recipient\'s, or not an `attachment` or `image` field (`validation-failed`).', ['validation-failed']),
      401: problem(401, 'No signing token, or one that is unknown, replaced or expired (`invalid-token`).', ['invalid-token']),
      403: problem(403, `A recipient that fills no fields (\`role-cannot-act\`). ${actionAuthenticationAnswers[403]}`, ['role-cannot-act', 'authentication-required']),
      409: problem(409, 'The envelope is not `sent`, the recipient already acted, or it is not its turn.', ['envelope-closed', 'already-acted', 'not-your-turn']),
      413: problem(413, `The file is over the field's \`maxBytes\` (\`attachment-too-large\`), or over ${MAX_ATTACHMENT_BYTES} bytes (\`payload-too-large\`).`, ['attachment-too-large', 'payload-too-large']),
      415: problem(415, 'The `Content-Type` is not one the field accepts, or the bytes are not of that type (`attachment-type`).', ['attachment-type']),
      422: problem(422, `An image whose header cannot be read (\`attachment-damaged\`) or of more than ${MAX_IMAGE_PIXELS / 1_000_000} megapixels (\`image-too-many-pixels\`); a PDF that cannot be read (\`document-damaged\`, \`document-encrypted\` and the other refusals of documents).`, ['attachment-damaged', 'image-too-many-pixels', 'document-damaged', 'document-encrypted']),
      423: actionAuthenticationAnswers[423],
      500: internalError,
      503: storageUnavailable,
    },
  },
  {
    operationId: 'ListEnvelopeAttachments',
    method: 'get',
    path: '/envelopes/{id}/attachments',
    tags: ['Envelopes'],
    summary: 'List the files signers gave',
    description: 'The files the signers who signed named as the values of their `attachment` and `image` fields, in the order of the envelope\'s fields, for every role of the organization that reads the envelope. An upload no value names (a signer who has not finished, a file replaced before Finish) is not listed.',
    security: [{ bearerAuth: [] }],
    request: {
      params: z.object({
        id: z.string().meta({ description: 'The envelope id. Another organization\'s envelope is answered 404, exactly as a missing one.', examples: [ids.envelope] }),
      }),
    },
    responses: {
      200: {
        description: 'The files, possibly none.',
        content: { 'application/json': { schema: z.strictObject({ attachments: z.array(listedAttachment) }).meta({ id: 'AttachmentList' }), example: { attachments: [{ attachmentId: ids.attachment, fieldId: ids.field, fieldType: 'attachment', fieldLabel: 'Passport', documentId: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0e', recipientId: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0f', recipientName: 'Alice Jones', name: 'passport.pdf', contentType: 'application/pdf', size: 184_230, sha256: '3f8a1c5e7b9d2f4a6c8e0b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f1a', uploadedAt: '2026-11-22T10:15:30.123Z' }] } } },
      },
      401: unauthorized,
      403: problem(403, 'A sender asking for another member\'s envelope (`forbidden-role`).', ['forbidden-role']),
      404: problem(404, 'No envelope with this id, or another organization\'s (`envelope-not-found`).', ['envelope-not-found']),
      409: problem(409, 'The envelope\'s documents and attachments were purged (`documents-purged`).', ['documents-purged']),
      500: internalError,
      503: storageUnavailable,
    },
  },
  {
    operationId: 'GetEnvelopeAttachment',
    method: 'get',
    path: '/envelopes/{id}/attachments/{attachmentId}',
    tags: ['Envelopes'],
    summary: 'Read a file a signer uploaded',
    description: 'A read-only SAS URL of the attachment, valid 15 minutes, for every role of the organization that reads the envelope. The attachment ids are those the signers\' values name.',
    security: [{ bearerAuth: [] }],
    request: {
      params: z.object({
        id: z.string().meta({ description: 'The envelope id. Another organization\'s envelope is answered 404, exactly as a missing one.', examples: [ids.envelope] }),
        attachmentId: z.string().meta({ description: 'The attachment\'s id.', examples: [ids.attachment] }),
      }),
    },
    responses: {
      200: {
        description: 'Where to read the file.',
        headers: { 'Cache-Control': cacheControlNoStore('the body carries a signed URL') },
        content: { 'application/json': { schema: z.strictObject({ url: z.url().meta({ description: 'Read-only SAS URL, valid 15 minutes.' }) }).meta({ id: 'AttachmentUrl' }), example: { url: `https://account.blob.core.windows.net/originals/${ids.envelope}/attachments/${ids.attachment}?sv=2025-01-05&sp=r&sig=REDACTED` } } },
      },
      401: unauthorized,
      403: problem(403, 'A sender asking for another member\'s envelope (`forbidden-role`).', ['forbidden-role']),
      404: problem(404, 'No envelope with this id, or another organization\'s (`envelope-not-found`); or no attachment with this id in it (`attachment-not-found`).', ['envelope-not-found', 'attachment-not-found']),
      409: problem(409, 'The envelope\'s documents and attachments were purged (`documents-purged`).', ['documents-purged']),
      500: internalError,
      503: storageUnavailable,
    },
  },
];

/** Adds the operations on signers' files to `registry`. */
export function registerAttachmentOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations) registry.registerPath(operation);
}
