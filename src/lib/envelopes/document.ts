/**
 * The uploaded document, checked whenever it is used (CONTRACT §4): a SAS cannot limit size or type,
 * so nothing about the blob is trusted until read.
 */
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { storageStatus } from '../storage/keys.js';
import type { EnvelopeRecord } from './model.js';

/** How far into the file the `%PDF-` header may start, bytes (CONTRACT §4). */
export const HEADER_WINDOW_BYTES = 1024;
const PDF_HEADER = Buffer.from('%PDF-', 'latin1');

export interface DocumentCheckOptions {
  services: Services;
  record: EnvelopeRecord;
}

/**
 * Reads the uploaded document (container `documents`) after checking that it is there, within
 * `MAX_DOCUMENT_BYTES` and starts like a PDF (CONTRACT §4); `freeze.ts` then checks that it can be
 * sealed and freezes it.
 * @returns the document's bytes
 * @throws AppError 409 (not uploaded yet), 413 (too large), 415 (no `%PDF-` header)
 */
export async function readDocument({ services, record }: DocumentCheckOptions): Promise<Uint8Array> {
  const blob = services.storage.containers.documents.getBlockBlobClient(record.blobName);
  // One GET: its headers give the size, checked before the body is read, and the body is the very
  // version measured (no window for a new upload between a HEAD and a GET).
  let response: Awaited<ReturnType<typeof blob.download>>;
  try {
    response = await blob.download(0);
  } catch (error) {
    if (storageStatus(error) === 404) throw notUploaded();
    throw error;
  }
  const body = response.readableStreamBody;
  const size = response.contentLength ?? 0;
  const max = services.config.maxDocumentBytes;
  if (size > max) {
    body?.destroy();
    throw new AppError('payload_too_large', `The document is ${size} bytes; at most ${max} bytes are accepted.`, { type: 'document-too-large' });
  }
  const bytes = Buffer.allocUnsafe(size);
  let received = 0;
  if (body !== undefined) {
    for await (const chunk of body) {
      const part = chunk as Buffer;
      if (received + part.byteLength > size) {
        body.destroy();
        throw new Error(`Blob ${record.blobName} sent more bytes than its Content-Length (${size}).`);
      }
      part.copy(bytes, received);
      received += part.byteLength;
    }
  }
  if (received !== size) throw new Error(`Blob ${record.blobName} ended after ${received} of ${size} bytes.`);
  assertPdfHeader(bytes.subarray(0, HEADER_WINDOW_BYTES));
  return bytes;
}

function assertPdfHeader(head: Buffer): void {
  if (head.indexOf(PDF_HEADER) === -1) {
    throw new AppError('unsupported_media_type', `The uploaded document is not a PDF: no %PDF- header in its first ${HEADER_WINDOW_BYTES} bytes.`, {
      type: 'document-not-pdf',
    });
  }
}

function notUploaded(): AppError {
  return new AppError('conflict', 'The document has not been uploaded yet: PUT it to the uploadUrl first.', { type: 'document-not-uploaded' });
}
