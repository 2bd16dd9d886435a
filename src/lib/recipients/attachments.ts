/**
 * A signer's files (docs/api.md#files-from-signers): the upload to an `attachment` or `image` field
 * (`POST /api/signing/attachments?fieldId=`), and, at the signer's complete, the check that each
 * `{attachmentId}` it sends is its own upload to that field, recorded with what the upload's checks
 * found. The checks and the storage are `envelopes/attachments.ts`'s.
 */
import { createHash } from 'node:crypto';
import { acceptedTypes, FILE_TYPES, MAX_ATTACHMENT_BYTES, type AttachmentType } from '../envelopes/fieldRules.js';
import { attachmentBlobName, attachmentMetadata, attachmentName, countAttachments, imageDimensions, MAX_IMAGE_PIXELS, readAttachment, sniffAttachmentType } from '../envelopes/attachments.js';
import { validationFailed } from '../envelopes/lifecycle.js';
import type { AttachmentValue, EnvelopeRecord, Field, FieldValue, Signer } from '../envelopes/model.js';
import type { FieldError } from '../errors.js';
import { uuidv7 } from '../ids.js';
import { cleanDocument } from '../pdf/index.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import type { SigningCaller } from './signingCaller.js';

/** The field an upload goes to: the caller's own `attachment` or `image` field. */
export interface UploadTarget {
  field: Field;
  /** The largest upload it takes, bytes (its `maxBytes`, else 10 MiB). */
  maxBytes: number;
}

/**
 * The field named by `?fieldId=`, checked before the body is read (after `assertCanAct`, by the
 * handler): one of the caller's `attachment` or `image` fields.
 * @throws AppError 400 `validation-failed` on `fieldId`
 */
export function uploadTarget(caller: SigningCaller, fieldId: string | null): UploadTarget {
  const record = caller.stored.record;
  const field = fieldId === null ? undefined : record.fields.find((candidate) => candidate.id === fieldId);
  const refuse = (message: string) => validationFailed([{ path: 'fieldId', message }]);
  if (fieldId === null || fieldId === '') throw refuse('is required: the attachment or image field the file is for');
  if (field === undefined || field.recipientId !== caller.recipient.id) throw refuse('is not a field of yours');
  if (!FILE_TYPES.has(field.type)) throw refuse(`is a ${field.type} field, not an attachment or image field`);
  return { field, maxBytes: field.maxBytes ?? MAX_ATTACHMENT_BYTES };
}

/**
 * 413 for an upload over the field's `maxBytes`.
 * @param maxBytes the field's limit, bytes
 */
export function attachmentTooLarge(maxBytes: number): Error {
  return problem('attachmentTooLarge', { detail: `The file is larger than this field accepts: at most ${maxBytes} bytes.` });
}

/**
 * Checks and stores one upload to `target` (docs/api.md#files-from-signers): `contentType` one the
 * field accepts and the type the bytes are (magic numbers); a PDF parsed and cleaned as documents are
 * (the cleaned bytes stored); an image's header read, at most 50 megapixels. Stored once under the
 * envelope's prefix, named from `disposition`.
 * @returns the attachment's value as the complete request will record it
 * @throws AppError 415 `attachment-type`, 422 `attachment-damaged` / `image-too-many-pixels` (and a
 *   PDF's own 422s, `document-damaged`, `document-encrypted`...), 413 `attachment-too-large`
 */
export async function storeUpload({ services, caller, target, contentType, disposition, bytes, now }: { services: Services; caller: SigningCaller; target: UploadTarget; contentType: string; disposition: string | null; bytes: Uint8Array; now: Date }): Promise<AttachmentValue> {
  const accepted = acceptedTypes(target.field);
  if (!accepted.includes(contentType)) {
    throw problem('attachmentType', { detail: `This field takes ${accepted.join(', ')}; the request's Content-Type is ${contentType === '' ? 'missing' : contentType}.` });
  }
  const type = contentType as AttachmentType;
  const sniffed = sniffAttachmentType(bytes);
  if (sniffed !== type) throw problem('attachmentType', { detail: `The file is not ${type}: its first bytes are ${sniffed === null ? 'of no accepted type' : `those of ${sniffed}`}.` });
  let stored = bytes;
  let dimensions: { width: number; height: number } | null = null;
  if (type === 'application/pdf') {
    // The same parse and cleaning as a document's at sending (docs/api.md#what-the-service-removes-from-documents-and-why).
    stored = (await cleanDocument({ document: bytes })).cleaned ?? bytes;
  } else {
    dimensions = imageDimensions(bytes, type);
    if (dimensions === null) throw problem('attachmentDamaged', { detail: `The file starts as ${type} but its header cannot be read: it is damaged or truncated.` });
    if (dimensions.width * dimensions.height > MAX_IMAGE_PIXELS) {
      throw problem('imageTooManyPixels', { detail: `The image is ${dimensions.width} × ${dimensions.height} pixels, more than ${MAX_IMAGE_PIXELS / 1_000_000} megapixels; send a smaller one.` });
    }
  }
  if (stored.length > target.maxBytes) throw attachmentTooLarge(target.maxBytes);
  const record = caller.stored.record;
  const attachmentId = uuidv7();
  const value: AttachmentValue = {
    attachmentId,
    name: attachmentName(disposition, (await countAttachments(services, record.id)) + 1, type),
    contentType: type,
    size: stored.length,
    sha256: createHash('sha256').update(stored).digest('hex'),
    uploadedAt: now.toISOString(),
    ...(dimensions === null ? {} : dimensions),
  };
  await services.storage.containers.originals.getBlockBlobClient(attachmentBlobName(record.id, attachmentId)).uploadData(stored, {
    blobHTTPHeaders: { blobContentType: type },
    metadata: attachmentMetadata({ value, fieldId: target.field.id, recipientId: caller.recipient.id }),
    conditions: { ifNoneMatch: '*' },
  });
  return value;
}

/**
 * The values of a complete request with each `attachment` or `image` field's `{attachmentId}`
 * replaced by the attachment as stored (docs/api.md#files-from-signers), after checking it is the
 * signer's own upload to that field.
 * @throws AppError 400 `validation-failed` (rule `attachment`) naming each value that is not
 */
export async function withAttachments(services: Services, record: EnvelopeRecord, recipient: Signer, values: FieldValue[]): Promise<FieldValue[]> {
  const fields = new Map(record.fields.map((field) => [field.id, field]));
  const errors: FieldError[] = [];
  const resolved = await Promise.all(values.map(async (entry, index): Promise<FieldValue> => {
    const field = fields.get(entry.fieldId);
    const { value } = entry;
    if (field === undefined || !FILE_TYPES.has(field.type) || typeof value !== 'object' || !('attachmentId' in value)) return entry;
    const stored = await readAttachment(services, record.id, value.attachmentId);
    if (stored === null || stored.fieldId !== field.id || stored.recipientId !== recipient.id) {
      errors.push({ path: `values.${index}.value`, message: `is not a file you uploaded to this field (field ${field.label === null ? field.type : `"${field.label}"`}, ${field.id})`, fieldId: field.id, rule: 'attachment', params: {} });
      return entry;
    }
    return { fieldId: entry.fieldId, value: stored.value };
  }));
  if (errors.length > 0) throw validationFailed(errors);
  return resolved;
}
