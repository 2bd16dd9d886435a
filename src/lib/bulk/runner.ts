/**
 * Runs a bulk job (docs/api.md#bulk-send): the work of one message of queue `bulk-jobs`.
 *
 * - **One runner at a time.** The runner takes the job by writing its `runId` and `heartbeatAt`,
 *   conditional on the job's ETag, and writes a heartbeat (with the counts so far) every
 *   {@link HEARTBEAT_MS}. A message that finds the job held by a runner heard from within
 *   {@link STALE_AFTER_MS} does nothing; a runner whose process died falls silent, and the next
 *   message takes the job over: the queue lease of `triggers/register.ts` brings its own message back
 *   about a minute after the death, so the job resumes within two minutes of any instance running.
 * - **Several rows in flight.** Up to {@link ROWS_IN_FLIGHT} rows at once: each row's envelope is made
 *   and sent by the use of the template (`templates/createEnvelopeFromTemplate.ts`, the work of
 *   `POST /api/templates/{id}/envelopes`), with `bulkJobId` and the row's `metadata`. The process
 *   also answers requests, so fewer rows go at once while its event loop is busy ({@link RowPacer}):
 *   a job never starves the API's readers.
 * - **Each row at most once.** A row is claimed (status `running`, conditional on its ETag) before
 *   its envelope is made, and its envelope's id is derived from the job's id and the row's number
 *   (`ids.ts` `resumableId` under the seed `bulk/<jobId>/<row>`): a runner that takes over a row
 *   claimed by a dead one reads that envelope first and completes it (sends a draft left unsent) or
 *   records it, never making a second.
 * - **The end.** Once no row is left (or, cancelled, none claimed), the job becomes `completed`
 *   (conditional on its ETag: a cancel that won stays `cancelled`) with its final counts, the
 *   `bulk.completed` webhook event is written to the outbox under an id derived from the job's (so a
 *   runner that dies in between writes it once), and the job is marked settled.
 *
 * A cancel (`cancel.ts`) reaches a runner of the same process at once ({@link signalCancel}), others
 * at their next heartbeat: no row is claimed after that; rows already in flight finish.
 */
import { performance } from 'node:perf_hooks';
import { crashPoint } from '../crashPoint.js';
import { isAppError } from '../errors.js';
import type { Actor } from '../envelopes/model.js';
import { resumableId, uuidv7 } from '../ids.js';
import type { OutboxBatch } from '../notifications/outbox.js';
import { withResumableIds } from '../resumableRun.js';
import { retryOnConflict } from '../retryOnConflict.js';
import type { Services } from '../services.js';
import { storageStatus } from '../storage/keys.js';
import { useTemplate } from '../templates/createEnvelopeFromTemplate.js';
import type { BulkJobRecord, BulkRowError, BulkRowRecord } from './model.js';
import type { BulkJobMessage } from './queue.js';
import type { StoredBulkJob, StoredBulkRow } from '../storage/bulkJobRepository.js';

/** Milliseconds between a runner's heartbeats (counts written, cancel noticed). */
export const HEARTBEAT_MS = 1000;
/** A runner silent for this long, milliseconds, is taken to be dead (its job may be taken over). */
export const STALE_AFTER_MS = 30_000;
/**
 * Rows in flight at once per job. Each row waits mostly on storage, so several at once use the
 * machine's cores (the storage clients' own work, the seal-free send path) without queueing much.
 */
export const ROWS_IN_FLIGHT = 16;
/** Rows in flight at once however busy the process is. */
const MIN_ROWS_IN_FLIGHT = 2;
/** How often the pacer looks at the event loop, milliseconds. */
const PACE_EVERY_MS = 200;

/**
 * How many rows may be in flight: halved while this process's event loop was busy more than 75 % of
 * the last {@link PACE_EVERY_MS} (Node's `performance.eventLoopUtilization`), grown by one while it
 * was busy less than half of it, between {@link MIN_ROWS_IN_FLIGHT} and {@link ROWS_IN_FLIGHT}.
 */
class RowPacer {
  allowed = ROWS_IN_FLIGHT / 2;
  private last = performance.eventLoopUtilization();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = performance.eventLoopUtilization();
      const busy = performance.eventLoopUtilization(now, this.last).utilization;
      this.last = now;
      if (busy > 0.75) this.allowed = Math.max(MIN_ROWS_IN_FLIGHT, Math.floor(this.allowed / 2));
      else if (busy < 0.5) this.allowed = Math.min(ROWS_IN_FLIGHT, this.allowed + 1);
    }, PACE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
/** Tries of a row whose creation met a storage fault, before the run gives up (and the message is retried). */
const ROW_TRIES = 3;

/** What a runner in this process knows of its job's cancellation. */
interface RunState {
  cancelled: boolean;
  /** Another runner took the job (this one was taken for dead): stop at once. */
  lost: boolean;
}

