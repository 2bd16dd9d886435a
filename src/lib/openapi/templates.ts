/**
 * The template endpoints in the OpenAPI document (docs/api.md#templates): {@link registerTemplateOperations}
 * adds create, list, read, update, delete and use under `paths`. Response schemas are strict objects
 * tied at compile time to the types the service answers with (bottom of this file).
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { OUTPUTS, SIGNING_ORDERS } from '../envelopes/model.js';
import { SUPPORTED_LOCALES } from '../i18n/locales.js';
import type { TemplateField, TemplateRole, TemplateView } from '../templates/model.js';
import { newTemplateContent, TEMPLATE_STATUSES, TEMPLATE_VISIBILITIES } from '../templates/model.js';
import { MAX_FIELDS, updateDocumentRequest, uploadRequest } from '../envelopes/schemas.js';
import { documentTicketResponse } from './documents.js';
import { createTemplateRequest, listTemplatesQuery, MAX_ROLES, updateTemplateRequest, useTemplateRequest } from '../templates/schemas.js';
import { cacheControlNoStore, deleteOperation, documentProblems, ifMatch, internalError, jsonBodyTooLarge, jsonRequestBody, listQueryRefused, notJson, ownedIdParam, ownerProblems, storageUnavailable, unauthorized, type Operation } from './common.js';
import { envelopeDocumentResponse, envelopeResponse, fieldResponse, problemResponses, signerRole, timestamp, type ProblemExample } from './responses.js';
import { matches, type Matches } from './ties.js';

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/).meta({ description: 'Lower-case hex SHA-256.' });

export const templateRoleResponse = z
  .strictObject({
    id: z.uuid().meta({ description: 'Assigned by the service unless a new UUID was sent; send it back to keep the role (and its fields).' }),
    name: z.string().min(1).max(100),
    role: signerRole,
    routingOrder: z.int().min(1).max(100),
  })
  .meta({ id: 'TemplateRole', description: 'A role of a template: at use, one recipient takes it.' });

const { recipientId: _recipientId, ...fieldShape } = fieldResponse.shape;
export const templateFieldResponse = z
  .strictObject({
    ...fieldShape,
    roleId: z.uuid().meta({ description: 'The role whose recipient fills it.' }),
    documentId: z.uuid().optional().meta({ description: 'The document the field is on (an `id` of the template\'s `documents`); always present in a template\'s fields.' }),
  })
  .meta({ id: 'TemplateField', description: 'A field of a template: an envelope field with `roleId` in place of `recipientId`.' });

export const publicLinkResponse = z
  .strictObject({
    enabled: z.boolean(),
    url: z.url().nullable().meta({ description: '`<PUBLIC_BASE_URL>/api/sign/t/<publicId>` (`publicId` 22 random base64url characters, new each time the link is enabled); `null` while disabled.' }),
    uses: z.int().min(0).nullable().meta({ description: 'Envelopes made through the current URL (what `maxUses` counts); `null` while disabled.' }),
    roleName: z.string().min(1).max(100).meta({ description: 'The open role: whoever opens the link takes it.' }),
    maxUses: z.int().min(1).nullable().meta({ description: 'Envelopes the link makes in all; `null`: no limit.' }),
    expiresAt: timestamp.nullable().meta({ description: 'When the link stops working; `null`: never.' }),
    recipients: z.array(z.strictObject({ roleName: z.string(), email: z.email(), name: z.string() })).meta({ description: 'The fixed recipient of each other role.' }),
  })
  .meta({ id: 'PublicLink', description: 'The template\'s public link (docs/api.md, Public links).' });

export const templateResponse = z
  .strictObject({
    id: z.uuid({ version: 'v7' }),
    ownerId: z.uuid().meta({ description: 'The member who made it; it stays theirs whoever changes it.' }),
    ownerEmail: z.email().nullable().meta({ description: 'That member\'s e-mail address; `null` only for a template made before addresses were recorded with templates whose creator is no longer a member.' }),
    name: z.string().min(1).max(200),
    status: z.enum(TEMPLATE_STATUSES).meta({ description: '`draft` until activated; `active` once its document is checked and frozen (envelopes can then be made from it).' }),
    visibility: z.enum(TEMPLATE_VISIBILITIES).meta({ description: '`private` (the default, and every template made before visibility existed): its creator, admins and the owner use it, viewers read it; `organization`: every sender of the organization lists and uses it too. Only its creator, admins and the owner change it.' }),
    documentName: z.string().meta({ description: 'The first document\'s name.' }),
    documentUrl: z.url().meta({ description: 'Read-only SAS URL of the first document, valid 15 minutes from the response: the upload while `draft`, the frozen copy once active.' }),
    documentSha256: sha256Hex.nullable().meta({ description: 'SHA-256 of the first document\'s frozen copy; `null` while `draft`.' }),
    pageCount: z.int().min(1).nullable().meta({ description: 'Pages of the first document\'s frozen copy; `null` while `draft`.' }),
    documents: z
      .array(envelopeDocumentResponse)
      .min(1)
      .meta({ description: 'Every document, in `order` (1 to `MAX_DOCUMENTS_PER_ENVELOPE`), as an envelope shows them (the first\'s `id` is the template\'s); `pageCount` and hashes once active.' }),
    roles: z.array(templateRoleResponse).max(MAX_ROLES),
    fields: z.array(templateFieldResponse).max(MAX_FIELDS),
    signingOrder: z.enum(SIGNING_ORDERS),
    remindEveryDays: z.int().min(1).max(30).nullable(),
    expiresInDays: z.int().min(1).max(365).nullable(),
    locale: z.enum(SUPPORTED_LOCALES).meta({ description: 'The language of envelopes made from it (`en` unless set).' }),
    publicLink: publicLinkResponse.nullable().meta({ description: 'Its public link; `null` when it never had one.' }),
    output: z.enum(OUTPUTS).meta({ description: 'The `output` of envelopes made from it: `separate` (default) or `combined`.' }),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'Template', description: 'A document with roles and fields, from which envelopes are made.' });

export const createdTemplateResponse = z
  .strictObject({
    template: templateResponse,
    uploadUrl: z.url().meta({
      description: 'SAS URL with create and write permission on this one blob, valid `UPLOAD_URL_TTL_SECONDS`: `PUT <uploadUrl>` with the PDF, `x-ms-blob-type: BlockBlob` and `Content-Type: application/pdf`.',
    }),
    blobName: z.string().meta({ description: '`<templateId>/<filename>` in the container `templates`.' }),
  })
  .meta({ id: 'CreatedTemplate', description: 'The new draft template and where to upload its document.' });

/** 200 of `DELETE /templates/{id}/documents/{documentId}`. */
export const templateDocumentRemovedResponse = z
  .strictObject({
    removedFieldIds: z.array(z.uuid()).meta({ description: 'The fields that were on the document and went with it; `[]` when none.' }),
    template: templateResponse,
  })
  .meta({ id: 'TemplateDocumentRemoved', description: 'The fields removed with the document, and the template as it is now.' });

