/**
 * Bulk send from a template (docs/api.md#bulk-send): a job makes and sends one envelope per row, in
 * the background. As stored (`repository.ts`) and as responses show it.
 */
import type { Actor } from '../envelopes/model.js';
import type { UseTemplateRequest } from '../templates/schemas.js';

/** A job's statuses (docs/api.md#bulk-send): `queued` until a runner takes it, `running`, then `completed` or `cancelled`. */
export const BULK_JOB_STATUSES = ['queued', 'running', 'completed', 'cancelled'] as const;
export type BulkJobStatus = (typeof BULK_JOB_STATUSES)[number];

/** A row's statuses as responses show them: `pending` until its envelope is made (or the job is cancelled), then `created` or `failed`. */
export const BULK_ROW_STATUSES = ['pending', 'created', 'failed'] as const;
export type BulkRowStatus = (typeof BULK_ROW_STATUSES)[number];

/**
 * A row's status as stored: {@link BulkRowStatus}, and `running` for a row a runner has claimed and
 * not yet finished (shown as `pending`; a runner that takes over a dead one's job finishes it).
 */
export type StoredRowStatus = BulkRowStatus | 'running';

/** What a row failed with: the problem its envelope's creation answered (RFC 9457 `type` and `detail`). */
export interface BulkRowError {
  type: string;
  status: number;
  detail: string;
}

/** The member a job acts for, captured when it was made (its envelopes are that member's). */
export type BulkJobActor = Pick<Actor, 'userId' | 'email' | 'emailVerified' | 'name' | 'ip' | 'userAgent' | 'apiKeyId' | 'organizationId' | 'role'>;

/** Everything stored about a job (its row of table `bulkJobs`). */
export interface BulkJobRecord {
  /** UUID v7: lists are newest first. */
  id: string;
  organizationId: string;
  templateId: string;
  status: BulkJobStatus;
  /** Rows in the job. */
  total: number;
  /** Rows whose envelope was made (and sent, with `send`), as last counted by the runner. */
  created: number;
  /** Rows that failed, as last counted by the runner. */
  failed: number;
  /** Whether each envelope is sent (`send` of the request, default `true`). */
  send: boolean;
  actor: BulkJobActor;
  createdAt: string;
  /** When the first runner took it. */
  startedAt: string | null;
  /** When it completed or was cancelled. */
  finishedAt: string | null;
  /** When its last counts were written and `bulk.completed` queued: nothing more happens to it. */
  settledAt: string | null;
  /** The runner that holds it, and when it last said so (a runner silent for longer than `runner.ts` allows is taken over). */
  runId: string | null;
  heartbeatAt: string | null;
  /** Runners that took it (more than 1: a process died, or a message ran twice). */
  runs: number;
}

/** One row of a job as stored: what it asks for, already checked against the template, and its outcome. */
export interface BulkRowRecord {
  /** 1-based, in the order of the request (the CSV's data rows, header not counted). */
  row: number;
  status: StoredRowStatus;
  /** The use of the template the row amounts to (`POST /api/templates/{id}/envelopes`). */
  request: UseTemplateRequest;
  /** The row's `metadata`, carried onto its envelope. */
  metadata: Record<string, string> | null;
  envelopeId: string | null;
  error: BulkRowError | null;
}

/** A job as responses show it (docs/api.md#bulk-send). */
export interface BulkJobView {
  id: string;
  templateId: string;
  status: BulkJobStatus;
  total: number;
  created: number;
  failed: number;
  createdAt: string;
  finishedAt: string | null;
}

/** A row as `GET /api/bulk/{id}/rows` shows it. */
export interface BulkRowView {
  row: number;
  status: BulkRowStatus;
  envelopeId?: string;
  error?: BulkRowError;
}

/** The view of a job. */
export function toBulkJobView(record: BulkJobRecord): BulkJobView {
  return {
    id: record.id,
    templateId: record.templateId,
    status: record.status,
    total: record.total,
    created: record.created,
    failed: record.failed,
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
  };
}

/** The view of a row: a claimed row not yet finished is still `pending`. */
export function toBulkRowView(record: BulkRowRecord): BulkRowView {
  return {
    row: record.row,
    status: record.status === 'running' ? 'pending' : record.status,
    ...(record.envelopeId === null || record.status !== 'created' ? {} : { envelopeId: record.envelopeId }),
    ...(record.error === null ? {} : { error: record.error }),
  };
}
