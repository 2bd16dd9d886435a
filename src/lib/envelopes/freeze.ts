/**
 * The frozen document (docs/api.md#create-an-envelope-and-upload-its-document): when an envelope leaves `draft`, the uploaded blob is copied,
 * after the checks of `document.ts` and cleaned of active content (`pdf/clean.ts`), to the same blob name in the container `originals`, on which no
 * SAS ever grants anything but read. From then on `documentUrl`, the signing view and the seal read
 * only that copy, so a later PUT to the upload URL (a SAS cannot be revoked) changes nothing.
 *
 * Crash safety. The copy is written before the envelope update that records its SHA-256, so a crash
 * in between leaves a copy that no envelope refers to (the envelope is still `draft`). A retry:
 * - finds no copy: writes one (create-if-absent);
 * - finds a copy with the same SHA-256 (metadata `sha256`): uses it (renewing its claim time);
 * - finds a copy with another SHA-256 (the upload changed since the crashed attempt): replaces it,
 *   conditional on its ETag, but only once it is older than {@link STALE_AFTER_MS} and the envelope is
 *   still `draft`; a younger one may belong to a concurrent send about to commit, so the request gets
 *   409 `envelope-contended` and may retry.
 * A send relies on a copy only within {@link COMMIT_WINDOW_MS} of its write (metadata `frozenat`):
 * {@link refreshFrozenCopy}, called just before the envelope update, renews that claim with an
 * ETag-conditional metadata write when it is older (a long seal), and fails if the copy was replaced.
 * As a copy is replaced only after {@link STALE_AFTER_MS}, twice the window, the copy an envelope
 * records is the copy the container holds.
 */
import { createHash } from 'node:crypto';
import type { ContainerClient } from '@azure/storage-blob';
import { AppError } from '../errors.js';
import { cleanDocument, coverTextTags, REMOVED_KINDS, type RemovedKind } from '../pdf/index.js';
import type { Services } from '../services.js';
import { downloadBlob } from '../storage/download.js';
import { EnvelopeChangedError } from '../storage/envelopeRepository.js';
import { storageStatus } from '../storage/keys.js';
import { readDocument } from './document.js';
import type { EnvelopeRecord } from './model.js';
import { TAG_FIELD_TYPES } from './textTags.js';
import { problem } from '../problems.js';

/** How long after its write a frozen copy may be relied on by an envelope update, milliseconds. */
export const COMMIT_WINDOW_MS = 60_000;
/** Renew the claim on a copy older than this before relying on it, milliseconds. */
const REFRESH_AFTER_MS = 40_000;
/** A copy older than this, of an envelope still in `draft`, is left over by a crashed attempt, milliseconds. */
export const STALE_AFTER_MS = 2 * COMMIT_WINDOW_MS;

/** An upload that passed the checks of docs/api.md#create-an-envelope-and-upload-its-document, ready to be frozen. */
export interface CheckedDocument {
  /** The document's bytes, as hashed. */
  bytes: Uint8Array;
  /** Lower-case hex SHA-256 of `bytes`. */
  documentSha256: string;
  pageCount: number;
}

/** A checked upload, cleaned of active content (docs/api.md#what-the-service-removes-from-documents-and-why): `bytes` are the cleaned bytes. */
export interface CleanedDocument extends CheckedDocument {
  /**
   * Lower-case hex SHA-256 of the bytes as uploaded, before cleaning and covering text tags; `null`
   * when not known (an envelope made from a template: its document was uploaded to the template).
   */
  uploadSha256: string | null;
  /** The kinds of active content removed, each once (`[]` when none: `bytes` are the upload's). */
  removed: RemovedKind[];
}

/** The frozen copy this request wrote or verified. */
export interface FrozenDocument extends CleanedDocument {
  /** ETag of the copy in `originals`. */
  etag: string;
  /** When the claim on the copy was written, milliseconds since the epoch (local clock). */
  frozenAt: number;
}