export const templateListResponse = z.array(templateResponse).meta({ id: 'TemplateList', description: 'The templates of the caller\'s organization it may read, newest first.' });

const ids = {
  template: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e0f',
  client: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e11',
  landlord: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e12',
  field: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e21',
  envelope: '0193a5d1-7b3c-7d4e-9f5a-6b7c8d9e0f1a',
  signer: '0193a5d1-7b3c-7d4e-9f5a-6b7c8d9e0f2b',
  owner: '0193a5d1-1111-7222-8333-444455556666',
  document: '0193a5d1-6a2b-7c3d-8e4f-5a6b7c8d9e31',
};
const blob = 'https://account.blob.core.windows.net';
const sas = 'sv=2025-01-05&se=2026-11-22T10%3A30%3A30Z&sr=b&sp=r&sig=REDACTED';
const draftTemplate = {
  id: ids.template,
  ownerId: ids.owner,
  ownerEmail: 'alice@example.com',
  name: 'Lease agreement',
  status: 'draft',
  documentName: 'lease.pdf',
  documentUrl: `${blob}/templates/${ids.template}/lease.pdf?${sas}`,
  documents: [{ id: ids.template, name: 'lease.pdf', order: 1, pageCount: null, sha256: null, uploadSha256: null, documentUrl: `${blob}/templates/${ids.template}/lease.pdf?${sas}` }],
  ...newTemplateContent(),
  createdAt: '2026-11-22T10:15:30.123Z',
  updatedAt: '2026-11-22T10:15:30.123Z',
};
const roles = [
  { id: ids.client, name: 'Client', role: 'signer', routingOrder: 1 },
  { id: ids.landlord, name: 'Landlord', role: 'signer', routingOrder: 2 },
];
const fields = [{ id: ids.field, roleId: ids.client, type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.06, required: true, label: 'Client signature' }];
const activeTemplate = {
  ...draftTemplate,
  status: 'active',
  documentUrl: `${blob}/originals/${ids.template}/lease.pdf?${sas}`,
  documentSha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  pageCount: 2,
  documents: [
    {
      id: ids.template,
      name: 'lease.pdf',
      order: 1,
      pageCount: 2,
      sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      uploadSha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      documentUrl: `${blob}/originals/${ids.template}/lease.pdf?${sas}`,
    },
  ],
  roles,
  fields: fields.map((field) => ({ ...field, documentId: ids.template })),
  signingOrder: 'sequential',
  expiresInDays: 14,
  visibility: 'organization',
  updatedAt: '2026-11-22T10:17:02.001Z',
};
const sentEnvelope = {
  id: ids.envelope,
  status: 'sent',
  ownerId: ids.owner,
  ownerEmail: 'alice@example.com',
  documentName: 'lease.pdf',
  documentUrl: `${blob}/originals/${ids.envelope}/lease.pdf?${sas}`,
  documentSha256: activeTemplate.documentSha256,
  pageCount: 2,
  documents: [{ id: ids.envelope, name: 'lease.pdf', order: 1, pageCount: 2, sha256: activeTemplate.documentSha256, uploadSha256: activeTemplate.documentSha256, documentUrl: `${blob}/originals/${ids.envelope}/lease.pdf?${sas}` }],
  signers: [
    { id: ids.signer, recipientId: ids.signer, email: 'carol@example.com', name: 'Carol Client', role: 'signer', routingOrder: 1, status: 'sent', actedAt: null, declineReason: null, lastEmail: { type: 'invitation', status: 'queued', at: '2026-11-23T09:00:00.000Z' }, locale: null, delivery: ['email'], authentication: { method: 'none' } },
  ],
  fields: [{ ...fields[0], roleId: undefined, id: '0193a5d1-7b3c-7d4e-9f5a-6b7c8d9e0f3c', recipientId: ids.signer }].map(({ roleId: _roleId, ...field }) => field),
  signingOrder: 'sequential',
  expiresAt: '2026-12-07T09:00:00.000Z',
  remindEveryDays: null,
  createdAt: '2026-11-23T09:00:00.000Z',
  updatedAt: '2026-11-23T09:00:00.000Z',
  sentAt: '2026-11-23T09:00:00.000Z',
  completedAt: null,
  signedUrl: null,
  hash: null,
  purgedAt: null,
  voidedReason: null,
  templateId: ids.template,
  locale: 'en',
  allowReassign: false,
  output: 'separate',
};

