/**
 * Files from signers (docs/api.md#files-from-signers): what an `attachment` or `image` field's upload
 * is checked against (the bytes' own type by their magic numbers, an image's size in pixels from its
 * header), its name, where it is stored and what is stored with it, and the owner's read of it.
 *
 * An attachment is stored in container `originals` as `<envelopeId>/attachments/<attachmentId>`: under
 * the envelope's prefix, so the deletion, purge and retention of the envelope (`delete.ts`, every blob
 * under `<envelopeId>/`) delete it, used or not. Its facts are the blob's metadata, written with it
 * once (`If-None-Match: *`), so an upload needs no change of the envelope: the signer's complete
 * request names it (`{attachmentId}`) and the action records its facts.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { BlobGetPropertiesResponse } from '@azure/storage-blob';
import type { SealAttachment } from '../pdf/index.js';
import { downloadBlob } from '../storage/download.js';
import { fieldDocumentId, firstDocument } from './documents.js';
import { givenValues } from './fieldValues.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { isUuid } from '../ids.js';
import { CONTAINERS } from '../storage/clients.js';
import { readMembersEnvelope } from './access.js';
import type { AttachmentType } from './fieldRules.js';
import { isAttachmentValue, type Actor, type AttachmentValue, type EnvelopeRecord, type Field, type RecipientAction, type Signer } from './model.js';
import { READ_URL_TTL_SECONDS } from './view.js';

/** Most pixels (width × height) of an image from a signer (docs/api.md#files-from-signers): 50 megapixels. */
export const MAX_IMAGE_PIXELS = 50_000_000;
/** Longest attachment name kept, characters; a longer one is cut. */
export const MAX_ATTACHMENT_NAME = 200;
/** The folder of attachments under an envelope's prefix. */
const ATTACHMENTS_FOLDER = 'attachments';
/** Where a PDF's `%PDF-` header may start (as for documents, docs/api.md#document-checks). */
const PDF_HEADER_WITHIN = 1024;

/** What is stored about an attachment beside its value: its field and its uploader. */
export interface StoredAttachment {
  value: AttachmentValue;
  fieldId: string;
  recipientId: string;
}

/** The blob name of an attachment: under the envelope's prefix (see the module comment). */
export function attachmentBlobName(envelopeId: string, attachmentId: string): string {
  return `${envelopeId}/${ATTACHMENTS_FOLDER}/${attachmentId}`;
}

/** The prefix under which an envelope's attachments are listed. */
export function attachmentsPrefix(envelopeId: string): string {
  return `${envelopeId}/${ATTACHMENTS_FOLDER}/`;
}

/**
 * The type the bytes are, by their magic numbers: `%PDF-` within the first 1024 bytes (ISO 32000-2
 * §7.5.2), JPEG's SOI marker `FF D8 FF` (ITU T.81 §B.1.1.3), PNG's 8-byte signature (RFC 2083 §3.1);
 * `null` when none.
 */
export function sniffAttachmentType(bytes: Uint8Array): AttachmentType | null {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= png.length && png.every((byte, index) => bytes[index] === byte)) return 'image/png';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, PDF_HEADER_WITHIN + 5)).toString('latin1');
  const at = head.indexOf('%PDF-');
  return at >= 0 && at < PDF_HEADER_WITHIN ? 'application/pdf' : null;
}

/**
 * An image's width and height in pixels, read from its header without decoding it: PNG's `IHDR`
 * chunk, which must come first, and an `IEND` chunk at the end (RFC 2083 §4.1); JPEG's first
 * start-of-frame segment (ITU T.81 §B.2.2), the segments before it walked by their lengths.
 * @returns `null` when the header cannot be read (a damaged or truncated file)
 */
