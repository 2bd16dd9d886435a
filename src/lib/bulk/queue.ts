/**
 * The messages of queue `bulk-jobs` (docs/api.md#bulk-send): each names one job, `{organizationId,
 * jobId}`, base64 JSON as the Functions host's queue trigger expects. A message only says "look at
 * this job": the runner (`runner.ts`) decides from the job's row what is left to do, so a message
 * that comes twice, or late, changes nothing.
 */
import type { Services } from '../services.js';
import type { BulkJobRecord } from './model.js';

/** A message of `bulk-jobs`. */
export interface BulkJobMessage {
  organizationId: string;
  jobId: string;
}

/** Puts a message for `job` on `bulk-jobs`, visible after `delaySeconds` (default at once). */
export async function queueBulkJob(services: Pick<Services, 'storage'>, job: Pick<BulkJobRecord, 'organizationId' | 'id'>, { delaySeconds = 0 }: { delaySeconds?: number } = {}): Promise<void> {
  const message: BulkJobMessage = { organizationId: job.organizationId, jobId: job.id };
  await services.storage.queues.bulkJobs.sendMessage(Buffer.from(JSON.stringify(message), 'utf8').toString('base64'), delaySeconds > 0 ? { visibilityTimeout: delaySeconds } : {});
}

/**
 * Reads a `bulk-jobs` message: the object the host parsed, or its base64 or JSON text.
 * @throws Error when it names no job
 */
export function decodeBulkJobMessage(value: unknown): BulkJobMessage {
  let parsed: unknown = value;
  if (typeof value === 'string') parsed = JSON.parse(value.trim().startsWith('{') ? value : Buffer.from(value, 'base64').toString('utf8'));
  const message = parsed as Partial<BulkJobMessage> | null;
  if (message !== null && typeof message === 'object' && typeof message.organizationId === 'string' && typeof message.jobId === 'string') {
    return { organizationId: message.organizationId, jobId: message.jobId };
  }
  throw new Error('A bulk-jobs message must be {organizationId, jobId}.');
}
