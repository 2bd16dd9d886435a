/**
 * Several documents (docs/api.md#several-documents), for envelopes and templates alike: the list as a
 * record holds it, the edits of a draft's list (add, rename or move, remove: {@link addDocumentTo},
 * {@link changeDocumentOf}, {@link removeDocumentFrom}, which both kinds run), and the envelope's own
 * operations on them (with its audit events). Templates run the same edits in
 * `templates/documents.ts` (docs/api.md#documents-of-a-template).
 *
 * A record stored before several documents holds one, read from its own `documentName`, `blobName`,
 * `documentSha256` and `pageCount` with the record's id as the document's id, so no stored envelope
 * or template needs a migration. Whatever the list, those four fields describe its first document
 * (order 1), and {@link setDocuments} keeps them so.
 */
import { AppError, problemSlugOf, type FieldError } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { CONTAINERS } from '../storage/clients.js';
import { Change, commitChange } from './change.js';
import { assertPdfMimetype, uploadUrlFor } from './createUpload.js';
import { assertChangeable, ifMatchSatisfied, validationFailed } from './lifecycle.js';
import { mutateMembersEnvelope, preconditionFailed } from './mutate.js';
import { envelopeETag, ownerActor, type Actor, type EnvelopeDocument, type EnvelopeRecord, type Field } from './model.js';
import type { UpdateDocumentRequest, UploadRequest } from './schemas.js';

/** A field as a holder of documents stores it: an envelope's (`recipientId`) or a template's (`roleId`). */
export interface HeldField {
  id: string;
  documentId?: string;
}

/** What holds documents: an envelope or a template (docs/api.md#several-documents). */
export interface DocumentHolder<F extends HeldField = HeldField> {
  id: string;
  documents?: EnvelopeDocument[];
  documentName: string;
  blobName: string;
  documentSha256: string | null;
  pageCount: number | null;
  fields: F[];
}

/** The documents of `record` in order, numbered 1, 2, ... (a copy: changing it changes nothing). */
export function documentsOf(record: Pick<DocumentHolder, 'id' | 'documents' | 'documentName' | 'blobName' | 'documentSha256' | 'pageCount'>): EnvelopeDocument[] {
  if (record.documents === undefined || record.documents.length === 0) {
    return [{ id: record.id, name: record.documentName, order: 1, blobName: record.blobName, sha256: record.documentSha256, uploadSha256: null, pageCount: record.pageCount }];
  }
  return [...record.documents].sort((a, b) => a.order - b.order).map((document, index) => ({ ...document, order: index + 1 }));
}

/** The first document (order 1): the one the record's own document fields describe. */
export function firstDocument(record: Parameters<typeof documentsOf>[0]): EnvelopeDocument {
  return documentsOf(record)[0]!;
}

/** The id of the document `field` is on: its own `documentId`, else the first document's (docs/api.md#several-documents). */
export function fieldDocumentId(field: Pick<Field, 'documentId'>, first: Pick<EnvelopeDocument, 'id'>): string {
  return field.documentId ?? first.id;
}

/** The keys a stored field names who fills it by, kept right after `id`. */
const ASSIGNEE_KEYS = ['recipientId', 'roleId'] as const;

/**
 * `field` on the document `documentId` (`undefined`: none stored), its keys in the one order every
 * stored field has (`id`, `recipientId` or `roleId`, `documentId`, the rest), so that comparing fields
 * as JSON compares what they say.
 */
export function withDocumentId<F extends HeldField>(field: F, documentId: string | undefined): F {
  const { id, documentId: _old, ...rest } = field;
  const head: Record<string, unknown> = { id };
  for (const key of ASSIGNEE_KEYS) if (key in rest) head[key] = (rest as Record<string, unknown>)[key];
  if (documentId !== undefined) head.documentId = documentId;
  // Spreading `rest` after `head` keeps the assignee key where `head` put it.
  return { ...head, ...rest } as unknown as F;
}

/** The fields as responses show them: each with its `documentId`, the first document's when it has none stored. */
export function fieldsWithDocuments<F extends HeldField>(record: DocumentHolder<F>): F[] {
  const first = firstDocument(record);
  return record.fields.map((field) => withDocumentId(field, fieldDocumentId(field, first)));
}

