/**
 * How an envelope is shown in responses (docs/api.md#the-envelope): stored fields plus fresh read-only SAS URLs.
 */
import { DEFAULT_LOCALE } from '../i18n/locales.js';
import { CONTAINERS } from '../storage/clients.js';
import type { SasSigner } from '../storage/sas.js';
import { documentsOf, fieldsWithDocuments } from './documents.js';
import { viewSigner, type EnvelopeDocument, type EnvelopeDocumentView, type EnvelopeRecord, type EnvelopeView } from './model.js';

/** Lifetime of `documentUrl` and `signedUrl`, seconds (docs/api.md#the-envelope). */
export const READ_URL_TTL_SECONDS = 15 * 60;

/** A read-only SAS URL of the sealed PDF, valid {@link READ_URL_TTL_SECONDS}. */
export async function signedDocumentUrl(sas: SasSigner, record: Pick<EnvelopeRecord, 'blobName'>): Promise<string> {
  return await sas.blobUrl(CONTAINERS.sealed, record.blobName, { access: 'read', expiresInSeconds: READ_URL_TTL_SECONDS });
}

/**
 * A read-only SAS URL of the document, valid {@link READ_URL_TTL_SECONDS}: the frozen copy once the
 * envelope has left `draft` (docs/api.md#create-an-envelope-and-upload-its-document), the upload before.
 * @param uploads the container of uploads: `documents` (default), `templates` for a template's
 */
export async function documentUrl(sas: SasSigner, record: Pick<EnvelopeRecord, 'blobName' | 'documentSha256'>, uploads: 'documents' | 'templates' = CONTAINERS.documents): Promise<string> {
  const container = record.documentSha256 === null ? uploads : CONTAINERS.originals;
  return await sas.blobUrl(container, record.blobName, { access: 'read', expiresInSeconds: READ_URL_TTL_SECONDS });
}

/**
 * The documents of `record`, an envelope or a template, as responses show them
 * (docs/api.md#several-documents, docs/api.md#documents-of-a-template), each with a read URL of its
 * upload (draft) or frozen copy valid {@link READ_URL_TTL_SECONDS}; `null` once purged.
 * @param uploads the container of uploads: `documents` (default), `templates` for a template's
 */
export async function toDocumentViews(record: Parameters<typeof documentsOf>[0] & { purgedAt?: string | null }, sas: SasSigner, uploads: 'documents' | 'templates' = CONTAINERS.documents): Promise<EnvelopeDocumentView[]> {
  const purged = record.purgedAt !== undefined && record.purgedAt !== null;
  return await Promise.all(
    documentsOf(record).map(async (document: EnvelopeDocument) => ({
      id: document.id,
      name: document.name,
      order: document.order,
      pageCount: document.pageCount,
      sha256: document.sha256,
      uploadSha256: document.uploadSha256,
      documentUrl: purged ? null : await documentUrl(sas, { blobName: document.blobName, documentSha256: document.sha256 }, uploads),
    })),
  );
}

/**
 * The response shape of `record`, with read SAS URLs valid {@link READ_URL_TTL_SECONDS}; once its
 * documents were purged (docs/api.md#delete-an-envelope-or-purge-its-documents), `documentUrl` and `signedUrl` are `null`.
 */
export async function toEnvelopeView(record: EnvelopeRecord, sas: SasSigner): Promise<EnvelopeView> {
  const purged = record.purgedAt !== null;
  const [document, signedUrl, documents] = await Promise.all([
    purged ? Promise.resolve(null) : documentUrl(sas, record),
    record.status === 'completed' && !purged ? signedDocumentUrl(sas, record) : Promise.resolve(null),
    toDocumentViews(record, sas),
  ]);
  return {
    id: record.id,
    status: record.status,
    ownerId: record.ownerId,
    ownerEmail: record.ownerEmail,
    documentName: record.documentName,
    documentUrl: document,
    documentSha256: record.documentSha256,
    pageCount: record.pageCount,
    documents,
    signers: record.signers.map(viewSigner),
    fields: fieldsWithDocuments(record),
    signingOrder: record.signingOrder,
    expiresAt: record.expiresAt,
    remindEveryDays: record.remindEveryDays,
    locale: record.locale ?? DEFAULT_LOCALE,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    sentAt: record.sentAt,
    completedAt: record.completedAt,
    signedUrl,
    hash: record.hash,
    purgedAt: record.purgedAt,
    voidedReason: record.voidedReason ?? null,
    templateId: record.templateId,
    ...(record.bulkJobId === undefined ? {} : { bulkJobId: record.bulkJobId, metadata: record.metadata ?? null }),
    ...(record.source === undefined ? {} : { source: record.source }),
    allowReassign: record.allowReassign === true,
    output: record.output ?? 'separate',
  };
}
