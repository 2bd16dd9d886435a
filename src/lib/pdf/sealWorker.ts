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
import { inspect, seal } from './seal.js';

const port = parentPort;
if (port === null) throw new Error('sealWorker.js runs only as a worker thread.');

port.on('message', (request: SealRequest) => {
  void (async () => {
    let response: SealResponse;
    setCurrentSeal(request.id);
    try {
      const job = request.job;
      const result =
        'inspectOnly' in job
          ? { sealed: new Uint8Array(0), originalPageCount: (await inspect(job.document)).pageCount, certificatePageCount: 0 }
          : await seal(job);
      // Transfer only a buffer that holds exactly the sealed bytes (never a shared pool).
      const { sealed } = result;
      const owned = sealed.byteOffset === 0 && sealed.byteLength === sealed.buffer.byteLength ? sealed : sealed.slice();
      response = { id: request.id, ok: true, result: { ...result, sealed: owned } };
    } catch (error) {
      response = { id: request.id, ok: false, error: serializeError(error) };
    }
    setCurrentSeal(undefined);
    port.postMessage(response, response.ok ? [response.result.sealed.buffer as ArrayBuffer] : []);
  })();
});