export interface FreezeOptions {
  services: Services;
  /**
   * The upload's `blobName`, also the frozen copy's name in `originals`. An envelope's
   * (`<envelopeId>/<filename>`), or a template's (`<templateId>/<filename>`, docs/api.md#templates):
   * both are frozen by this same code.
   */
  record: Pick<EnvelopeRecord, 'blobName'> & { fields: readonly Pick<EnvelopeRecord['fields'][number], 'source'>[] };
  /** The container of uploads: `documents` (default) for envelopes, `templates` for templates. */
  uploads?: ContainerClient;
  /** Whether the envelope is still the draft this request read (checked before replacing a left-over copy). */
  stillDraft: () => Promise<boolean>;
  now?: () => number;
}

/**
 * Checks the upload (docs/api.md#create-an-envelope-and-upload-its-document) and freezes it: {@link checkUpload}, then {@link storeFrozenCopy}.
 * @throws what those two throw
 */
export async function freezeDocument(options: FreezeOptions): Promise<FrozenDocument> {
  return await storeFrozenCopy({ ...options, checked: await checkUpload(options) });
}

/**
 * Reads the upload, checks it (docs/api.md#create-an-envelope-and-upload-its-document: it parses, opens without a password, carries no
 * signature that sealing would break) and cleans it (docs/api.md#what-the-service-removes-from-documents-and-why: active content removed, hidden
 * layers refused; `cleanDocument`), then, when some of its fields came from text tags, covers its
 * text tags (`coverTextTags`: each tag's text painted white, so that neither the signing page nor
 * the seal shows it, docs/api.md#fields-from-the-document), without storing anything. Finding tags
 * reads every page's text, seconds for a long document, so a document none of whose fields came from
 * a tag is not read for them. The cleaned and covered bytes are the ones frozen, hashed and sealed;
 * an upload with nothing to remove or cover is frozen byte for byte.
 * @throws AppError 409 (`document-not-uploaded`), 413, 415, 422 (`document-copied`) as
 *   `readDocument`; 422 as `cleanDocument` (`document-hidden-content` among them)
 */
export async function checkUpload({ services, record, uploads }: Pick<FreezeOptions, 'services' | 'record' | 'uploads'>): Promise<CleanedDocument> {
  const upload = await readDocument({ services, record, ...(uploads === undefined ? {} : { uploads }) });
  const { cleaned, pageCount, removed } = await cleanDocument({ document: upload });
  const clean = cleaned ?? upload;
  const hasTagFields = record.fields.some((field) => field.source === 'textTag');
  const { covered } = hasTagFields ? await coverTextTags({ document: clean, types: TAG_FIELD_TYPES }) : { covered: null };
  const bytes = covered ?? clean;
  const uploadSha256 = createHash('sha256').update(upload).digest('hex');
  // Nothing removed and no tag covered: the frozen copy is the upload, hashed once.
  const documentSha256 = bytes === upload ? uploadSha256 : createHash('sha256').update(bytes).digest('hex');
  return { bytes, documentSha256, uploadSha256, pageCount, removed };
}

/**
 * Writes or verifies the frozen copy of a checked upload in `originals` (see the module comment).
 * @throws AppError 409 (`envelope-contended` while another request freezes other bytes)
 * @throws EnvelopeChangedError when the envelope is no longer the draft read (the caller retries)
 */
