/**
 * Reading and cancelling bulk jobs (docs/api.md#bulk-send). Who sees a job: admins, the owner and
 * viewers every job of their organisation, a sender its own (another member's job → 403
 * `forbidden-role`); another organisation's job is not found (404), as every other resource.
 */
import type { Actor } from '../envelopes/model.js';
import { isUuid } from '../ids.js';
import { problem } from '../problems.js';
import { retryOnConflict } from '../retryOnConflict.js';
import type { Services } from '../services.js';
import { DEFAULT_LIST_PAGE } from '../envelopes/schemas.js';
import { queueBulkJob } from './queue.js';
import { toBulkJobView, toBulkRowView, type BulkJobRecord, type BulkJobView, type BulkRowView } from './model.js';
import type { ListBulkJobsQuery } from './schemas.js';
import { heldByLiveRunner, signalCancel } from './runner.js';

/** Rows a page of `GET /api/bulk/{id}/rows` holds. */
export const ROWS_PAGE = 100;
/** Longest a cancel waits for the job's runner to stop, milliseconds (its answer then holds the final counts). */
const CANCEL_WAIT_MS = 3000;

/**
 * The job, if the actor may see it.
 * @throws AppError 404 `bulk-job-not-found` (no such job in the actor's organisation); 403 `forbidden-role` (a sender, another member's job)
 */
export async function readBulkJob(services: Services, actor: Actor, jobId: string): Promise<BulkJobRecord> {
  if (!isUuid(jobId)) throw problem('bulkJobNotFound');
  const stored = await services.bulkJobs.read(actor.organizationId, jobId);
  if (stored === null) throw problem('bulkJobNotFound');
  if (actor.role === 'sender' && stored.record.actor.userId !== actor.userId) {
    throw problem('forbiddenRole', { detail: 'This bulk job is another member\'s: a sender sees and cancels only its own jobs (admins, the owner and viewers see every job of the organization).' });
  }
  return stored.record;
}

/**
 * A page of a job's rows, in row order: `cursor` is the `nextCursor` of the previous page.
 * @throws AppError as {@link readBulkJob}; 400 `invalid-cursor`
 */
export async function listBulkRows(services: Services, actor: Actor, jobId: string, cursor: string | undefined): Promise<{ rows: BulkRowView[]; nextCursor: string | null }> {
  const job = await readBulkJob(services, actor, jobId);
  let from = 1;
  if (cursor !== undefined) {
    const decoded = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? /^row:(\d{1,7})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8')) : null;
    if (decoded === null) throw problem('invalidCursor');
    from = Number(decoded[1]);
  }
  const rows = from > job.total ? [] : await services.bulkJobs.rowPage(job.id, from, ROWS_PAGE);
  const next = from + ROWS_PAGE;
  return { rows: rows.map(toBulkRowView), nextCursor: next <= job.total ? Buffer.from(`row:${next}`, 'utf8').toString('base64url') : null };
}

/**
 * A page of the jobs the actor sees (a sender's own, everyone else the organisation's), newest first.
 * @throws AppError 400 `invalid-cursor`
 */
export async function listBulkJobs(services: Services, actor: Actor, query: ListBulkJobsQuery): Promise<{ jobs: BulkJobView[]; nextCursor: string | undefined }> {
  let after: string | undefined;
  if (query.cursor !== undefined) {
    after = /^[A-Za-z0-9_-]{1,200}$/.test(query.cursor) ? Buffer.from(query.cursor, 'base64url').toString('utf8') : '';
    if (!/^job_[0-9a-f-]{36}$/.test(after)) throw problem('invalidCursor');
  }
  const page = await services.bulkJobs.list(actor.organizationId, {
    ...(actor.role === 'sender' ? { createdBy: actor.userId } : {}),
    limit: query.limit ?? DEFAULT_LIST_PAGE,
    ...(after === undefined ? {} : { after }),
  });
  return { jobs: page.records.map(toBulkJobView), nextCursor: page.nextRowKey === undefined ? undefined : Buffer.from(page.nextRowKey, 'utf8').toString('base64url') };
}

/**
 * `POST /api/bulk/{id}/cancel`: no row is started after it; rows not created stay `pending`. The job
 * becomes `cancelled` at once; its runner (or, with none alive, a new message's) stops, writes the
 * final counts and queues `bulk.completed` with `status: "cancelled"`. The answer waits a little for
 * that, so it usually holds the final counts.
 * @throws AppError as {@link readBulkJob}; 409 `job-finished` when the job completed or was cancelled already
 */
export async function cancelBulkJob(services: Services, actor: Actor, jobId: string): Promise<BulkJobRecord> {
  await readBulkJob(services, actor, jobId);
  const cancelled = await retryOnConflict(
    async () => {
      const stored = await services.bulkJobs.read(actor.organizationId, jobId);
      if (stored === null) throw problem('bulkJobNotFound');
      if (stored.record.status === 'completed' || stored.record.status === 'cancelled') throw problem('jobFinished');
      return (await services.bulkJobs.replace(stored, { ...stored.record, status: 'cancelled', finishedAt: new Date().toISOString() })).record;
    },
    {
      exhausted: () => {
        throw problem('bulkJobContended');
      },
    },
  );
  signalCancel(jobId);
  // No live runner to notice it: a message makes one, which settles the job.
  if (!heldByLiveRunner(cancelled, new Date())) await queueBulkJob(services, cancelled);
  const deadline = Date.now() + CANCEL_WAIT_MS;
  let current = cancelled;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    current = (await services.bulkJobs.read(actor.organizationId, jobId))?.record ?? current;
    if (current.settledAt !== null) break;
  }
  return current;
}
