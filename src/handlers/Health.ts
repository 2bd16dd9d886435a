/**
 * The handler of `Health` (GET /api/health).
 * Registered in `src/functions/Health.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { sealHealthReasons } from '../lib/pdf/index.js';
import { getServices } from '../lib/services.js';
import { storageStatus } from '../lib/storage/keys.js';
import { problem } from '../lib/problems.js';

/** How long each storage probe may take, milliseconds. */
const PROBE_TIMEOUT_MS = 5_000;

export async function health(): Promise<HttpResponseInit> {
  const { storage } = getServices();
  const abortSignal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    await Promise.all([
      // A point read of a row that never exists: any answer, 404 included, means Table storage works.
      storage.tables.users.getEntity('health-probe', 'health-probe', { abortSignal }).catch((error: unknown) => {
        if (storageStatus(error) !== 404) throw error;
      }),
      storage.containers.documents.exists({ abortSignal }),
    ]);
  } catch (error) {
    throw problem('storageUnavailable', { retryAfterSeconds: 5, cause: error });
  }
  // Still 200: the service answers; seals wait for the failing source and are retried by the sweeper.
  const reasons = sealHealthReasons();
  return json(200, reasons.length === 0 ? { status: 'ok' } : { status: 'degraded', reasons }, { noStore: true });
}