export async function storeFrozenCopy({ services, record, checked, stillDraft, now = Date.now }: FreezeOptions & { checked: CleanedDocument }): Promise<FrozenDocument> {
  const { bytes, documentSha256, uploadSha256, pageCount, removed } = checked;
  const blob = services.storage.containers.originals.getBlockBlobClient(record.blobName);
  const write = async (conditions: { ifNoneMatch: string } | { ifMatch: string }): Promise<FrozenDocument> => {
    const frozenAt = now();
    const response = await blob.uploadData(bytes, {
      blobHTTPHeaders: { blobContentType: 'application/pdf' },
      metadata: frozenMetadata({ documentSha256, uploadSha256, pageCount, removed }, frozenAt),
      conditions,
    });
    return { bytes, documentSha256, uploadSha256, pageCount, removed, etag: response.etag!, frozenAt };
  };

  try {
    return await write({ ifNoneMatch: '*' });
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const existing = await blob.getProperties();
  const metadata = existing.metadata ?? {};
  const writtenAt = Number(metadata.frozenat ?? existing.lastModified?.getTime() ?? 0);
  if (metadata.sha256 === documentSha256) {
    // The same bytes: whoever else relies on the copy relies on these bytes too.
    return await refreshFrozenCopy(services, record, { bytes, documentSha256, uploadSha256, pageCount, removed, etag: existing.etag!, frozenAt: writtenAt }, now);
  }
  if (!(await stillDraft())) throw new EnvelopeChangedError();
  if (now() - writtenAt < STALE_AFTER_MS) throw contended();
  try {
    return await write({ ifMatch: existing.etag! });
  } catch (error) {
    if (isConditionFailure(error)) throw contended();
    throw error;
  }
}

/**
 * Renews this request's claim on its frozen copy when it is older than 40 s (see the module comment):
 * call it just before the envelope update that records the copy.
 * @returns the copy with its new claim time
 * @throws EnvelopeChangedError when the copy was replaced meanwhile (the caller retries from the start)
 */
export async function refreshFrozenCopy(services: Services, record: Pick<EnvelopeRecord, 'blobName'>, frozen: FrozenDocument, now: () => number = Date.now): Promise<FrozenDocument> {
  if (now() - frozen.frozenAt < REFRESH_AFTER_MS) return frozen;
  const blob = services.storage.containers.originals.getBlockBlobClient(record.blobName);
  const frozenAt = now();
  try {
    const response = await blob.setMetadata(frozenMetadata(frozen, frozenAt), { conditions: { ifMatch: frozen.etag } });
    return { ...frozen, etag: response.etag!, frozenAt };
  } catch (error) {
    if (isConditionFailure(error) || storageStatus(error) === 404) throw new EnvelopeChangedError();
    throw error;
  }
}

/**
 * The frozen copy's metadata: its SHA-256, page count and claim time, and what the certificate tells
 * of the upload it came from (docs/api.md#evidence): the upload's SHA-256 (`uploadsha256`, when
 * known) and the kinds of active content removed (`removed`, comma-separated).
 */
function frozenMetadata(document: Pick<CleanedDocument, 'documentSha256' | 'uploadSha256' | 'pageCount' | 'removed'>, frozenAt: number): Record<string, string> {
  return {
    sha256: document.documentSha256,
    pagecount: String(document.pageCount),
    frozenat: String(frozenAt),
    ...(document.uploadSha256 === null ? {} : { uploadsha256: document.uploadSha256 }),
    removed: document.removed.join(','),
  };
}

/**
 * What the frozen copy of `record` records of the upload it came from: the upload's SHA-256 (`null`
 * for a copy frozen before it was recorded) and the kinds of active content removed. An envelope
 * made from a template carries its template's (`templates/createEnvelopeFromTemplate.ts`).
 * @throws RestError 404 when there is no frozen copy
 */
export async function frozenUploadFacts(services: Services, record: Pick<EnvelopeRecord, 'blobName'>): Promise<Pick<CleanedDocument, 'uploadSha256' | 'removed'>> {
  const metadata = (await services.storage.containers.originals.getBlockBlobClient(record.blobName).getProperties()).metadata ?? {};
  const removed = (metadata.removed ?? '').split(',').filter((kind): kind is RemovedKind => (REMOVED_KINDS as readonly string[]).includes(kind));
  return { uploadSha256: /^[0-9a-f]{64}$/.test(metadata.uploadsha256 ?? '') ? metadata.uploadsha256! : null, removed };
}

/**
 * The frozen document of an envelope that has left `draft`, verified against its recorded SHA-256.
 * @throws Error when the copy is missing or does not match: a fault of the service, never of the request
 */
export async function readFrozenDocument(services: Services, record: Pick<EnvelopeRecord, 'blobName' | 'documentSha256' | 'id'>): Promise<Uint8Array> {
  const bytes = await downloadBlob(services.storage.containers.originals.getBlockBlobClient(record.blobName));
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== record.documentSha256) {
    throw new Error(`The frozen document of envelope ${record.id} has SHA-256 ${actual}, not the recorded ${record.documentSha256}`);
  }
  return bytes;
}

function isConditionFailure(error: unknown): boolean {
  const status = storageStatus(error);
  return status === 409 || status === 412;
}

function contended(): AppError {
  return problem('envelopeContended', { detail: 'The document is being sent by another request at the same time; retry.' });
}