const json = 'application/json';
const bearer = [{ bearerAuth: [] }];
const noStore = cacheControlNoStore('the body carries signed URLs');
const etag = { description: 'Strong ETag of this version; send it as `If-Match` to update only that version.', required: true, schema: { type: 'string' as const } };

/** The `detail` of the 403 a sender gets for another member's `private` template. */
const PRIVATE_TEMPLATE = 'This template is private to the member who made it: only they, an admin or the owner reach it; you are a sender of your organization.';

const problems = {
  ...ownerProblems,
  ...documentProblems,
  'validation-failed': {
    detail: 'The request body is invalid: roles.1.name repeats the name of role 0 (names are compared without regard to case).',
    errors: [{ path: 'roles.1.name', message: 'repeats the name of role 0 (names are compared without regard to case)' }],
  },
  'role-missing': {
    type: 'validation-failed',
    detail: `The request body is invalid: recipients has no recipient for role "Landlord" (${ids.landlord}): each role takes exactly one recipient.`,
    errors: [{ path: 'recipients', message: `has no recipient for role "Landlord" (${ids.landlord}): each role takes exactly one recipient` }],
  },
  'template-not-found': {},
  'forbidden-role': { detail: PRIVATE_TEMPLATE },
  'template-private': { type: 'forbidden-role', detail: PRIVATE_TEMPLATE },
  'template-not-yours': {
    type: 'forbidden-role',
    detail: 'Only the member who made this template, an admin or the owner changes it; you are a sender of your organization.',
  },
  'template-not-active': {},
  'invalid-transition': {},
  'template-frozen': { type: 'invalid-transition', detail: 'The template is active: its documents are frozen and no longer change. Create a new template.' },
  'document-not-found': { detail: 'This template has no document with this id.' },
  'document-limit': { detail: 'The template holds 10 documents, the most allowed (10); remove one first.' },
  'last-document': { detail: 'A template keeps at least one document: this is its last. Add another before removing it.' },
  'template-contended': {},
  'envelope-contended': { detail: 'The document is being sent by another request at the same time; retry.' },
  'no-signer': {},
  'etag-mismatch': {},
  'field-outside-document': {
    detail: '1 field is on a page the document does not have (it has 2): fields.0.page.',
    errors: [{ path: 'fields.0.page', message: 'is 3, but the document has 2 pages' }],
  },
} satisfies Record<string, ProblemExample>;

