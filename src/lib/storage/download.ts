/**
 * Reading a whole blob in one GET. The SDK's `downloadToBuffer()` first asks for the blob's size
 * (a HEAD), then downloads: two round trips, and a window in which another upload can change the
 * blob between them. Here the GET's own `Content-Length` gives the size, checked before the body is
 * read, and the body is the version that was measured.
 *
 * The bytes land in a `SharedArrayBuffer`: documents go to the seal worker (`pdf/workerPool.ts`),
 * and a message shares such memory with the worker instead of copying it (a 10 MiB document was
 * held three times during a completion: here, and in the worker for its check and for its seal).
 * Nothing changes the bytes once read.
 */
import type { BlobClient, BlobDownloadResponseParsed } from '@azure/storage-blob';

export interface DownloadOptions {
  /**
   * Called with the blob's size in bytes before its body is read; throw to refuse it (the body is
   * then not read and the connection is released).
   */
  checkSize?: (bytes: number) => void;
  /**
   * Called with the GET's response (its properties: copy status, content type, ...) before the body
   * is read, and before `checkSize`; throw to refuse the blob, as with `checkSize`.
   */
  checkProperties?: (response: BlobDownloadResponseParsed) => void;
}

/**
 * Downloads a whole blob.
 * @returns its bytes, in shared memory (see the module comment)
 * @throws the SDK's RestError (404 when the blob does not exist, for example); whatever `checkSize`
 *   or `checkProperties` throws; an Error when the body is shorter or longer than its `Content-Length`
 */
export async function downloadBlob(blob: BlobClient, { checkSize, checkProperties }: DownloadOptions = {}): Promise<Buffer> {
  const response = await blob.download(0);
  const body = response.readableStreamBody;
  const size = response.contentLength ?? 0;
  try {
    checkProperties?.(response);
    checkSize?.(size);
  } catch (error) {
    body?.destroy();
    throw error;
  }
  const bytes = Buffer.from(new SharedArrayBuffer(size));
  let received = 0;
  if (body !== undefined) {
    for await (const chunk of body) {
      const part = chunk as Buffer;
      if (received + part.byteLength > size) {
        body.destroy();
        throw new Error(`Blob ${blob.name} sent more bytes than its Content-Length (${size}).`);
      }
      part.copy(bytes, received);
      received += part.byteLength;
    }
  }
  if (received !== size) throw new Error(`Blob ${blob.name} ended after ${received} of ${size} bytes.`);
  return bytes;
}
