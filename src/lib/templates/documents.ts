/**
 * Documents of a template (docs/api.md#documents-of-a-template): `POST /api/templates/{id}/documents`,
 * `PATCH` and `DELETE /api/templates/{id}/documents/{documentId}`. A draft template's list changes by
 * the very edits an envelope's does (`envelopes/documents.ts`: {@link addDocumentTo},
 * {@link changeDocumentOf}, {@link removeDocumentFrom}); only the storage around them is the
 * template's (`mutate.ts`, container `templates`). Templates keep no audit trail: the row's version
 * is what changes.
 */
import { addDocumentTo, changeDocumentOf, deleteDocumentBlobs, removeDocumentFrom, type DocumentTicket } from '../envelopes/documents.js';
import { assertPdfMimetype, uploadUrlFor } from '../envelopes/createUpload.js';
import { ifMatchSatisfied } from '../envelopes/lifecycle.js';
import type { Actor } from '../envelopes/model.js';
import type { UpdateDocumentRequest, UploadRequest } from '../envelopes/schemas.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { CONTAINERS } from '../storage/clients.js';
import { templateETag, type TemplateRecord } from './model.js';
import { mutateTemplate } from './mutate.js';

export interface TemplateDocumentOptions {
  services: Services;
  templateId: string;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
  now?: () => Date;
}

/**
 * Adds a document to a draft template the caller may change, last in order, and returns where to
 * upload it (container `templates`, `<templateId>/<documentId>/<filename>`).
 * @throws AppError 404 `template-not-found`; 403 `forbidden-role`; 412 `etag-mismatch`; 409
 *   `invalid-transition` (active), `document-limit` (past `MAX_DOCUMENTS_PER_ENVELOPE`),
 *   `template-contended`; 415 `unsupported-document-type`
 */
export async function addTemplateDocument(options: TemplateDocumentOptions & { request: UploadRequest }): Promise<{ record: TemplateRecord; ticket: DocumentTicket }> {
  const { services, request } = options;
  assertPdfMimetype(request.mimetype);
  return await changeDraftTemplate(options, async (next, now) => {
    const document = addDocumentTo(next, request.filename, services.config.maxDocumentsPerEnvelope, 'template');
    const { uploadUrl, expiresAt } = await uploadUrlFor(services, CONTAINERS.templates, document.blobName, now);
    return { changed: true, answer: { documentId: document.id, uploadUrl, blobName: document.blobName, expiresAt } };
  }).then(({ record, answer }) => ({ record, ticket: answer }));
}

/**
 * Renames a draft template's document and moves it to position `order`; the same name and place
 * change nothing (same version).
 * @throws AppError 404 (`template-not-found`, `document-not-found`); 400 (`order` past the last); the rest as {@link addTemplateDocument}
 */
export async function updateTemplateDocument(options: TemplateDocumentOptions & { documentId: string; request: UpdateDocumentRequest }): Promise<TemplateRecord> {
  const { record } = await changeDraftTemplate(options, async (next) => ({ changed: changeDocumentOf(next, options.documentId, options.request, 'template') !== null, answer: null }));
  return record;
}

/**
 * Removes a draft template's document with every field on it, then deletes its upload.
 * @returns the template as stored afterwards and the ids of the fields removed with the document
 * @throws AppError 404 (`template-not-found`, `document-not-found`); 409 `last-document`; the rest as {@link addTemplateDocument}
 */
export async function removeTemplateDocument(options: TemplateDocumentOptions & { documentId: string }): Promise<{ record: TemplateRecord; removedFieldIds: string[] }> {
  const { record, answer } = await changeDraftTemplate(options, async (next) => {
    const { document, removed } = removeDocumentFrom(next, options.documentId, 'template');
    return { changed: true, answer: { removedFieldIds: removed.map((field) => field.id), blobName: document.blobName } };
  });
  await deleteDocumentBlobs(options.services, 'templates', answer.blobName);
  return { record, removedFieldIds: answer.removedFieldIds };
}

/**
 * Runs `decide` on a copy of the draft template as stored and writes it when it changed, conditional
 * on the ETag read (`mutate.ts` retries).
 * @throws AppError 409 `invalid-transition` when the template is active (its documents are frozen)
 */
async function changeDraftTemplate<T>(
  { services, templateId, actor, ifMatch, now = () => new Date() }: TemplateDocumentOptions,
  decide: (next: TemplateRecord, now: Date) => Promise<{ changed: boolean; answer: T }>,
): Promise<{ record: TemplateRecord; answer: T }> {
  return await mutateTemplate(
    services,
    { actor, templateId },
    async (stored) => {
      if (!ifMatchSatisfied(ifMatch, templateETag(stored.record))) throw problem('etagMismatch');
      if (stored.record.status !== 'draft') {
        throw problem('invalidTransition', { detail: 'The template is active: its documents are frozen and no longer change. Create a new template.' });
      }
      const at = now();
      const next = structuredClone(stored.record);
      const { changed, answer } = await decide(next, at);
      if (!changed) return { record: stored.record, answer };
      next.updatedAt = at.toISOString();
      next.version = stored.record.version + 1;
      await services.templates.replace(stored, next);
      return { record: next, answer };
    },
    { ifMatch },
  );
}
