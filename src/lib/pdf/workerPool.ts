/**
 * Runs seals in a worker thread, within the bounds of docs/api.md#create-an-envelope-and-upload-its-document: whatever the document, a seal
 * takes at most 30 seconds and 512 MiB of memory, else it fails with 422 document-too-complex, and
 * it never takes the process down.
 *
 * - Time: a seal still running after {@link SEAL_BOUNDS}.timeoutMs is stopped by terminating its
 *   worker (which interrupts even a synchronous loop). Time spent waiting on the network (a
 *   timestamp authority, revocation data: `networkWait.ts`) does not count, since each request has
 *   its own 10 s deadline; those waits are bounded in all by {@link SEAL_BOUNDS}.networkMs, after
 *   which the seal fails as its network source being unavailable would.
 * - Memory: the worker's V8 heap is capped with `resourceLimits` (exceeding it ends the worker with
 *   ERR_WORKER_OUT_OF_MEMORY, not the process). Typed arrays live outside that heap, so a watchdog
 *   samples the process's resident set every 25 ms while a seal runs and terminates the worker when
 *   it has grown by more than {@link SEAL_BOUNDS}.memoryBytes since the seal started. Decompression
 *   bombs are refused before parsing by `inflateBudget.ts`; the watchdog catches what it cannot see.
 * - One worker, reused: seals run one at a time, in order of arrival (so the memory bound holds for
 *   the process), and a completed seal does not pay the worker's start-up (about 0.2 s) again. The
 *   idle worker is unref'd, so it never keeps a process (a test run, a CLI) alive. A terminated
 *   worker is replaced on the next seal.
 */
import { Worker } from 'node:worker_threads';
import { deserializeError } from './protocol.js';
import type { NetworkWaitMessage } from './networkWait.js';
import type { SealRequest, SealResponse } from './protocol.js';
import { tooComplex } from './inflateBudget.js';
import type { WorkerJob, WorkerResult } from './types.js';
import { problem } from '../problems.js';

const MiB = 1024 * 1024;

/** The bounds of one seal (docs/api.md#create-an-envelope-and-upload-its-document). */
export const SEAL_BOUNDS = {
  /** Wall-clock time of one seal in the worker, network waits excluded, milliseconds. */
  timeoutMs: 30_000,
  /** Network waits of one seal in all (timestamps, revocation data), milliseconds. */
  networkMs: 90_000,
  /** Growth of the process's resident set during one seal, bytes. */
  memoryBytes: 512 * MiB,
  /** V8 old-generation heap of the worker, MiB (part of the 512 MiB). */
  heapMb: 384,
  /** V8 young-generation heap of the worker, MiB. */
  youngHeapMb: 32,
  /** How often the resident set is sampled, milliseconds. */
  watchIntervalMs: 25,
} as const;

interface Pending {
  job: WorkerJob;
  signal: AbortSignal | undefined;
  resolve: (result: WorkerResult) => void;
  reject: (error: unknown) => void;
  onAbort: () => void;
}

interface Running {
  pending: Pending;
  id: number;
  timer: NodeJS.Timeout;
  watchdog: NodeJS.Timeout;
  /** Work time left, milliseconds (counted down while no network wait is open). */
  workLeftMs: number;
  /** Network time left, milliseconds (counted down while a network wait is open). */
  networkLeftMs: number;
  /** Network waits open now. */
  waits: number;
  /** When the current count-down started (Date.now()). */
  since: number;
}

class SealWorkerPool {
  private worker: Worker | undefined;
  private running: Running | undefined;
  private readonly queue: Pending[] = [];
  private nextId = 1;

