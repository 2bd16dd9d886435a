/**
 * Queue trigger on `bulk-jobs` (docs/api.md#bulk-send): each message names one bulk job
 * (`{organizationId, jobId}`, base64 JSON); `runBulkJob` runs it, or does nothing when it is settled
 * or held by a live runner. A throw makes the host retry the message after `host.json`'s visibility
 * timeout; a process that dies mid-job leaves the queue lease's copy, which takes the job over.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/RunBulkJob.ts`.
 */
import { QUEUES } from '../lib/storage/queues.js';
import { queueFunction } from '../lib/triggers/register.js';

queueFunction('RunBulkJob', {
  queueName: QUEUES.bulkJobs,
  loadHandler: async () => (await import('../handlers/RunBulkJob.js')).runBulkJobHandler,
});