export function imageDimensions(bytes: Uint8Array, type: 'image/jpeg' | 'image/png'): { width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'image/png') {
    if (bytes.length < 8 + 25 + 12) return null;
    if (Buffer.from(bytes.subarray(12, 16)).toString('latin1') !== 'IHDR' || view.getUint32(8) !== 13) return null;
    if (Buffer.from(bytes.subarray(bytes.length - 8, bytes.length - 4)).toString('latin1') !== 'IEND') return null;
    const width = view.getUint32(16);
    const height = view.getUint32(20);
    return width > 0 && height > 0 ? { width, height } : null;
  }
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    // Fill bytes, and markers without a segment (TEM, RSTn).
    if (marker === 0xff) { at += 1; continue; }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { at += 2; continue; }
    // End of image or start of scan before any frame header: no size to read.
    if (marker === 0xd9 || marker === 0xda) return null;
    const length = view.getUint16(at + 2);
    if (length < 2 || at + 2 + length > bytes.length) return null;
    // SOF0 to SOF15, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (length < 8) return null;
      const height = view.getUint16(at + 5);
      const width = view.getUint16(at + 7);
      return width > 0 && height > 0 ? { width, height } : null;
    }
    at += 2 + length;
  }
  return null;
}

/** The file name extension of a type, for a name the upload did not give. */
function extensionOf(type: AttachmentType): string {
  return type === 'application/pdf' ? 'pdf' : type === 'image/jpeg' ? 'jpg' : 'png';
}

/**
 * The name of an upload (docs/api.md#files-from-signers): `Content-Disposition`'s `filename*`
 * (RFC 8187, UTF-8) else its `filename` (RFC 6266 §4.3), without any folder, control or bidirectional
 * characters, at most {@link MAX_ATTACHMENT_NAME} characters; else `attachment-<n>.<ext>`.
 * @param n the 1-based number of the envelope's attachment
 */
export function attachmentName(disposition: string | null, n: number, type: AttachmentType): string {
  const given = disposition === null ? null : dispositionFilename(disposition);
  const cleaned = given === null ? '' : [...given.replace(/^.*[\\/]/u, '').replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, '').trim()].slice(0, MAX_ATTACHMENT_NAME).join('').trim();
  return cleaned === '' || cleaned === '.' || cleaned === '..' ? `attachment-${n}.${extensionOf(type)}` : cleaned;
}

