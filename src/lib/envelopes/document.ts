/**
 * The uploaded document, checked whenever it is used (docs/api.md#create-an-envelope-and-upload-its-document): a SAS cannot limit size or type,
 * so nothing about the blob is trusted until read.
 */
import { AppError } from '../errors.js';
import type { ContainerClient } from '@azure/storage-blob';
import type { Services } from '../services.js';
import { downloadBlob } from '../storage/download.js';
import { storageStatus } from '../storage/keys.js';
import type { EnvelopeRecord } from './model.js';
import { problem } from '../problems.js';

/** How far into the file the `%PDF-` header may start, bytes (docs/api.md#create-an-envelope-and-upload-its-document). */
export const HEADER_WINDOW_BYTES = 1024;
const PDF_HEADER = Buffer.from('%PDF-', 'latin1');

export interface DocumentCheckOptions {
  services: Services;
  /** Where the upload is: `blobName` in `uploads`. */
  record: Pick<EnvelopeRecord, 'blobName'>;
  /** The container of uploads: `documents` (default) for envelopes, `templates` for templates. */
  uploads?: ContainerClient;
}

/**
 * Reads the uploaded document (container `documents`, or `uploads`) after checking that it is there, within
 * `MAX_DOCUMENT_BYTES` and starts like a PDF (docs/api.md#create-an-envelope-and-upload-its-document); `freeze.ts` then checks that it can be
 * sealed and freezes it.
 * @returns the document's bytes
 * An upload that is a storage copy of another blob (Copy Blob, which an upload SAS's write
 * permission allows, from any blob its caller can read: another envelope's document through a
 * signing or download link, for one) is refused: its bytes were not uploaded by the owner, and
 * freezing it would hand the owner a document they may never have held (docs/api.md#what-the-service-removes-from-documents-and-why). The blob's
 * copy properties (`x-ms-copy-id`, `x-ms-copy-source`, `x-ms-copy-status`) say so; an upload by
 * `PUT` has none.
 * @throws AppError 409 (not uploaded yet), 413 (too large), 415 (no `%PDF-` header), 422
 *   (`document-copied`: a storage copy of another blob)
 */
export async function readDocument({ services, record, uploads = services.storage.containers.documents }: DocumentCheckOptions): Promise<Uint8Array> {
  const blob = uploads.getBlockBlobClient(record.blobName);
  const max = services.config.maxDocumentBytes;
  let bytes: Buffer;
  try {
    bytes = await downloadBlob(blob, {
      checkProperties: (properties) => {
        if (properties.copyId !== undefined || properties.copySource !== undefined || properties.copyStatus !== undefined) throw copied();
      },
      checkSize: (size) => {
        if (size > max) throw problem('documentTooLarge', { detail: `The document is ${size} bytes; at most ${max} bytes are accepted.` });
      },
    });
  } catch (error) {
    if (storageStatus(error) === 404) throw notUploaded();
    throw error;
  }
  assertPdfHeader(bytes.subarray(0, HEADER_WINDOW_BYTES));
  return bytes;
}

function assertPdfHeader(head: Buffer): void {
  if (head.indexOf(PDF_HEADER) === -1) {
    throw problem('documentNotPdf', { detail: `The uploaded document is not a PDF: no %PDF- header in its first ${HEADER_WINDOW_BYTES} bytes.` });
  }
}

function copied(): AppError {
  return problem('documentCopied');
}

function notUploaded(): AppError {
  return problem('documentNotUploaded');
}