const problem = problemResponses(problems);
const notFound = problem(404, 'No template with this id, or another organization\'s (the same answer).', ['template-not-found']);
/** 403 of the operations that change a template: another member's, asked by a sender. */
const notYours = problem(403, 'A sender asked to change another member\'s template (`forbidden-role`): only its creator, admins and the owner change it.', ['template-not-yours']);
const templateIdParam = ownedIdParam('template', ids.template);

const createBody = createTemplateRequest;
const updateBody = updateTemplateRequest;
const useBody = useTemplateRequest;

const update = (method: 'put' | 'patch'): Operation => ({
  operationId: method === 'put' ? 'UpdateTemplate' : 'PatchTemplate',
  method,
  path: '/templates/{id}',
  tags: ['Templates'],
  summary: method === 'put' ? 'Change a template, or activate it' : 'Change a template, or activate it (same as PUT)',
  description:
    'Its creator, an admin or the owner (another sender: 403 `forbidden-role`); the template stays its creator\'s. `visibility` shares it with every sender of the organization (`organization`) or not (`private`). What is present is applied; `roles` and `fields` each replace the whole list (ids kept when sent back; fields of a removed role go with it). `{"status": "active"}` checks the uploaded document exactly as sending an envelope does (size, PDF header, parses, no password, no hidden layers; active content removed) and freezes it: from then on the document never changes, and a later PUT to the upload URL changes nothing. An active template can still change its name, roles, fields and settings; every field must fit its document\'s pages (422 otherwise). An active template cannot go back to `draft`. `publicLink` turns the template\'s public link on or off and limits it (an active template only, 409 `template-not-active`; exactly one open role, `roleName`, and a fixed recipient for every other role, else 400 naming the field); the answer\'s `publicLink.url` is the link, and disabling it makes that URL answer 404 at once.',
  security: bearer,
  request: {
    params: templateIdParam,
    headers: ifMatch,
    body: jsonRequestBody(updateBody, {
      examples: {
        roles: {
          summary: 'Roles and fields by role',
          value: {
            roles: [{ id: ids.client, name: 'Client' }, { name: 'Landlord', routingOrder: 2 }],
            fields: [{ roleId: ids.client, type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.06 }],
            signingOrder: 'sequential',
            expiresInDays: 14,
          },
        },
        activate: { summary: 'Activate', value: { status: 'active' } },
        publicLink: {
          summary: 'Enable a public link',
          value: { publicLink: { enabled: true, roleName: 'Client', maxUses: 500, expiresAt: '2026-12-31T23:59:59.000Z', recipients: [{ roleName: 'Landlord', email: 'lara@example.com', name: 'Lara Landlord' }] } },
        },
      },
    }),
  },
  responses: {
    200: { description: 'The template as stored.', headers: { 'Cache-Control': noStore, ETag: etag }, content: { [json]: { schema: templateResponse, example: activeTemplate } } },
    400: problem(400, 'The body is not JSON (`malformed-json`) or is refused (`validation-failed`, each complaint in `errors`): unknown fields, a role name repeated (case-insensitive), a field naming no role or a role that is not of role `signer`, a `visibility` other than `private` or `organization`, bounds.', ['validation-failed', 'malformed-json']),
    401: unauthorized,
    403: notYours,
    404: notFound,
    409: problem(
      409,
      'Activating: the document is not uploaded yet (`document-not-uploaded`), or another request is freezing other bytes (`envelope-contended`); an active template sent back to `draft` (`invalid-transition`); a public link on a draft (`template-not-active`); concurrent requests kept it busy (`template-contended`).',
      ['document-not-uploaded', 'envelope-contended', 'invalid-transition', 'template-not-active', 'template-contended'],
    ),
    412: problem(412, '`If-Match` names another version of the template (`etag-mismatch`).', ['etag-mismatch']),
    413: problem(413, 'The JSON body is larger than 1 MiB, or (activating) the document is larger than `MAX_DOCUMENT_BYTES` (`document-too-large`).', ['payload-too-large', 'document-too-large']),
    415: problem(415, 'The body is not sent as `application/json`, or (activating) the document is not a PDF (`document-not-pdf`).', ['unsupported-media-type', 'document-not-pdf']),
    422: problem(
      422,
      'A field is on a page the frozen document does not have (`field-outside-document`, at activation and at any later change); or (activating) the document cannot be sealed or frozen, as for sending an envelope.',
      ['field-outside-document', 'document-damaged', 'document-encrypted', 'document-hidden-content', 'document-copied'],
    ),
    503: storageUnavailable,
    500: internalError,
  },
});