/**
 * The `documentId` to store for a field placed on `documentId` (`undefined`: the first document) of a
 * record holding `documents`: stored only while there are several (docs/api.md#several-documents).
 * Records a complaint at `path` when it names none of them.
 */
export function storedDocumentId(documentId: string | undefined, documents: readonly EnvelopeDocument[], path: string, errors: FieldError[], holder: 'envelope' | 'template'): string | undefined {
  if (documentId !== undefined && !documents.some((document) => document.id === documentId)) {
    errors.push({ path, message: `names no document of this ${holder}` });
  }
  return documents.length > 1 ? (documentId ?? documents[0]!.id) : undefined;
}

/**
 * Makes `documents` (in the order given) the record's list: numbered 1, 2, ...; the record's own
 * document fields set from the first; every field named by the document it was on before (a field
 * without `documentId` was on the old first document). With one document left, fields carry no
 * `documentId` (they are all on it), as records stored before several documents hold them.
 */
export function setDocuments<F extends HeldField>(record: DocumentHolder<F>, documents: EnvelopeDocument[]): void {
  const oldFirst = firstDocument(record);
  const list = documents.map((document, index) => ({ ...document, order: index + 1 }));
  const first = list[0]!;
  record.fields = record.fields.map((field) => withDocumentId(field, list.length === 1 ? undefined : fieldDocumentId(field, oldFirst)));
  record.documents = list;
  record.documentName = first.name;
  record.blobName = first.blobName;
  record.documentSha256 = first.sha256;
  record.pageCount = first.pageCount;
}

/**
 * Adds a document named `filename` last to a draft's list (docs/api.md#add-a-document): a new id, its
 * upload the blob `<holderId>/<documentId>/<filename>`.
 * @param max `MAX_DOCUMENTS_PER_ENVELOPE`
 * @returns the document added
 * @throws AppError 409 `document-limit` when the record already holds `max`
 */
export function addDocumentTo(holder: DocumentHolder, filename: string, max: number, kind: 'envelope' | 'template'): EnvelopeDocument {
  const documents = documentsOf(holder);
  if (documents.length >= max) throw problem('documentLimit', { detail: `The ${kind} holds ${documents.length} documents, the most allowed (${max}); remove one first.` });
  const id = uuidv7();
  const document: EnvelopeDocument = { id, name: filename, order: documents.length + 1, blobName: `${holder.id}/${id}/${filename}`, sha256: null, uploadSha256: null, pageCount: null };
  setDocuments(holder, [...documents, document]);
  return document;
}

/**
 * Renames a draft's document and moves it to position `order` (1 to the number of documents), the
 * others keeping their relative order (docs/api.md#change-or-remove-a-document).
 * @returns the document as it is now, or `null` when the same name and place changed nothing
 * @throws AppError 404 `document-not-found`; 400 `validation-failed` (`order` past the last)
 */
export function changeDocumentOf(holder: DocumentHolder, documentId: string, request: UpdateDocumentRequest, kind: 'envelope' | 'template'): EnvelopeDocument | null {
  const documents = documentsOf(holder);
  const document = documents[indexOfDocument(documents, documentId, kind)]!;
  const order = request.order ?? document.order;
  if (order > documents.length) throw validationFailed([{ path: 'order', message: `must be from 1 to ${documents.length}, the number of documents` }]);
  const next = documents.filter((other) => other.id !== documentId);
  const changed = { ...document, name: request.name ?? document.name };
  next.splice(order - 1, 0, changed);
  if (JSON.stringify(next.map(({ id, name }) => [id, name])) === JSON.stringify(documents.map(({ id, name }) => [id, name]))) return null;
  setDocuments(holder, next);
  return { ...changed, order };
}

/**
 * Removes a draft's document with every field on it (docs/api.md#change-or-remove-a-document).
 * @returns the document removed and the fields that went with it
 * @throws AppError 404 `document-not-found`; 409 `last-document`
 */
