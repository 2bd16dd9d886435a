/**
 * Envelopes and their audit trails, table `envelopes`. All rows of one owner share PartitionKey =
 * ownerId, so that:
 * - reading an envelope is a point read on (ownerId from the token, id): another owner's envelope is
 *   simply not found (CONTRACT §3);
 * - the envelope, its status-index row and its audit event change in one entity-group transaction:
 *   a failed request leaves no event, a successful one exactly one (CONTRACT §10);
 * - a page of the owner's list is one range query whose cost does not grow with their total (CONTRACT §7).
 *
 * RowKeys:
 * - `envelope_<inverted id>`: the envelope. UUIDv7 ids sort by creation time; each hex digit is
 *   inverted (`f - d`) so that ascending RowKey order is newest first.
 * - `status_<status>_<inverted id>`: a copy of the envelope for listing by status.
 * - `event_<id>_<sequence, 10 digits>`: audit events, oldest first.
 */
import { odata, type TableClient, type TableEntityResult, type TransactionAction } from '@azure/data-tables';
import { AppError } from '../errors.js';
import type { AuditEvent, EnvelopeRecord, EnvelopeStatus, Signer } from '../envelopes/model.js';
import { storageStatus } from './keys.js';
import { readLongText, writeLongText } from './longText.js';

/** Thrown by {@link EnvelopeRepository.replace} when the envelope changed since it was read. */
export class EnvelopeChangedError extends Error {
  constructor() {
    super('The envelope changed since it was read');
    this.name = 'EnvelopeChangedError';
  }
}

export interface StoredEnvelope {
  record: EnvelopeRecord;
  /** Table Storage ETag of the envelope row, for the conditional replace. */
  etag: string;
}

export interface ListEnvelopesQuery {
  status?: EnvelopeStatus;
  /** 1 to 1000. */
  limit: number;
  /** Opaque cursor from a previous page. */
  cursor?: string;
}

export interface EnvelopePage {
  records: EnvelopeRecord[];
  /** Cursor for the next page, when there is one. */
  nextCursor: string | undefined;
}

/**
 * Largest string property Table Storage accepts is 64 KiB (32K UTF-16 units); signer lists and large
 * audit details (100 signers replaced by 100 others) are split below that.
 */
const CHUNK_CHARS = 30_000;

type EnvelopeEntity = Record<string, unknown> & { partitionKey: string; rowKey: string };

export class EnvelopeRepository {
  constructor(private readonly table: TableClient) {}

  /** Inserts a new envelope with its first audit event. */
  async create(record: EnvelopeRecord, event: AuditEvent): Promise<void> {
    const envelope = toEntity(record, envelopeRowKey(record.id));
    await this.table.submitTransaction([
      ['create', envelope],
      ['create', { ...envelope, rowKey: statusRowKey(record.status, record.id) }],
      ['create', eventEntity(record, event)],
    ]);
  }