const operations: Operation[] = [
  {
    operationId: 'CreateTemplate',
    method: 'post',
    path: '/templates',
    tags: ['Templates'],
    summary: 'Create a template and get its upload URL',
    description:
      'Creates a `draft` template of the caller\'s, `private` unless `visibility` is `organization` (shared with every sender of the organization), with no roles or fields, and answers a SAS URL to upload its PDF, with the rules of `POST /api/GetUploadUrl`: `mimetype` must be `application/pdf` (415 otherwise), `filename` 1 to 200 characters ending in `.pdf`, no path separators or control characters. The blob is `<templateId>/<filename>` in the container `templates`.',
    security: bearer,
    request: { body: jsonRequestBody(createBody, { example: { name: 'Lease agreement', filename: 'lease.pdf', mimetype: 'application/pdf' } }) },
    responses: {
      201: {
        description: 'The draft template and its upload URL.',
        headers: {
          'Cache-Control': noStore,
          ETag: etag,
          Location: { description: '`/api/templates/{id}`.', required: true, schema: { type: 'string' } },
        },
        content: {
          [json]: {
            schema: createdTemplateResponse,
            example: { template: draftTemplate, uploadUrl: `${blob}/templates/${ids.template}/lease.pdf?sv=2025-01-05&se=2026-11-22T10%3A30%3A30Z&sr=b&sp=cw&sig=REDACTED`, blobName: `${ids.template}/lease.pdf` },
          },
        },
      },
      400: problem(400, 'The body is not JSON (`malformed-json`) or is refused (`validation-failed`): `name` or `filename` missing or invalid, unknown fields.', ['validation-failed', 'malformed-json']),
      401: unauthorized,
      413: jsonBodyTooLarge,
      415: problem(415, 'The body is not sent as `application/json`, or `mimetype` is not `application/pdf` (`unsupported-document-type`).', ['unsupported-media-type', 'unsupported-document-type']),
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListTemplates',
    method: 'get',
    path: '/templates',
    tags: ['Templates'],
    summary: 'List the templates the caller may read, newest first',
    description:
      'A sender\'s own templates and those of other members shared with the organization (`visibility: organization`); for an admin, the owner and a viewer every template of the organization. Each names its creator (`ownerId`, `ownerEmail`). At most `limit` (default 1000) templates; when more exist, the `Link` header names the next page.',
    security: bearer,
    request: { query: listTemplatesQuery },
    responses: {
      200: {
        description: 'The templates of this page, newest first.',
        headers: { 'Cache-Control': noStore, Link: { description: '`<...&cursor=...>; rel="next"` when more templates exist.', required: false, schema: { type: 'string' } } },
        content: { [json]: { schema: templateListResponse, example: [activeTemplate] } },
      },
      400: listQueryRefused,
      401: unauthorized,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'GetTemplate',
    method: 'get',
    path: '/templates/{id}',
    tags: ['Templates'],
    summary: 'Read a template',
    security: bearer,
    request: { params: templateIdParam },
    responses: {
      200: { description: 'The template, with a fresh read URL of its document.', headers: { 'Cache-Control': noStore, ETag: etag }, content: { [json]: { schema: templateResponse, example: activeTemplate } } },
      401: unauthorized,
      403: problem(403, 'A sender asked for another member\'s `private` template (`forbidden-role`).', ['forbidden-role']),
      404: notFound,
      503: storageUnavailable,
      500: internalError,
    },
  },
  update('put'),
  update('patch'),
  deleteOperation({
    operationId: 'DeleteTemplate',
    path: '/templates/{id}',
    tags: ['Templates'],
    summary: 'Delete a template',
    description:
      'Its creator, an admin or the owner (another sender: 403 `forbidden-role`). Deletes a `draft` or `active` template with its upload and frozen document. Envelopes already made from it are not affected: each has its own copy of the frozen document and keeps its `templateId`.',
    security: bearer,
    request: { params: templateIdParam },
    notFound: notFound,
    responses: { 403: notYours },
    contended: problem(409, 'Concurrent requests kept changing it (`template-contended`); retry.', ['template-contended']),
  }),
  {
    operationId: 'CreateEnvelopeFromTemplate',
    method: 'post',
    path: '/templates/{id}/envelopes',
    tags: ['Templates'],
    summary: 'Make an envelope from an active template',
    description:
      'The envelope is the caller\'s, whoever made the template: a sender uses its own templates and those shared with the organization (another member\'s `private` template: 403 `forbidden-role`); an admin and the owner use every template of the organization. The envelope\'s document is the template\'s frozen document (no upload: `documentSha256` and `pageCount` are set from the start), copied to the envelope\'s own storage so that deleting the template never affects it. Its settings are the template\'s (`signingOrder`, `remindEveryDays`); `expiresAt` is the body\'s, else now + `expiresInDays` when the template sets it, else the send time + `ENVELOPE_TTL_DAYS`. One signer per role, in the template\'s role order, with the role\'s `role` and `routingOrder`: each role exactly once, named by `roleId` or `roleName` (case-insensitive); a missing, unknown or repeated role is 400 naming it. The template\'s fields, each with a new id and the recipient of its role; `values` prefill fields named by the template\'s field ids. `send` (default `true`) sends the envelope at once, exactly as `PUT /api/envelopes/{id}` with `{"status": "sent"}` does (invitations, quota, verified sender); when sending is refused the envelope is not kept. The audit trail starts with `envelope.created` carrying `templateId`.',
    security: bearer,
    request: {
      params: templateIdParam,
      body: jsonRequestBody(useBody, {
        examples: {
          byName: {
            summary: 'Recipients by role name, sent at once',
            value: { recipients: [{ roleName: 'Client', email: 'carol@example.com', name: 'Carol Client' }, { roleName: 'Landlord', email: 'larry@example.com', name: 'Larry Landlord' }] },
          },
          byId: {
            summary: 'By role id, kept as a draft',
            value: {
              recipients: [{ roleId: ids.client, email: 'carol@example.com', name: 'Carol Client' }, { roleId: ids.landlord, email: 'larry@example.com', name: 'Larry Landlord' }],
              send: false,
              expiresAt: '2026-12-31T23:59:59.000Z',
            },
          },
        },
      }),
    },
    responses: {
      201: {
        description: 'The envelope, `sent` (or `draft` with `send: false`), with `templateId`.',
        headers: {
          'Cache-Control': noStore,
          ETag: { description: 'Strong ETag of the envelope.', required: true, schema: { type: 'string' } },
          Location: { description: '`/api/envelopes/{id}`.', required: true, schema: { type: 'string' } },
        },
        content: { [json]: { schema: envelopeResponse, example: sentEnvelope } },
      },
      400: problem(400, 'The body is not JSON (`malformed-json`) or is refused (`validation-failed`, each complaint in `errors`): a role missing, unknown or repeated, a value for no field of the template, a recipient as a signer entry would be refused (e-mail, name, repeated e-mail), `expiresAt` out of bounds.', [
        'validation-failed',
        'role-missing',
        'malformed-json',
      ]),
      401: unauthorized,
      403: problem(403, 'Sending needs a verified owner while the service requires verified senders (`email-unverified`); send `"send": false` to make a draft. A sender asked for another member\'s `private` template (`forbidden-role`).', ['email-unverified', 'template-private']),
      404: notFound,
      409: problem(409, 'The template is a draft (`template-not-active`), or none of its roles is of role `signer` (`no-signer`).', ['template-not-active', 'no-signer']),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
];

/** A draft template whose added document was moved first. */
const twoDocumentTemplate = {
  ...draftTemplate,
  documentName: 'House rules.pdf',
  documentUrl: `${blob}/templates/${ids.template}/${ids.document}/house-rules.pdf?${sas}`,
  documents: [
    { id: ids.document, name: 'House rules.pdf', order: 1, pageCount: null, sha256: null, uploadSha256: null, documentUrl: `${blob}/templates/${ids.template}/${ids.document}/house-rules.pdf?${sas}` },
    { ...draftTemplate.documents[0]!, order: 2 },
  ],
};
const documentParams = templateIdParam.extend({
  documentId: z.string().meta({ description: 'The document\'s id (an `id` of the template\'s `documents`).', examples: [ids.document] }),
});
const documentNotFound = problem(404, 'No template with this id, or another organization\'s (`template-not-found`); or the template has no document with this id (`document-not-found`).', ['template-not-found', 'document-not-found']);
const staleTemplate = problem(412, '`If-Match` names another version of the template (`etag-mismatch`).', ['etag-mismatch']);
/** The 409s of every document operation, and those `extra` names. */
const documentConflict = (extra: { text: string; keys: (keyof typeof problems)[] }): ReturnType<typeof problem> =>
  problem(409, `The template is active: its documents are frozen (\`invalid-transition\`)${extra.text}, or concurrent requests kept it busy (\`template-contended\`).`, ['template-frozen', ...extra.keys, 'template-contended']);

/** `POST`, `PATCH` and `DELETE` of a template's documents (docs/api.md#documents-of-a-template): the envelope's, on a draft template. */
const documentOperations: Operation[] = [
  {
    operationId: 'AddTemplateDocument',
    method: 'post',
    path: '/templates/{id}/documents',
    tags: ['Templates'],
    summary: 'Add a document to a draft template',
    description:
      'As for an envelope (`POST /envelopes/{id}/documents`): the document is last in order, its upload the blob `<templateId>/<documentId>/<filename>` of the container `templates`; at most `MAX_DOCUMENTS_PER_ENVELOPE` (409 `document-limit` past it). Activation checks, cleans and freezes every document; an envelope made from the template gets them all, in order, with every field on its document.',
    security: bearer,
    request: { params: templateIdParam, headers: ifMatch, body: jsonRequestBody(uploadRequest, { example: { filename: 'house-rules.pdf', mimetype: 'application/pdf' } }) },
    responses: {
      201: {
        description: 'The document is added; upload it to `uploadUrl`.',
        headers: { 'Cache-Control': cacheControlNoStore('the body carries a signed URL'), ETag: etag, Location: { description: 'The template.', required: true, schema: { type: 'string' } } },
        content: {
          [json]: {
            schema: documentTicketResponse,
            example: { documentId: ids.document, uploadUrl: `${blob}/templates/${ids.template}/${ids.document}/house-rules.pdf?sv=2025-01-05&sp=cw&sig=REDACTED`, blobName: `${ids.template}/${ids.document}/house-rules.pdf`, expiresAt: '2026-11-22T10:30:30.000Z' },
          },
        },
      },
      400: problem(400, 'The body is not JSON (`malformed-json`) or the schema refuses it (`validation-failed`).', ['validation-failed', 'malformed-json']),
      401: unauthorized,
      403: notYours,
      404: notFound,
      409: documentConflict({ text: ', or it already holds the most documents (`document-limit`)', keys: ['document-limit'] }),
      412: staleTemplate,
      413: jsonBodyTooLarge,
      415: problem(415, '`mimetype` is not `application/pdf` (`unsupported-document-type`), or the body is not JSON (`unsupported-media-type`).', ['unsupported-document-type', 'unsupported-media-type']),
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'UpdateTemplateDocument',
    method: 'patch',
    path: '/templates/{id}/documents/{documentId}',
    tags: ['Templates'],
    summary: 'Rename a draft template\'s document or move it in the order',
    description: 'As for an envelope (`PATCH /envelopes/{id}/documents/{documentId}`): `name` renames, `order` moves (the others keep their relative order); fields stay on their document. The same name and place change nothing (same `ETag`).',
    security: bearer,
    request: { params: documentParams, headers: ifMatch, body: jsonRequestBody(updateDocumentRequest, { example: { name: 'House rules.pdf', order: 1 } }) },
    responses: {
      200: { description: 'The template as it is now.', headers: { 'Cache-Control': noStore, ETag: etag }, content: { [json]: { schema: templateResponse, example: twoDocumentTemplate } } },
      400: problem(400, 'The body is not JSON (`malformed-json`) or the schema refuses it, or `order` is past the last document (`validation-failed`).', ['validation-failed', 'malformed-json']),
      401: unauthorized,
      403: notYours,
      404: documentNotFound,
      409: documentConflict({ text: '', keys: [] }),
      412: staleTemplate,
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'DeleteTemplateDocument',
    method: 'delete',
    path: '/templates/{id}/documents/{documentId}',
    tags: ['Templates'],
    summary: 'Remove a document from a draft template',
    description: 'Removes the document with every field on it (`removedFieldIds` names them) and deletes its upload. A template keeps at least one document (409 `last-document`). No body.',
    security: bearer,
    request: { params: documentParams, headers: ifMatch },
    responses: {
      200: { description: 'The document is removed.', headers: { 'Cache-Control': noStore, ETag: etag }, content: { [json]: { schema: templateDocumentRemovedResponse, example: { removedFieldIds: [], template: draftTemplate } } } },
      401: unauthorized,
      403: notYours,
      404: documentNotFound,
      409: documentConflict({ text: ', or the document is its last (`last-document`)', keys: ['last-document'] }),
      412: staleTemplate,
      503: storageUnavailable,
      500: internalError,
    },
  },
];

/** Registers the template endpoints under `paths`. */
export function registerTemplateOperations(registry: OpenAPIRegistry): void {
  for (const operation of [...operations, ...documentOperations]) registry.registerPath(operation);
}

// Compile-time ties between the schemas above and the types the service answers with.
matches<Matches<typeof templateResponse, TemplateView>>(true);
matches<Matches<typeof templateRoleResponse, TemplateRole>>(true);
matches<Matches<typeof templateFieldResponse, TemplateField>>(true);