  /** Queues a seal; rejects with `signal.reason` when aborted (queued or running). */
  run(job: WorkerJob, signal: AbortSignal | undefined): Promise<WorkerResult> {
    return new Promise<WorkerResult>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason);
        return;
      }
      const pending: Pending = {
        job,
        signal,
        resolve,
        reject,
        onAbort: () => {
          const queued = this.queue.indexOf(pending);
          if (queued >= 0) {
            this.queue.splice(queued, 1);
            reject(signal?.reason);
          } else if (this.running?.pending === pending) {
            void this.stopRunning(signal?.reason);
          }
        },
      };
      signal?.addEventListener('abort', pending.onAbort, { once: true });
      this.queue.push(pending);
      this.startNext();
    });
  }

  private startNext(): void {
    if (this.running !== undefined) return;
    const pending = this.queue.shift();
    if (pending === undefined) return;
    let worker: Worker;
    try {
      worker = this.worker ?? this.startWorker();
    } catch (error) {
      pending.signal?.removeEventListener('abort', pending.onAbort);
      pending.reject(error);
      this.startNext();
      return;
    }
    const id = this.nextId++;
    const baseline = process.memoryUsage.rss();
    const running: Running = {
      pending,
      id,
      timer: this.workTimer(SEAL_BOUNDS.timeoutMs),
      workLeftMs: SEAL_BOUNDS.timeoutMs,
      networkLeftMs: SEAL_BOUNDS.networkMs,
      waits: 0,
      since: Date.now(),
      watchdog: setInterval(() => {
        const grown = process.memoryUsage.rss() - baseline;
        if (grown > SEAL_BOUNDS.memoryBytes) {
          void this.stopRunning(tooComplex(new Error(`Seal grew the resident set by ${Math.round(grown / MiB)} MiB.`)));
        }
      }, SEAL_BOUNDS.watchIntervalMs),
    };
    running.watchdog.unref();
    this.running = running;
    // A running seal keeps the process alive until it answers.
    worker.ref();
    const request: SealRequest = { id, job: pending.job };
    worker.postMessage(request);
  }

  private workTimer(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => void this.stopRunning(tooComplex(new Error(`Seal took longer than ${SEAL_BOUNDS.timeoutMs} ms.`))), ms);
    timer.unref();
    return timer;
  }

  private networkTimer(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      const error = problem('revocationUnavailable', { detail: 'The network sources of the seal (timestamp authority, revocation data) took too long in all, so the document was not sealed. Try again later.', retryAfterSeconds: 30, cause: new Error(`Network waits of one seal took longer than ${SEAL_BOUNDS.networkMs} ms in all.`) });
      void this.stopRunning(error);
    }, ms);
    timer.unref();
    return timer;
  }

  /** A network wait of the running seal opens (+1) or closes (-1): switch which time counts down. */
  private onNetworkWait(message: NetworkWaitMessage): void {
    const running = this.running;
    if (running === undefined || running.id !== message.id) return;
    const before = running.waits;
    running.waits = Math.max(0, before + message.network);
    if ((before === 0) === (running.waits === 0)) return;
    const now = Date.now();
    clearTimeout(running.timer);
    if (before === 0) {
      running.workLeftMs -= now - running.since;
      running.timer = this.networkTimer(Math.max(0, running.networkLeftMs));
    } else {
      running.networkLeftMs -= now - running.since;
      running.timer = this.workTimer(Math.max(0, running.workLeftMs));
    }
    running.since = now;
  }

  private settle(outcome: { ok: true; result: WorkerResult } | { ok: false; error: unknown }): void {
    const running = this.running;
    if (running === undefined) return;
    this.running = undefined;
    clearTimeout(running.timer);
    clearInterval(running.watchdog);
    const { pending } = running;
    pending.signal?.removeEventListener('abort', pending.onAbort);
    this.worker?.unref();
    if (outcome.ok) pending.resolve(outcome.result);
    else pending.reject(outcome.error);
    this.startNext();
  }

  /**
   * Stops the worker thread, if one is started, which frees its memory (70 to 90 MiB once its fonts
   * are loaded); the next seal starts a new one. Seals running or queued are refused with `error`.
   */
  async stop(error: Error = new Error('The seal worker was stopped.')): Promise<void> {
    for (const pending of this.queue.splice(0)) {
      pending.signal?.removeEventListener('abort', pending.onAbort);
      pending.reject(error);
    }
    await this.stopRunning(error);
  }

  /**
   * Ends the running seal with `error`, terminating its worker (a new one serves the next seal).
   * @returns when the worker thread has stopped
   */
  private async stopRunning(error: unknown): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.settle({ ok: false, error });
    await worker?.terminate().catch(() => {
      // Already gone: nothing left to stop.
    });
  }

  private startWorker(): Worker {
    const worker = new Worker(new URL('./sealWorker.js', import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: SEAL_BOUNDS.heapMb, maxYoungGenerationSizeMb: SEAL_BOUNDS.youngHeapMb },
    });
    worker.unref();
    worker.on('message', (response: SealResponse | NetworkWaitMessage) => {
      if (this.worker !== worker || this.running?.id !== response.id) return;
      if ('network' in response) {
        this.onNetworkWait(response);
        return;
      }
      if (response.ok) this.settle({ ok: true, result: response.result });
      else this.settle({ ok: false, error: deserializeError(response.error) });
    });
    worker.on('error', (error: Error & { code?: string }) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.settle({ ok: false, error: error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? tooComplex(error) : error });
    });
    worker.on('exit', (exitCode: number) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.settle({ ok: false, error: new Error(`The seal worker stopped unexpectedly (exit code ${exitCode}).`) });
    });
    this.worker = worker;
    return worker;
  }
}

/** The process's one pool. */
export const sealWorkers = new SealWorkerPool();
