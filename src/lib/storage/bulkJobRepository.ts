/**
 * Bulk jobs (docs/api.md#bulk-send), table `bulkJobs` (the operations are in `src/lib/bulk`):
 *
 * - a job is one row in its organisation's partition, PartitionKey `jobs_<organizationId>`, RowKey
 *   `job_<inverted id>` (as envelopes: ascending RowKey order is newest first), so the organisation's
 *   list is one range query and another organisation's id is never found;
 * - its rows are in a partition of their own, PartitionKey `rows_<jobId>`, RowKey `row_<number>`
 *   (7 digits: ascending RowKey order is row order), written before the job in entity-group
 *   transactions of 100, one range query to read back.
 *
 * The job row changes its status only conditionally on its ETag (a cancel and a runner never both
 * win); the counts and the runner's heartbeat are merged without a condition, as only the runner that
 * holds the job writes them. A row is claimed conditionally on its ETag, so two runners never make
 * the same row's envelope.
 */
import { odata, type TableClient, type TableEntityResult, type TransactionAction } from '@azure/data-tables';
import { forEachConcurrently } from '../concurrency.js';
import { LostRaceError } from '../retryOnConflict.js';
import { invertId } from './envelopeRepository.js';
import { storageStatus } from './keys.js';
import { readLongText, writeLongText } from './longText.js';
import type { UseTemplateRequest } from '../templates/schemas.js';
import type { BulkJobActor, BulkJobRecord, BulkJobStatus, BulkRowError, BulkRowRecord, StoredRowStatus } from '../bulk/model.js';

type Entity = Record<string, unknown> & { partitionKey: string; rowKey: string };

/** A job as read, with the ETag its status changes are conditional on. */
export interface StoredBulkJob {
  record: BulkJobRecord;
  etag: string;
}

/** A row as read, with the ETag its claim is conditional on. */
export interface StoredBulkRow {
  record: BulkRowRecord;
  etag: string;
}

/** Entities of one entity-group transaction at most (Table Storage). */
const MAX_TRANSACTION_ACTIONS = 100;

const jobPartition = (organizationId: string): string => `jobs_${organizationId}`;
const jobRowKey = (id: string): string => `job_${invertId(id)}`;
const rowPartition = (jobId: string): string => `rows_${jobId}`;
/** RowKey of row `row` (1-based). */
export const bulkRowKey = (row: number): string => `row_${String(row).padStart(7, '0')}`;

export class BulkJobRepository {
  constructor(private readonly table: TableClient) {}

  /**
   * Writes a job's rows (before the job: a job never names rows that are not there), 100 to a
   * transaction. Upserts: a resumed request writes the same rows again.
   */
  async putRows(jobId: string, rows: readonly BulkRowRecord[]): Promise<void> {
    const batches: BulkRowRecord[][] = [];
    for (let start = 0; start < rows.length; start += MAX_TRANSACTION_ACTIONS) batches.push(rows.slice(start, start + MAX_TRANSACTION_ACTIONS));
    await forEachConcurrently(batches, 4, async (batch) => {
      await this.table.submitTransaction(batch.map((row): TransactionAction => ['upsert', rowEntity(jobId, row), 'Replace']));
    });
  }

  /** Creates the job's row. @returns `false` when it exists already (a resumed request made it) */
  async create(record: BulkJobRecord): Promise<boolean> {
    try {
      await this.table.createEntity(jobEntity(record));
      return true;
    } catch (error) {
      if (storageStatus(error) === 409) return false;
      throw error;
    }
  }