  /** The owner's envelope, or `null` when it does not exist or belongs to someone else. */
  async read(ownerId: string, id: string): Promise<StoredEnvelope | null> {
    try {
      const entity = await this.table.getEntity<EnvelopeEntity>(ownerId, envelopeRowKey(id));
      return { record: fromEntity(entity), etag: entity.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Replaces `previous` with `next` and appends `events` (one per change the request made),
   * atomically, only if the envelope is still as read.
   * @throws EnvelopeChangedError when it changed in between
   */
  async replace(previous: StoredEnvelope, next: EnvelopeRecord, events: AuditEvent[]): Promise<void> {
    const envelope = toEntity(next, envelopeRowKey(next.id));
    const actions: TransactionAction[] = [['update', envelope, 'Replace', { etag: previous.etag }]];
    if (previous.record.status === next.status) {
      actions.push(['upsert', { ...envelope, rowKey: statusRowKey(next.status, next.id) }, 'Replace']);
    } else {
      actions.push(['delete', { partitionKey: next.ownerId, rowKey: statusRowKey(previous.record.status, next.id) }]);
      actions.push(['create', { ...envelope, rowKey: statusRowKey(next.status, next.id) }]);
    }
    for (const event of events) actions.push(['create', eventEntity(next, event)]);
    try {
      await this.table.submitTransaction(actions);
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 409) throw new EnvelopeChangedError();
      throw error;
    }
  }

  /**
   * One page of the owner's envelopes, newest first.
   * @throws AppError 400 for a cursor this service did not issue for the same status filter
   */
  async list(ownerId: string, query: ListEnvelopesQuery): Promise<EnvelopePage> {
    const prefix = query.status === undefined ? 'envelope_' : `status_${query.status}_`;
    let from = prefix;
    if (query.cursor !== undefined) {
      const after = decodeCursor(query.cursor);
      if (after === null || !after.startsWith(prefix)) {
        throw new AppError('bad_request', 'The cursor is invalid for this query; start again without it.', { type: 'invalid-cursor' });
      }
      from = after;
    }
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${from} and RowKey lt ${`${prefix}~`}`;
    const rows: TableEntityResult<EnvelopeEntity>[] = [];
    // Ask for one more than the page holds: its presence says whether a next page exists.
    const pages = this.table.listEntities<EnvelopeEntity>({ queryOptions: { filter } }).byPage({ maxPageSize: query.limit + 1 });
    outer: for await (const page of pages) {
      for (const entity of page) {
        rows.push(entity);
        if (rows.length > query.limit) break outer;
      }
    }
    if (rows.length <= query.limit) return { records: rows.map(fromEntity), nextCursor: undefined };
    const pageRows = rows.slice(0, query.limit);
    return { records: pageRows.map(fromEntity), nextCursor: encodeCursor(pageRows.at(-1)!.rowKey) };
  }

  /** The envelope's audit events, oldest first. */
  async events(ownerId: string, id: string): Promise<AuditEvent[]> {
    const prefix = `event_${id}_`;
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${prefix} and RowKey lt ${`${prefix}~`}`;
    const events: AuditEvent[] = [];
    for await (const entity of this.table.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
      events.push({
        sequence: Number(entity.sequence),
        type: entity.type as AuditEvent['type'],
        at: String(entity.at),
        actorId: (entity.actorId as string | undefined) ?? null,
        ip: (entity.ip as string | undefined) ?? null,
        userAgent: (entity.userAgent as string | undefined) ?? null,
        details: JSON.parse(readLongText(entity, 'details')) as Record<string, unknown>,
      });
    }
    return events;
  }
}

/** Inverts each hex digit so that newer UUIDv7s sort first. */
function invertId(id: string): string {
  return id.replace(/[0-9a-f]/g, (digit) => (15 - Number.parseInt(digit, 16)).toString(16));
}

function envelopeRowKey(id: string): string {
  return `envelope_${invertId(id)}`;
}

function statusRowKey(status: EnvelopeStatus, id: string): string {
  return `status_${status}_${invertId(id)}`;
}

function encodeCursor(rowKey: string): string {
  return Buffer.from(rowKey, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const rowKey = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^(envelope|status_[a-z]+)_[0-9a-f-]{36}$/.test(rowKey) ? rowKey : null;
}

function toEntity(record: EnvelopeRecord, rowKey: string): EnvelopeEntity {
  const entity: EnvelopeEntity = {
    partitionKey: record.ownerId,
    rowKey,
    id: record.id,
    ownerId: record.ownerId,
    status: record.status,
    documentName: record.documentName,
    blobName: record.blobName,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    version: record.version,
    auditSequence: record.auditSequence,
  };
  writeLongText(entity, 'signers', JSON.stringify(record.signers));
  if (record.completedAt !== null) entity.completedAt = record.completedAt;
  if (record.hash !== null) entity.hash = record.hash;
  if (record.originalSha256 !== null) entity.originalSha256 = record.originalSha256;
  return entity;
}

function fromEntity(entity: TableEntityResult<EnvelopeEntity>): EnvelopeRecord {
  const signersJson = readLongText(entity, 'signers');
  return {
    id: String(entity.id),
    ownerId: String(entity.ownerId),
    status: entity.status as EnvelopeStatus,
    documentName: String(entity.documentName),
    blobName: String(entity.blobName),
    signers: JSON.parse(signersJson) as Signer[],
    createdAt: String(entity.createdAt),
    updatedAt: String(entity.updatedAt),
    completedAt: (entity.completedAt as string | undefined) ?? null,
    hash: (entity.hash as string | undefined) ?? null,
    originalSha256: (entity.originalSha256 as string | undefined) ?? null,
    version: Number(entity.version),
    auditSequence: Number(entity.auditSequence),
  };
}

function eventEntity(record: EnvelopeRecord, event: AuditEvent): EnvelopeEntity {
  const entity: EnvelopeEntity = {
    partitionKey: record.ownerId,
    rowKey: `event_${record.id}_${String(event.sequence).padStart(10, '0')}`,
    envelopeId: record.id,
    sequence: event.sequence,
    type: event.type,
    at: event.at,
  };
  writeLongText(entity, 'details', JSON.stringify(event.details));
  if (event.actorId !== null) entity.actorId = event.actorId;
  if (event.ip !== null) entity.ip = event.ip;
  if (event.userAgent !== null) entity.userAgent = event.userAgent.slice(0, 1024);
  return entity;
}