export function removeDocumentFrom<F extends HeldField>(holder: DocumentHolder<F>, documentId: string, kind: 'envelope' | 'template'): { document: EnvelopeDocument; removed: F[] } {
  const documents = documentsOf(holder);
  const document = documents[indexOfDocument(documents, documentId, kind)]!;
  if (documents.length === 1) throw problem('lastDocument', { detail: `A ${kind} keeps at least one document: this is its last. Add another before removing it.` });
  const first = documents[0]!;
  const removed = holder.fields.filter((field) => fieldDocumentId(field, first) === documentId);
  holder.fields = holder.fields.filter((field) => fieldDocumentId(field, first) !== documentId);
  setDocuments(holder, documents.filter((other) => other.id !== documentId));
  return { document, removed };
}

/**
 * Deletes a removed document's upload and frozen copy, after the commit that removed it: a blob no
 * record names any more. A crash before it leaves the blob until the record's deletion, which
 * removes everything under the record's id.
 */
export async function deleteDocumentBlobs(services: Services, uploads: 'documents' | 'templates', blobName: string): Promise<void> {
  await Promise.all(
    [services.storage.containers[uploads], services.storage.containers.originals].map((container) => container.getBlockBlobClient(blobName).deleteIfExists({ deleteSnapshots: 'include' })),
  );
}

/** What adding a document answers (docs/api.md#add-a-document). */
export interface DocumentTicket {
  documentId: string;
  /** SAS URL for `PUT` with `x-ms-blob-type: BlockBlob`: create and write this one blob, nothing else. */
  uploadUrl: string;
  /** `<envelopeId>/<documentId>/<filename>` in container `documents`. */
  blobName: string;
  /** When `uploadUrl` stops working. */
  expiresAt: string;
}

