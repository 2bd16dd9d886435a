/**
 * Entry point of a seal worker thread (started by `workerPool.ts`): takes one {@link SealRequest}
 * at a time and answers with a {@link SealResponse}, the sealed bytes transferred, not copied.
 * All @libpdf/core work of the service happens in such a thread, so that a document that needs
 * too much time or memory costs the worker, never the process.
 */
import { parentPort } from 'node:worker_threads';
import { serializeError } from './protocol.js';
import type { SealRequest, SealResponse } from './protocol.js';
import { setCurrentSeal } from './networkWait.js';
import { clean } from './clean.js';
import { coverTags } from './coverTags.js';
import { detect } from './detectFields.js';
import { inspect, seal } from './seal.js';
import { extractPages } from './extractPages.js';
import type { WorkerResult } from './types.js';

const port = parentPort;
if (port === null) throw new Error('sealWorker.js runs only as a worker thread.');

/** Bytes in a buffer of their own, which can be transferred (never a shared pool). */
function owned(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && !(bytes.buffer instanceof SharedArrayBuffer) ? bytes : bytes.slice();
}

port.on('message', (request: SealRequest) => {
  void (async () => {
    let response: SealResponse;
    setCurrentSeal(request.id);
    try {
      const job = request.job;
      let result: WorkerResult;
      if ('detect' in job) {
        result = await detect(job);
      } else if ('coverTags' in job) {
        const covered = await coverTags(job);
        result = { ...covered, covered: covered.covered === null ? null : owned(covered.covered) };
      } else if ('extractPages' in job) {
        const extracted = await extractPages(job.document, job.from);
        result = { sealed: owned(extracted.bytes), originalPageCount: job.from, certificatePageCount: extracted.pageCount };
      } else if ('clean' in job) {
        const cleaned = await clean(job.document);
        result = { ...cleaned, cleaned: cleaned.cleaned === null ? null : owned(cleaned.cleaned) };
      } else {
        const sealed =
          'inspectOnly' in job
            ? { sealed: new Uint8Array(0), originalPageCount: (await inspect(job.document)).pageCount, certificatePageCount: 0 }
            : await seal(job);
        result = { ...sealed, sealed: owned(sealed.sealed) };
      }
      response = { id: request.id, ok: true, result };
    } catch (error) {
      response = { id: request.id, ok: false, error: serializeError(error) };
    }
    setCurrentSeal(undefined);
    const bytes = !response.ok ? null : 'sealed' in response.result ? response.result.sealed : 'cleaned' in response.result ? response.result.cleaned : 'covered' in response.result ? response.result.covered : null;
    port.postMessage(response, bytes === null ? [] : [bytes.buffer as ArrayBuffer]);
  })();
});
