/**
 * The handler of `RunBulkJob` (queue trigger on `bulk-jobs`).
 * Registered in `src/functions/RunBulkJob.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext } from '@azure/functions';
import { decodeBulkJobMessage } from '../lib/bulk/queue.js';
import { runBulkJob } from '../lib/bulk/runner.js';
import { getBackgroundServices } from '../lib/services.js';

export async function runBulkJobHandler(entry: unknown, context: InvocationContext): Promise<void> {
  await runBulkJob({ services: getBackgroundServices(), message: decodeBulkJobMessage(entry), log: (message) => context.warn(message) });
}