  /** The organisation's job, or `null` (another organisation's, or none). */
  async read(organizationId: string, id: string): Promise<StoredBulkJob | null> {
    try {
      const entity = await this.table.getEntity<Entity>(jobPartition(organizationId), jobRowKey(id));
      return { record: jobFromEntity(entity), etag: entity.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Replaces the job with `next` if it is still as read.
   * @throws LostRaceError when it changed in between (read again, `retryOnConflict`)
   */
  async replace(previous: StoredBulkJob, next: BulkJobRecord): Promise<StoredBulkJob> {
    try {
      const answer = await this.table.updateEntity(jobEntity(next), 'Replace', { etag: previous.etag });
      return { record: next, etag: answer.etag ?? previous.etag };
    } catch (error) {
      if (storageStatus(error) === 412) throw new LostRaceError('The bulk job');
      throw error;
    }
  }

  /** Writes the runner's counts and heartbeat (only the runner that holds the job writes them). */
  async mergeProgress(organizationId: string, id: string, progress: { created: number; failed: number; heartbeatAt: string }): Promise<void> {
    await this.table.updateEntity({ partitionKey: jobPartition(organizationId), rowKey: jobRowKey(id), ...progress }, 'Merge');
  }

  /** Marks the job settled: its end and its `bulk.completed` event are written; no message changes it again. */
  async markSettled(organizationId: string, id: string, settledAt: string): Promise<void> {
    await this.table.updateEntity({ partitionKey: jobPartition(organizationId), rowKey: jobRowKey(id), settledAt }, 'Merge');
  }

  /**
   * A page of the organisation's jobs, newest first.
   * @param createdBy only the jobs this member made (a sender's list)
   * @param after the RowKey the previous page ended with
   */
  async list(organizationId: string, { createdBy, limit, after }: { createdBy?: string; limit: number; after?: string }): Promise<{ records: BulkJobRecord[]; nextRowKey: string | undefined }> {
    const filters = [odata`PartitionKey eq ${jobPartition(organizationId)}`, after === undefined ? odata`RowKey ge 'job_'` : odata`RowKey gt ${after}`, odata`RowKey lt 'job_~'`];
    if (createdBy !== undefined) filters.push(odata`ownerId eq ${createdBy}`);
    const records: BulkJobRecord[] = [];
    let lastRowKey: string | undefined;
    for await (const page of this.table.listEntities<Entity>({ queryOptions: { filter: filters.join(' and ') } }).byPage({ maxPageSize: Math.min(limit + 1, 1000) })) {
      for (const entity of page) {
        if (records.length === limit) return { records, nextRowKey: lastRowKey };
        records.push(jobFromEntity(entity));
        lastRowKey = entity.rowKey;
      }
    }
    return { records, nextRowKey: undefined };
  }

  /** Every row of a job, in row order. */
  async rows(jobId: string): Promise<StoredBulkRow[]> {
    const rows: StoredBulkRow[] = [];
    for await (const entity of this.table.listEntities<Entity>({ queryOptions: { filter: odata`PartitionKey eq ${rowPartition(jobId)}` } })) {
      rows.push({ record: rowFromEntity(entity), etag: entity.etag });
    }
    return rows;
  }

  /** Rows `from` to `from + limit - 1` of a job (fewer at its end), in row order. */
  async rowPage(jobId: string, from: number, limit: number): Promise<BulkRowRecord[]> {
    const filter = odata`PartitionKey eq ${rowPartition(jobId)} and RowKey ge ${bulkRowKey(from)} and RowKey lt ${bulkRowKey(from + limit)}`;
    const rows: BulkRowRecord[] = [];
    for await (const entity of this.table.listEntities<Entity>({ queryOptions: { filter } })) rows.push(rowFromEntity(entity));
    return rows;
  }

  /**
   * Claims a row for the runner (status `running`) if it is still as read.
   * @returns the claimed row's ETag, or `null` when another runner changed it first
   */
  async claimRow(jobId: string, row: StoredBulkRow): Promise<string | null> {
    try {
      const answer = await this.table.updateEntity({ partitionKey: rowPartition(jobId), rowKey: bulkRowKey(row.record.row), status: 'running' satisfies StoredRowStatus }, 'Merge', { etag: row.etag });
      return answer.etag ?? row.etag;
    } catch (error) {
      if (storageStatus(error) === 412) return null;
      throw error;
    }
  }

  /** Records a row's outcome. */
  async finishRow(jobId: string, row: number, outcome: { status: 'created'; envelopeId: string } | { status: 'failed'; error: BulkRowError }): Promise<void> {
    const entity: Entity = { partitionKey: rowPartition(jobId), rowKey: bulkRowKey(row), status: outcome.status };
    if (outcome.status === 'created') entity.envelopeId = outcome.envelopeId;
    else entity.error = JSON.stringify(outcome.error);
    await this.table.updateEntity(entity, 'Merge');
  }
}

function jobEntity(record: BulkJobRecord): Entity {
  const entity: Entity = {
    partitionKey: jobPartition(record.organizationId),
    rowKey: jobRowKey(record.id),
    id: record.id,
    organizationId: record.organizationId,
    // The member who made it: a sender's list filters on it.
    ownerId: record.actor.userId,
    templateId: record.templateId,
    status: record.status,
    total: record.total,
    created: record.created,
    failed: record.failed,
    send: record.send,
    actor: JSON.stringify(record.actor),
    createdAt: record.createdAt,
    runs: record.runs,
  };
  for (const name of ['startedAt', 'finishedAt', 'settledAt', 'runId', 'heartbeatAt'] as const) {
    const value = record[name];
    if (value !== null) entity[name] = value;
  }
  return entity;
}

function jobFromEntity(entity: TableEntityResult<Entity>): BulkJobRecord {
  const text = (name: string): string | null => (typeof entity[name] === 'string' ? (entity[name] as string) : null);
  return {
    id: String(entity.id),
    organizationId: String(entity.organizationId),
    templateId: String(entity.templateId),
    status: entity.status as BulkJobStatus,
    total: Number(entity.total),
    created: Number(entity.created ?? 0),
    failed: Number(entity.failed ?? 0),
    send: entity.send !== false,
    actor: JSON.parse(String(entity.actor)) as BulkJobActor,
    createdAt: String(entity.createdAt),
    startedAt: text('startedAt'),
    finishedAt: text('finishedAt'),
    settledAt: text('settledAt'),
    runId: text('runId'),
    heartbeatAt: text('heartbeatAt'),
    runs: Number(entity.runs ?? 0),
  };
}

function rowEntity(jobId: string, record: BulkRowRecord): Entity {
  const entity: Entity = { partitionKey: rowPartition(jobId), rowKey: bulkRowKey(record.row), row: record.row, status: record.status };
  writeLongText(entity, 'request', JSON.stringify(record.request));
  if (record.metadata !== null) entity.metadata = JSON.stringify(record.metadata);
  if (record.envelopeId !== null) entity.envelopeId = record.envelopeId;
  if (record.error !== null) entity.error = JSON.stringify(record.error);
  return entity;
}

function rowFromEntity(entity: TableEntityResult<Entity>): BulkRowRecord {
  return {
    row: Number(entity.row),
    status: entity.status as StoredRowStatus,
    request: JSON.parse(readLongText(entity, 'request')) as UseTemplateRequest,
    metadata: typeof entity.metadata === 'string' ? (JSON.parse(entity.metadata) as Record<string, string>) : null,
    envelopeId: typeof entity.envelopeId === 'string' ? entity.envelopeId : null,
    error: typeof entity.error === 'string' ? (JSON.parse(entity.error) as BulkRowError) : null,
  };
}