/** The file name a `Content-Disposition` value gives, `filename*` first; `null` when none. */
function dispositionFilename(disposition: string): string | null {
  const extended = /(?:^|;)\s*filename\*\s*=\s*([^;]+)/iu.exec(disposition);
  if (extended !== null) {
    const match = /^([A-Za-z0-9!#$&+.^_`{}~-]+)'[^']*'(.*)$/u.exec(extended[1]!.trim());
    if (match !== null && match[1]!.toLowerCase() === 'utf-8') {
      try {
        return decodeURIComponent(match[2]!);
      } catch {
        // Not percent-encoded UTF-8: fall back to `filename`.
      }
    }
  }
  const plain = /(?:^|;)\s*filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/iu.exec(disposition);
  if (plain === null) return null;
  return plain[1] !== undefined ? plain[1].replace(/\\(.)/gu, '$1') : plain[2]!;
}

/** The blob metadata of a stored attachment (ASCII only: the name percent-encoded). */
export function attachmentMetadata({ value, fieldId, recipientId }: StoredAttachment): Record<string, string> {
  return {
    fieldid: fieldId,
    recipientid: recipientId,
    name: encodeURIComponent(value.name),
    sha256: value.sha256,
    uploadedat: value.uploadedAt,
    ...(value.width === undefined || value.height === undefined ? {} : { width: String(value.width), height: String(value.height) }),
  };
}

/** The stored attachment of a blob's properties, or `null` when they are not an attachment's. */
function storedAttachment(attachmentId: string, properties: Pick<BlobGetPropertiesResponse, 'metadata' | 'contentType' | 'contentLength'>): StoredAttachment | null {
  const metadata = properties.metadata ?? {};
  const { fieldid, recipientid, name, sha256, uploadedat, width, height } = metadata;
  if (fieldid === undefined || recipientid === undefined || name === undefined || sha256 === undefined || uploadedat === undefined || properties.contentType === undefined) return null;
  return {
    fieldId: fieldid,
    recipientId: recipientid,
    value: {
      attachmentId,
      name: decodeURIComponent(name),
      contentType: properties.contentType,
      size: properties.contentLength ?? 0,
      sha256,
      uploadedAt: uploadedat,
      ...(width === undefined || height === undefined ? {} : { width: Number(width), height: Number(height) }),
    },
  };
}

/**
 * The attachment `attachmentId` of the envelope, as stored; `null` when there is none (an id that is
 * not a UUID included).
 */
export async function readAttachment(services: Services, envelopeId: string, attachmentId: string): Promise<StoredAttachment | null> {
  if (!isUuid(attachmentId)) return null;
  try {
    const properties = await services.storage.containers.originals.getBlockBlobClient(attachmentBlobName(envelopeId, attachmentId)).getProperties();
    return storedAttachment(attachmentId, properties);
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}

/** How many attachments the envelope holds (used or not), for the next one's default name. */
export async function countAttachments(services: Services, envelopeId: string): Promise<number> {
  let count = 0;
  for await (const blob of services.storage.containers.originals.listBlobsFlat({ prefix: attachmentsPrefix(envelopeId) })) if (blob.name !== '') count += 1;
  return count;
}

/**
 * `GET /api/envelopes/{id}/attachments/{attachmentId}` (docs/api.md#files-from-signers): a read-only
 * SAS URL of the attachment, valid 15 minutes, for every role that reads the envelope.
 * @throws AppError 404 (`envelope-not-found`: missing or another organisation's; `attachment-not-found`),
 *   403 `forbidden-role`, 409 `documents-purged`
 */
export async function attachmentUrl({ services, actor, envelopeId, attachmentId }: { services: Services; actor: Actor; envelopeId: string; attachmentId: string }): Promise<{ url: string }> {
  const { record } = await readMembersEnvelope(services, actor, envelopeId, 'read');
  if (record.purgedAt !== null) throw problem('documentsPurged');
  const stored = await readAttachment(services, record.id, attachmentId);
  if (stored === null) throw problem('attachmentNotFound');
  return { url: await services.storage.sas.blobUrl(CONTAINERS.originals, attachmentBlobName(record.id, attachmentId), { access: 'read', expiresInSeconds: READ_URL_TTL_SECONDS }) };
}

/** A file a signer gave, as `GET /api/envelopes/{id}/attachments` lists it (docs/api.md#files-from-signers). */
export interface ListedAttachment {
  attachmentId: string;
  /** The `attachment` or `image` field it is the value of, and the document that field is on. */
  fieldId: string;
  fieldType: 'attachment' | 'image';
  fieldLabel: string | null;
  documentId: string;
  /** The signer who uploaded it. */
  recipientId: string;
  recipientName: string;
  name: string;
  contentType: string;
  /** Bytes as stored (a PDF after cleaning). */
  size: number;
  /** Lower-case hex SHA-256 of the bytes as stored. */
  sha256: string;
  /** ISO 8601 UTC: when it was uploaded. */
  uploadedAt: string;
}

/**
 * `GET /api/envelopes/{id}/attachments` (docs/api.md#files-from-signers): the files the signers who
 * signed named in their values, in the order of the envelope's fields; an upload no value names (a
 * signer who has not finished, or a file replaced before Finish) is not listed. Read with
 * {@link attachmentUrl}.
 * @throws AppError 404 `envelope-not-found` (missing or another organisation's), 403 `forbidden-role`,
 *   409 `documents-purged`
 */
export async function listAttachments({ services, actor, envelopeId }: { services: Services; actor: Actor; envelopeId: string }): Promise<{ attachments: ListedAttachment[] }> {
  const { record } = await readMembersEnvelope(services, actor, envelopeId, 'read');
  if (record.purgedAt !== null) throw problem('documentsPurged');
  const actions = new Map((await services.envelopes.actions(record.ownerId, record.id)).map((action) => [action.recipientId, action]));
  const first = firstDocument(record);
  return {
    attachments: usedAttachments(record, actions).map(({ field, signer, value }) => ({
      attachmentId: value.attachmentId,
      fieldId: field.id,
      fieldType: field.type === 'image' ? 'image' : 'attachment',
      fieldLabel: field.label ?? null,
      documentId: fieldDocumentId(field, first),
      recipientId: signer.id,
      recipientName: signer.name,
      name: value.name,
      contentType: value.contentType,
      size: value.size,
      sha256: value.sha256,
      uploadedAt: value.uploadedAt,
    })),
  };
}

/** One attachment a signer's value names, with its field and its signer. */
export interface UsedAttachment {
  field: Field;
  signer: Signer;
  value: AttachmentValue;
}

/** The attachments the signers' values name, in the order of the envelope's fields (docs/api.md#files-from-signers). */
export function usedAttachments(record: Pick<EnvelopeRecord, 'fields' | 'signers'>, actions: Map<string, RecipientAction>): UsedAttachment[] {
  return givenValues(record, actions).flatMap(({ field, signer, value }) => (isAttachmentValue(value) ? [{ field, signer, value }] : []));
}

/**
 * Names for `used`, in order, each distinct (a later one of the same name is prefixed `2-`, `3-`...)
 * and none `audit.json`: the names they are embedded and archived under.
 */
export function distinctNames(used: readonly UsedAttachment[]): string[] {
  const taken = new Set<string>(['audit.json']);
  return used.map(({ value }) => {
    let name = value.name;
    for (let n = 2; taken.has(name); n++) name = `${n}-${value.name}`;
    taken.add(name);
    return name;
  });
}

/**
 * The signers' files as the seal embeds them (docs/api.md#files-from-signers): each read from
 * storage and checked against the SHA-256 recorded at its upload; with the bytes of each image
 * field's, by attachment id, to draw in its field.
 * @throws Error when one is missing or changed (a fault of storage: the completion is retried)
 */
export async function attachmentsToSeal(services: Services, record: Pick<EnvelopeRecord, 'id' | 'fields' | 'signers'>, actions: Map<string, RecipientAction>): Promise<{ files: SealAttachment[]; images: Map<string, Uint8Array> }> {
  const used = usedAttachments(record, actions);
  const names = distinctNames(used);
  const files = await Promise.all(used.map(async ({ field, signer, value }, index): Promise<SealAttachment> => {
    const bytes = await downloadBlob(services.storage.containers.originals.getBlockBlobClient(attachmentBlobName(record.id, value.attachmentId)));
    if (createHash('sha256').update(bytes).digest('hex') !== value.sha256) throw new Error(`The attachment ${value.attachmentId} of envelope ${record.id} is not the file uploaded.`);
    return {
      name: names[index]!,
      bytes,
      mimeType: value.contentType,
      description: `${field.type === 'image' ? 'Image' : 'Attachment'} of field ${field.label ?? field.id}, uploaded by ${signer.name} <${signer.email}> at ${value.uploadedAt}; SHA-256 ${value.sha256}`,
    };
  }));
  const images = new Map(used.flatMap(({ field, value }, index) => (field.type === 'image' ? [[value.attachmentId, files[index]!.bytes] as const] : [])));
  return { files, images };
}

/** A signer's file in the download's archive (docs/api.md#download-a-completed-envelope). */
export interface ArchiveAttachment {
  /** The entry's name, under `attachments/`. */
  name: string;
  /** Opens its content when the archive reaches it. */
  open: () => Promise<Readable>;
}

/**
 * The signers' files as the download archives them (docs/api.md#download-a-completed-envelope), each
 * opened from storage only when the archive reaches it.
 */
export async function archivedAttachments(services: Services, record: EnvelopeRecord): Promise<ArchiveAttachment[]> {
  const actions = new Map((await services.envelopes.actions(record.ownerId, record.id)).map((action) => [action.recipientId, action]));
  const used = usedAttachments(record, actions);
  const names = distinctNames(used);
  return used.map(({ value }, index) => ({
    name: names[index]!,
    open: async () => (await services.storage.containers.originals.getBlockBlobClient(attachmentBlobName(record.id, value.attachmentId)).download()).readableStreamBody as Readable,
  }));
}