/** The runners of this process, by job id. */
const running = new Map<string, RunState>();

/** Tells a runner of this process, if any, that its job was cancelled (see the module comment). */
export function signalCancel(jobId: string): void {
  const state = running.get(jobId);
  if (state !== undefined) state.cancelled = true;
}

/** Whether a runner holds `job` and was heard from recently. */
export function heldByLiveRunner(job: BulkJobRecord, now: Date): boolean {
  return job.runId !== null && job.heartbeatAt !== null && now.getTime() - Date.parse(job.heartbeatAt) < STALE_AFTER_MS;
}

export interface RunBulkJobOptions {
  services: Services;
  message: BulkJobMessage;
  log?: (message: string) => void;
}

/**
 * Runs the job a message names, or does nothing when it is settled, gone, or held by a live runner
 * (see the module comment).
 * @throws storage faults, and a row's after {@link ROW_TRIES} tries (the queue retries the message;
 *   the next run takes the job over once this one's heartbeat is stale)
 */
export async function runBulkJob({ services, message, log = console.warn }: RunBulkJobOptions): Promise<void> {
  const runId = uuidv7();
  const taken = await takeJob(services, message, runId);
  if (taken === null) return;
  const job = taken.record;
  const state: RunState = { cancelled: job.status === 'cancelled', lost: false };
  running.set(job.id, state);
  const rows = await services.bulkJobs.rows(job.id);
  const counts = {
    created: rows.filter((row) => row.record.status === 'created').length,
    failed: rows.filter((row) => row.record.status === 'failed').length,
  };
  const pacer = new RowPacer();
  let beating = true;
  // The heartbeat's pause, cut short when the run ends (so that the job settles at once).
  let wake = () => {};
  const heartbeat = (async () => {
    while (beating) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, HEARTBEAT_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!beating) break;
      try {
        await beat(services, job, runId, state, counts);
      } catch (error) {
        log(`Bulk job ${job.id}: heartbeat not written (${error instanceof Error ? error.message : String(error)}).`);
      }
    }
  })();
  try {
    const actor: Actor = { ...job.actor, name: job.actor.name ?? null };
    const left = rows.filter((row) => row.record.status === 'pending' || row.record.status === 'running');
    let next = 0;
    const failures: unknown[] = [];
    const worker = async (index: number) => {
      while (next < left.length && !state.lost && failures.length === 0) {
        // Workers past the pacer's allowance wait their turn.
        if (index >= pacer.allowed) {
          await new Promise((resolve) => setTimeout(resolve, PACE_EVERY_MS / 4));
          continue;
        }
        const row = left[next++]!;
        try {
          const outcome = await runRow(services, job, actor, row, state, log);
          if (outcome === 'created') counts.created++;
          else if (outcome === 'failed') counts.failed++;
        } catch (error) {
          failures.push(error);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(ROWS_IN_FLIGHT, left.length) }, (_, index) => worker(index)));
    if (failures.length > 0) throw failures[0];
  } finally {
    pacer.stop();
    beating = false;
    wake();
    await heartbeat;
    running.delete(job.id);
  }
  if (state.lost) return;
  await settle(services, job.organizationId, job.id, counts, log);
}

/**
 * Takes the job for `runId`, unless it is gone, settled, or held by a live runner.
 * @returns the job as taken, or `null`
 */
async function takeJob(services: Services, message: BulkJobMessage, runId: string): Promise<StoredBulkJob | null> {
  return await retryOnConflict(
    async () => {
      const stored = await services.bulkJobs.read(message.organizationId, message.jobId);
      const now = new Date();
      if (stored === null || stored.record.settledAt !== null || heldByLiveRunner(stored.record, now)) return null;
      const job = stored.record;
      const at = now.toISOString();
      return await services.bulkJobs.replace(stored, {
        ...job,
        status: job.status === 'queued' ? 'running' : job.status,
        startedAt: job.startedAt ?? at,
        runId,
        heartbeatAt: at,
        runs: job.runs + 1,
      });
    },
    { exhausted: () => null },
  );
}

/** One heartbeat: notices a cancel or a takeover, and writes the counts so far. */
async function beat(services: Services, job: BulkJobRecord, runId: string, state: RunState, counts: { created: number; failed: number }): Promise<void> {
  const stored = await services.bulkJobs.read(job.organizationId, job.id);
  if (stored === null || stored.record.runId !== runId) {
    state.lost = true;
    return;
  }
  if (stored.record.status === 'cancelled') state.cancelled = true;
  await services.bulkJobs.mergeProgress(job.organizationId, job.id, { ...counts, heartbeatAt: new Date().toISOString() });
}

/**
 * Makes one row's envelope (see the module comment).
 * @returns `created` or `failed` as recorded, or `skipped` (cancelled before its claim, or claimed by another runner)
 * @throws a storage fault that lasted {@link ROW_TRIES} tries
 */
