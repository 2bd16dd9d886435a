/**
 * Tells the seal worker pool when a seal waits on the network (a timestamp authority, an OCSP
 * responder, a CRL server), so that the 30 s bound of a seal counts the seal's own work only: each
 * network request has its own deadline (10 s), and the pool bounds the waits of one seal in all
 * (`workerPool.ts`). Outside a seal worker this does nothing but run the work.
 */
import { isMainThread, parentPort } from 'node:worker_threads';

/** A message from the worker: the running seal starts (+1) or ends (-1) a network wait. */
export interface NetworkWaitMessage {
  id: number;
  network: 1 | -1;
}

let currentSeal: number | undefined;

/** The worker marks which seal its network waits belong to (`sealWorker.ts`). */
export function setCurrentSeal(id: number | undefined): void {
  currentSeal = id;
}

/** Runs `work`, a network request, reporting the wait to the pool. */
export async function waitingOnNetwork<T>(work: () => Promise<T>): Promise<T> {
  const id = currentSeal;
  const port = parentPort;
  if (isMainThread || port === null || id === undefined) return await work();
  port.postMessage({ id, network: 1 } satisfies NetworkWaitMessage);
  try {
    return await work();
  } finally {
    port.postMessage({ id, network: -1 } satisfies NetworkWaitMessage);
  }
}