export interface DocumentOperationOptions {
  services: Services;
  envelopeId: string;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * Adds a document to the caller's draft (docs/api.md#add-a-document), last in order, records
 * `envelope.document_added`, and returns where to upload it (the rules of
 * docs/api.md#create-an-envelope-and-upload-its-document).
 * @throws AppError 404, 412, 409 (`envelope-locked` once sent, `envelope-closed`, `document-limit` past
 *   `MAX_DOCUMENTS_PER_ENVELOPE`, `envelope-contended`), 415 (`mimetype` not `application/pdf`)
 */
export async function addEnvelopeDocument(options: DocumentOperationOptions & { request: UploadRequest }): Promise<{ record: EnvelopeRecord; ticket: DocumentTicket }> {
  const { services, request, actor } = options;
  assertPdfMimetype(request.mimetype);
  const { record, answer } = await changeDraftDocuments(options, async (change) => {
    const document = addDocumentTo(change.record, request.filename, services.config.maxDocumentsPerEnvelope, 'envelope');
    change.event('envelope.document_added', ownerActor(actor), { documentId: document.id, name: document.name, order: document.order });
    const { uploadUrl, expiresAt } = await uploadUrlFor(services, CONTAINERS.documents, document.blobName, change.now);
    return { documentId: document.id, uploadUrl, blobName: document.blobName, expiresAt };
  });
  return { record, ticket: answer };
}

/**
 * Renames a draft's document and moves it to position `order` (docs/api.md#change-or-remove-a-document),
 * recording `envelope.document_changed`. The same name and place change nothing.
 * @throws AppError 404 (`envelope-not-found`, `document-not-found`), 412, 409 as {@link addEnvelopeDocument}; 400 (`order` past the last)
 */
export async function updateEnvelopeDocument(options: DocumentOperationOptions & { documentId: string; request: UpdateDocumentRequest }): Promise<EnvelopeRecord> {
  const { documentId, request, actor } = options;
  const { record } = await changeDraftDocuments(options, async (change) => {
    const changed = changeDocumentOf(change.record, documentId, request, 'envelope');
    if (changed !== null) change.event('envelope.document_changed', ownerActor(actor), { documentId, name: changed.name, order: changed.order });
    return null;
  });
  return record;
}

/**
 * Removes a draft's document (docs/api.md#change-or-remove-a-document), recorded as
 * `envelope.document_removed`, with every field on it (then `envelope.fields_replaced` when there
 * were any), then deletes its upload.
 * @returns the envelope as stored afterwards and the ids of the fields removed with the document
 * @throws AppError 404 (`envelope-not-found`, `document-not-found`), 412, 409 (`last-document`, and as {@link addEnvelopeDocument})
 */
export async function removeEnvelopeDocument(options: DocumentOperationOptions & { documentId: string }): Promise<{ record: EnvelopeRecord; removedFieldIds: string[]; blobName: string }> {
  const { services, documentId, actor } = options;
  const { record, answer } = await changeDraftDocuments(options, async (change) => {
    const { document, removed } = removeDocumentFrom(change.record, documentId, 'envelope');
    change.event('envelope.document_removed', ownerActor(actor), { documentId, name: document.name });
    if (removed.length > 0) change.event('envelope.fields_replaced', ownerActor(actor), { count: change.record.fields.length });
    return { removedFieldIds: removed.map((field) => field.id), blobName: document.blobName };
  });
  await deleteDocumentBlobs(services, 'documents', answer.blobName);
  return { record, ...answer };
}

/**
 * Runs `decide` on the caller's draft as stored and commits the change it made
 * (nothing when it made none), retrying on a concurrent change (`mutate.ts`).
 */
async function changeDraftDocuments<T>(
  { services, envelopeId, actor, ifMatch, now = () => new Date(), log }: DocumentOperationOptions,
  decide: (change: Change) => Promise<T>,
): Promise<{ record: EnvelopeRecord; answer: T }> {
  return await mutateMembersEnvelope(
    services,
    actor,
    envelopeId,
    async (stored) => {
      if (!ifMatchSatisfied(ifMatch, envelopeETag(stored.record))) throw preconditionFailed();
      assertChangeable(stored.record);
      if (stored.record.status !== 'draft') {
        throw problem('envelopeLocked', { detail: 'The envelope is sent: its documents can no longer change (what was sent is what gets signed). Void it and start again.' });
      }
      const change = new Change(stored.record, now());
      change.recordOwner(actor);
      const answer = await decide(change);
      if (!change.changed) return { record: stored.record, answer };
      return { record: await commitChange(services, stored, change, log === undefined ? {} : { log }), answer };
    },
    { ifMatch },
  );
}

/** @throws AppError 404 `document-not-found` */
function indexOfDocument(documents: readonly EnvelopeDocument[], documentId: string, kind: 'envelope' | 'template'): number {
  const index = documents.findIndex((document) => document.id === documentId);
  if (index === -1) throw problem('documentNotFound', { detail: `This ${kind} has no document with this id.` });
  return index;
}

/** `error` with its `detail` naming the document it is about, and `documentId`, `documentName` among its members (RFC 9457 §3.2). */
export function namingDocument(error: unknown, document: Pick<EnvelopeDocument, 'id' | 'name' | 'order'>): unknown {
  if (!(error instanceof AppError)) return error;
  return new AppError(error.code, `Document ${document.order}, "${document.name}": ${error.detail}`, {
    type: problemSlugOf(error.type),
    ...(error.errors === undefined ? {} : { errors: error.errors }),
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    headers: error.headers,
    extensions: { ...error.extensions, documentId: document.id, documentName: document.name },
    cause: error,
  });
}

/** One sealed PDF of a completed envelope and the document it holds (docs/api.md#several-documents). */
export interface SealedDocument {
  document: EnvelopeDocument;
  /** Lower-case hex SHA-256 of the sealed PDF holding the document (with `combined` output, the one PDF of all). */
  hash: string;
  /** Its blob in container `sealed`. */
  blobName: string;
}

/**
 * Every document of a completed envelope with the sealed PDF that holds it, in order: with `separate`
 * output each its own (`sealedHashes` in order), with `combined` the one PDF of all (stored under the
 * first document's blob name). An envelope completed before several documents has its one `hash`.
 */
export function sealedDocuments(record: EnvelopeRecord): SealedDocument[] {
  const documents = documentsOf(record);
  const hashes = record.sealedHashes ?? (record.hash === null ? [] : [record.hash]);
  if (record.output === 'combined' || documents.length === 1) {
    return hashes.length === 0 ? [] : documents.map((document) => ({ document, hash: hashes[0]!, blobName: record.blobName }));
  }
  return documents.flatMap((document, index) => (hashes[index] === undefined ? [] : [{ document, hash: hashes[index], blobName: document.blobName }]));
}

/** The SHA-256 of every sealed PDF of a completed envelope, once each, in order (the public log's leaves, docs/api.md#several-documents). */
export function sealedHashesOf(record: EnvelopeRecord): string[] {
  return record.sealedHashes ?? (record.hash === null ? [] : [record.hash]);
}