async function runRow(services: Services, job: BulkJobRecord, actor: Actor, row: StoredBulkRow, state: RunState, log: (message: string) => void): Promise<'created' | 'failed' | 'skipped'> {
  let resumed = row.record.status === 'running';
  if (!resumed) {
    if (state.cancelled) return 'skipped';
    if ((await services.bulkJobs.claimRow(job.id, row)) === null) return 'skipped';
  }
  for (let attempt = 1; ; attempt++) {
    const outcome = await createRowEnvelope(services, job, actor, row.record, resumed, log);
    if (outcome.status === 'created') crashPoint('bulk.rowMade');
    if (outcome.status !== 'retry') {
      await services.bulkJobs.finishRow(job.id, row.record.row, outcome);
      return outcome.status;
    }
    if (attempt >= ROW_TRIES) throw outcome.fault;
    // The attempt may have left its envelope half-made: the next one reads it first.
    resumed = true;
    await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
  }
}

type RowOutcome = { status: 'created'; envelopeId: string } | { status: 'failed'; error: BulkRowError } | { status: 'retry'; fault: unknown };

/** The use of the template a row amounts to, under the row's derived ids. */
async function createRowEnvelope(services: Services, job: BulkJobRecord, actor: Actor, row: BulkRowRecord, resumed: boolean, log: (message: string) => void): Promise<RowOutcome> {
  const seed = { seed: `bulk/${job.id}/${row.row}`, at: Date.parse(job.createdAt), resumed };
  try {
    const envelope = await withResumableIds(seed, async () => await useTemplate({ services, templateId: job.templateId, request: row.request, actor, log, bulk: { jobId: job.id, metadata: row.metadata } }));
    return { status: 'created', envelopeId: envelope.id };
  } catch (error) {
    // A fault of the service or its storage (a 5xx, any error that is no problem) or a race lost
    // (409 `...-contended`) passes: try again. Any other problem is the row's answer.
    if (!isAppError(error)) return { status: 'retry', fault: error };
    const status = error.status;
    if (status >= 500 || error.type.endsWith('-contended')) return { status: 'retry', fault: error };
    return { status: 'failed', error: { type: error.type, status, detail: error.detail } };
  }
}

/**
 * Ends the job: `completed` unless cancelled, final counts, `bulk.completed` queued once, settled.
 * Safe to run again after a crash at any point (see the module comment).
 */
async function settle(services: Services, organizationId: string, jobId: string, counts: { created: number; failed: number }, log: (message: string) => void): Promise<void> {
  const ended = await retryOnConflict(
    async () => {
      const stored = await services.bulkJobs.read(organizationId, jobId);
      if (stored === null) return null;
      const job = stored.record;
      const finishedAt = job.finishedAt ?? new Date().toISOString();
      return (await services.bulkJobs.replace(stored, { ...job, ...counts, status: job.status === 'cancelled' ? 'cancelled' : 'completed', finishedAt })).record;
    },
    { exhausted: () => null },
  );
  if (ended === null) throw new Error(`Bulk job ${jobId}: its end could not be written (the job changed every time); the queue retries it.`);
  await queueCompletedEvent(services, ended, log);
  await services.bulkJobs.markSettled(organizationId, jobId, new Date().toISOString());
}

/** Writes and dispatches the `bulk.completed` event (docs/api.md#events), under ids derived from the job's, so that it is written once. */
async function queueCompletedEvent(services: Services, job: BulkJobRecord, log: (message: string) => void): Promise<void> {
  const batch = await withResumableIds({ seed: `bulk/${job.id}/completed`, at: Date.parse(job.createdAt), resumed: true }, async (): Promise<OutboxBatch> => ({
    id: resumableId('outbox'),
    ownerId: job.actor.userId,
    envelopeId: '',
    createdAt: job.finishedAt ?? new Date().toISOString(),
    messages: [
      {
        kind: 'event',
        event: {
          id: resumableId('event'),
          type: 'bulk.completed',
          createdAt: job.finishedAt ?? new Date().toISOString(),
          organizationId: job.organizationId,
          actor: { userId: job.actor.userId, email: job.actor.email },
          data: { bulkJobId: job.id, templateId: job.templateId, status: job.status, total: job.total, created: job.created, failed: job.failed },
        },
      },
    ],
  }));
  const [, entity] = (await services.outbox.prepare(batch)) as ['create', Parameters<typeof services.storage.tables.envelopes.createEntity>[0]];
  let written = true;
  try {
    await services.storage.tables.envelopes.createEntity(entity);
  } catch (error) {
    // Written by a runner that died before settling the job: dispatched again, which skips what was sent.
    if (storageStatus(error) !== 409) throw error;
    written = false;
  }
  await services.outbox.dispatch(batch, log, { justCommitted: written });
}
