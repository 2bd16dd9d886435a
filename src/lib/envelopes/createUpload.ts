/**
 * GetUploadUrl (docs/api.md#create-an-envelope-and-upload-its-document): creates the draft envelope and a SAS URL to upload its document.
 */
import { uuidv7 } from '../ids.js';
import type { Services } from '../services.js';
import { CONTAINERS } from '../storage/clients.js';
import { ownerActor, type Actor, type AuditEvent, type EnvelopeRecord } from './model.js';
import { chainEvents, chainStart } from './auditHash.js';
import type { UploadRequest } from './schemas.js';
import { DEFAULT_LOCALE } from '../i18n/locales.js';
import { problem } from '../problems.js';

export interface CreateEnvelopeUploadOptions {
  services: Services;
  request: UploadRequest;
  actor: Actor;
  now?: Date;
  /**
   * Called with the ticket just before the envelope's transaction, once nothing can refuse the request
   * any more (always, when this function returns): the HTTP layer makes its answer there and hands it
   * to an idempotency key's claim, so that the answer is stored with the envelope
   * (`http/idempotency.ts` `answerInTransaction`).
   */
  beforeCommit?: (ticket: UploadTicket) => void;
}

export interface UploadTicket {
  /** SAS URL for `PUT` with `x-ms-blob-type: BlockBlob`: create and write this one blob, nothing else. */
  uploadUrl: string;
  envelopeId: string;
  /** `<envelopeId>/<filename>` in container `documents`. */
  blobName: string;
  /** When `uploadUrl` stops working. */
  expiresAt: string;
}

/**
 * Creates a draft envelope with no signers for `request.filename` and returns where to upload it.
 * @throws AppError 415 when `mimetype` is not `application/pdf`
 */
export async function createEnvelopeUpload({ services, request, actor, now = new Date(), beforeCommit }: CreateEnvelopeUploadOptions): Promise<UploadTicket> {
  assertPdfMimetype(request.mimetype);
  const { record, event } = newDraftEnvelope({ actor, documentName: request.filename, now });
  const { id, blobName } = record;
  const { uploadUrl, expiresAt } = await uploadUrlFor(services, CONTAINERS.documents, blobName, now);
  const ticket: UploadTicket = { uploadUrl, envelopeId: id, blobName, expiresAt };
  beforeCommit?.(ticket);
  // Indexed first, so that every envelope that exists is in its organisation's index (docs/architecture.md#the-organizations-envelope-index).
  await services.organizationIndex.add(actor.organizationId, id, record.ownerId);
  await services.envelopes.create(record, event);
  return ticket;
}

/**
 * @throws AppError 415 `unsupported-document-type` unless `mimetype` is `application/pdf` (any case,
 *   parameters allowed) (docs/api.md#create-an-envelope-and-upload-its-document; templates follow the same rule)
 */
export function assertPdfMimetype(mimetype: string): void {
  if (mimetype.split(';')[0]!.trim().toLowerCase() !== 'application/pdf') {
    throw problem('unsupportedDocumentType');
  }
}

/**
 * The upload SAS of one blob (docs/api.md#create-an-envelope-and-upload-its-document): create and write permission on `blobName` in `container`
 * only, valid `UPLOAD_URL_TTL_SECONDS` from `now`. Envelopes upload to `documents`, templates to `templates`.
 * @returns the URL and when it stops working (ISO 8601 UTC)
 */
export async function uploadUrlFor(services: Services, container: string, blobName: string, now: Date): Promise<{ uploadUrl: string; expiresAt: string }> {
  const ttl = services.config.uploadUrlTtlSeconds;
  const uploadUrl = await services.storage.sas.blobUrl(container, blobName, { access: 'createWrite', expiresInSeconds: ttl });
  return { uploadUrl, expiresAt: new Date(now.getTime() + ttl * 1000).toISOString() };
}

export interface NewDraftEnvelopeOptions {
  actor: Actor;
  documentName: string;
  now: Date;
  /** The template the envelope is made from (docs/api.md#templates), recorded in `envelope.created`; absent: none. */
  templateId?: string;
  /** The envelope's id; absent: a new UUID version 7. */
  id?: string;
  /** The bulk job that makes it and its row's `metadata` (docs/api.md#bulk-send), recorded in `envelope.created`; absent: none. */
  bulk?: { jobId: string; metadata: Record<string, string> | null };
  /** `publicLink`: made through a template's public link (docs/api.md#public-links), recorded on it and in `envelope.created`; absent: none. */
  source?: 'publicLink';
}

/**
 * A new draft envelope with no signers (docs/api.md#create-an-envelope-and-upload-its-document) and its first audit event,
 * `envelope.created` (docs/api.md#evidence), the first of its chain (docs/api.md#chained-audit-trail), ready for `EnvelopeRepository.create`.
 */
export function newDraftEnvelope({ actor, documentName, now, templateId, id = uuidv7(), bulk, source }: NewDraftEnvelopeOptions): { record: EnvelopeRecord; event: AuditEvent } {
  const at = now.toISOString();
  const blobName = `${id}/${documentName}`;
  const record: EnvelopeRecord = {
    id,
    ownerId: actor.userId,
    organizationId: actor.organizationId,
    ownerEmail: actor.email,
    ownerName: actor.name ?? null,
    status: 'draft',
    documentName,
    blobName,
    signers: [],
    fields: [],
    signingOrder: 'parallel',
    expiresAt: null,
    remindEveryDays: null,
    locale: DEFAULT_LOCALE,
    documentSha256: null,
    pageCount: null,
    createdAt: at,
    updatedAt: at,
    sentAt: null,
    completedAt: null,
    closedAt: null,
    completionDueAt: null,
    hash: null,
    originalSha256: null,
    purgedAt: null,
    templateId: templateId ?? null,
    ...(bulk === undefined ? {} : { bulkJobId: bulk.jobId, metadata: bulk.metadata }),
    ...(source === undefined ? {} : { source }),
    version: 1,
    auditSequence: 1,
  };
  const by = ownerActor(actor);
  const event: AuditEvent = {
    sequence: 1,
    type: 'envelope.created',
    at,
    actorId: by.id,
    actorEmail: by.email,
    ip: by.ip,
    userAgent: by.userAgent,
    apiKeyId: by.apiKeyId,
    details: {
      documentName,
      blobName,
      ...(templateId === undefined ? {} : { templateId }),
      ...(bulk === undefined ? {} : { bulkJobId: bulk.jobId }),
      ...(source === undefined ? {} : { source }),
    },
  };
  // The first link of the chained audit trail (docs/api.md#chained-audit-trail); the row keeps its head.
  const [chained] = chainEvents([event], actor.organizationId, chainStart(id));
  record.auditHead = chained!.hash;
  return { record, event: chained! };
}
