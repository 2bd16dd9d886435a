/**
 * Jest `setupFilesAfterEnv`: runs in every test file's own module registry. A file that seals starts
 * a seal worker thread of its own (its registry has its own `workerPool.ts`), which stays, idle and
 * unref'd, until the Jest worker process exits; one per file added up to a process whose exit took
 * longer than Jest's 500 ms grace ("A worker process has failed to exit gracefully"). This stops the
 * file's seal worker once its tests are done.
 */
import { afterAll } from '@jest/globals';
import { stopSealWorker } from '../../src/lib/pdf/index.js';

afterAll(async () => {
  await stopSealWorker();
});
