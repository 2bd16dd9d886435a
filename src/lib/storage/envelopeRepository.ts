/**
 * Envelopes, their audit trails and their recipients' actions, table `envelopes`. All rows of one
 * owner share PartitionKey = ownerId, so that:
 * - reading an envelope is a point read on (ownerId from the token, id): another owner's envelope is
 *   simply not found (docs/api.md#the-envelope);
 * - the envelope, its status-index row, the audit events of the change, a recipient's action row and
 *   the change's outbox batch are written in one entity-group transaction: a failed request leaves
 *   nothing, a successful one all of it (docs/api.md#evidence, docs/api.md#e-mail);
 * - a page of the owner's list is one range query whose cost does not grow with their total (docs/api.md#list-envelopes).
 *
 * RowKeys:
 * - `envelope_<inverted id>`: the envelope. UUIDv7 ids sort by creation time; each hex digit is
 *   inverted (`f - d`) so that ascending RowKey order is newest first.
 * - `status_<status>_<inverted id>`: a copy of the envelope for listing by status.
 * - `event_<id>_<sequence, 10 digits>`: the audit events of one change, oldest first, numbered from
 *   the row's sequence on. One change writes one row (or a few, when its events are large: a send
 *   to 100 recipients records 101 events), so a transaction stays within Table Storage's 100
 *   entities whatever the number of recipients. Rows of older versions hold one event each.
 * - `action_<id>_<recipientId>`: what a recipient did (signed, approved, viewed, declined), when, from
 *   which IP and user agent, with a signer's values and adopted signature (deflated, binary parts).
 * - `outbox_<batchId>`: outbox batches (`notifications/outboxRepository.ts`).
 * - `idempotency_<key>`: idempotency keys' claims and kept answers (`idempotencyKeyRepository.ts`);
 *   {@link EnvelopeRepository.create} inserts the request's claim with the envelope when one waits
 *   (`idempotentClaim.ts`).
 *
 * A draft being deleted (docs/api.md#delete-an-envelope-or-purge-its-documents) keeps, until its documents and audit rows are gone, a
 * tombstone in place of its envelope row (`deletedAt` set; no status row): {@link EnvelopeRepository.read}
 * and {@link EnvelopeRepository.list} pass over it, and a retry after a crash finds what is left to delete.
 *
 * An envelope that moved to another owner (its owner removed from the organisation,
 * docs/api.md#removing-a-member) leaves a forwarding row in place of its envelope row (`movedTo` set;
 * no status row): {@link EnvelopeRepository.read} follows it to the new owner's partition and
 * {@link EnvelopeRepository.list} passes over it.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { odata, type TableClient, type TableEntityResult, type TransactionAction } from '@azure/data-tables';
import { forEachConcurrently } from '../concurrency.js';
import { DEFAULT_LOCALE, isSupportedLocale } from '../i18n/locales.js';
import type { AuditEvent, EnvelopeDocument, EnvelopeRecord, EnvelopeStatus, Field, RecipientAction, Signer, SigningOrder } from '../envelopes/model.js';
import { claimRowFor, pendingClaimFor } from './idempotentClaim.js';
import { storageStatus } from './keys.js';
import { readLongText, writeLongText } from './longText.js';
import { problem } from '../problems.js';

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
 * Most characters of audit-event JSON in one event row: well below the 1 MiB an entity holds (strings
 * count two bytes a character), so a change's events take one row, or a few when they are large.
 */
const EVENT_ROW_CHARS = 150_000;
/** Largest binary property, bytes (Table Storage allows 64 KiB). */
const BINARY_PART_BYTES = 60_000;
/** Most deflated bytes of one recipient's values: the rest of the 1 MiB entity holds the other properties. */
export const MAX_ACTION_BYTES = 900_000;

type EnvelopeEntity = Record<string, unknown> & { partitionKey: string; rowKey: string };

export class EnvelopeRepository {
  constructor(private readonly table: TableClient) {}

  /**
   * Inserts a new envelope with its first audit event; with the request's idempotency-key claim in
   * the same transaction when one is waiting for the owner's partition (`idempotentClaim.ts`).
   * @throws AppError 409 `idempotency-key-in-use` when that claim's row exists already (nothing written)
   */
  async create(record: EnvelopeRecord, event: AuditEvent): Promise<void> {
    const claim = pendingClaimFor(record.ownerId);
    if (claim === undefined) {
      await this.table.submitTransaction(creationActions(record, event));
      return;
    }
    try {
      const row = claimRowFor(claim);
      const result = await this.table.submitTransaction([...creationActions(record, event), ['create', row]]);
      claim.state = 'committed';
      claim.etag = result.subResponses.find((response) => response.rowKey === row.rowKey)?.etag ?? result.subResponses.at(-1)?.etag;
    } catch (error) {
      // The envelope's id is new: a conflict in this transaction is the key's row, held by another request.
      if (storageStatus(error) !== 409) throw error;
      claim.state = 'taken';
      throw problem('idempotencyKeyInUse');
    }
  }

  /**
   * Inserts many new envelopes, each with its first audit event: the rows {@link create} writes,
   * grouped by owner into entity-group transactions of at most 100 operations (whole envelopes only),
   * `concurrency` transactions in flight. For bulk loads (the benchmark's seeding): each envelope is
   * written whole or not at all, but a failure leaves the transactions that committed.
   * @param items envelopes and their creation events, any owners
   * @param options `concurrency`: transactions in flight, default 4
   * @throws the first storage error (409 when an envelope already exists)
   */
  async createMany(items: readonly { record: EnvelopeRecord; event: AuditEvent }[], options: { concurrency?: number } = {}): Promise<void> {
    const batches: TransactionAction[][] = [];
    const open = new Map<string, TransactionAction[]>();
    for (const { record, event } of items) {
      const actions = creationActions(record, event);
      let batch = open.get(record.ownerId);
      if (batch === undefined || batch.length + actions.length > MAX_TRANSACTION_ACTIONS) {
        batch = [];
        batches.push(batch);
        open.set(record.ownerId, batch);
      }
      batch.push(...actions);
    }
    await forEachConcurrently(batches, options.concurrency ?? 4, async (batch) => {
      await this.table.submitTransaction(batch);
    });
  }

  /**
   * The owner's envelope, or `null` when it does not exist, is being deleted, or belongs to someone else.
   * An envelope that moved to another owner (a forwarding row, {@link forward}) is read where it went,
   * following at most {@link MAX_FORWARDS} moves, so that whatever still names its former owner (a
   * signing link, a due entry, another instance's memory of the organisation's index, a queued outbox
   * message) still reaches it; a move whose new rows were not written yet is completed here first
   * ({@link materialize}). The record names its owner as it is now (`record.ownerId`): writes go there.
   */
  async read(ownerId: string, id: string): Promise<StoredEnvelope | null> {
    let partition = ownerId;
    for (let hop = 0; hop <= MAX_FORWARDS; hop++) {
      const entity = await this.row(partition, id);
      if (entity === null || entity.deletedAt !== undefined) return null;
      if (typeof entity.movedTo !== 'string') return { record: fromEntity(entity), etag: entity.etag };
      await this.materialize(partition, id, entity);
      partition = entity.movedTo;
    }
    return null;
  }

  /** The envelope row as stored in `ownerId`'s partition (a forwarding row included), or `null`. */
  private async row(ownerId: string, id: string): Promise<TableEntityResult<EnvelopeEntity> | null> {
    try {
      return await this.table.getEntity<EnvelopeEntity>(ownerId, envelopeRowKey(id));
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Where the envelope row in `ownerId`'s partition stands, for a move to another owner
   * (docs/api.md#removing-a-member): `here` (with the envelope as stored), `moved` (a forwarding row
   * names the new owner), or `missing` (no envelope, or a draft being deleted).
   */
  async placeOf(ownerId: string, id: string): Promise<{ state: 'here'; stored: StoredEnvelope } | { state: 'moved'; to: string } | { state: 'missing' }> {
    const entity = await this.row(ownerId, id);
    if (entity === null || entity.deletedAt !== undefined) return { state: 'missing' };
    if (typeof entity.movedTo === 'string') return { state: 'moved', to: entity.movedTo };
    return { state: 'here', stored: { record: fromEntity(entity), etag: entity.etag } };
  }

  /**
   * The ids of the envelopes that began moving away from `ownerId`'s partition ({@link forward}) and
   * whose move is not finished ({@link finishMove}): what a resumed removal must finish, which
   * {@link list} no longer shows.
   */
  async unfinishedMoves(ownerId: string): Promise<string[]> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${'envelope_'} and RowKey lt ${'envelope_~'}`;
    const ids: string[] = [];
    for await (const entity of this.table.listEntities<EnvelopeEntity>({ queryOptions: { filter, select: ['id', 'movedTo', 'movedEvent', 'movedEventParts'] } })) {
      if (typeof entity.movedTo === 'string' && (entity.movedEvent !== undefined || entity.movedEventParts !== undefined)) ids.push(String(entity.id));
    }
    return ids;
  }

  /**
   * Copies the envelope's audit event rows and recipients' action rows from partition `from` to
   * partition `to`, as they are (upserts: copying again writes the same rows). The first step of a
   * move ({@link forward}), before anything names the new owner.
   */
  async copyTrail(from: string, to: string, id: string): Promise<void> {
    for (const prefix of [`event_${id}_`, `action_${id}_`]) {
      let batch: TransactionAction[] = [];
      const filter = odata`PartitionKey eq ${from} and RowKey gt ${prefix} and RowKey lt ${`${prefix}~`}`;
      for await (const entity of this.table.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
        const { etag: _etag, timestamp: _timestamp, ...rest } = entity;
        batch.push(['upsert', { ...rest, partitionKey: to, rowKey: entity.rowKey! }, 'Replace']);
        if (batch.length === MAX_TRANSACTION_ACTIONS) {
          await this.table.submitTransaction(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await this.table.submitTransaction(batch);
    }
  }

  /**
   * The moment an envelope changes owner: in one entity-group transaction of the old owner's
   * partition, conditional on the envelope row's ETag, replaces the envelope row with a forwarding row
   * (`movedTo`: the new owner) that carries the envelope as it will be (`next`, naming the new owner)
   * and the event that records the move, and deletes the status row. From then on every read of the
   * old partition goes to the new one ({@link read}), and the old owner's list no longer shows it.
   * Before: {@link copyTrail}; after: {@link materialize}, then {@link finishMove}.
   * @throws EnvelopeChangedError when the envelope changed (or went) since it was read
   */
  async forward(stored: StoredEnvelope, next: EnvelopeRecord, event: AuditEvent): Promise<void> {
    const from = stored.record.ownerId;
    const forwarding: EnvelopeEntity = { ...toEntity(next, envelopeRowKey(next.id)), partitionKey: from, movedTo: next.ownerId };
    writeLongText(forwarding, 'movedEvent', JSON.stringify(event));
    try {
      await this.table.submitTransaction([
        ['update', forwarding, 'Replace', { etag: stored.etag }],
        ['delete', { partitionKey: from, rowKey: statusRowKey(stored.record.status, stored.record.id) }],
      ]);
    } catch (error) {
      const status = storageStatus(error);
      if (status === 404 || status === 409 || status === 412) throw new EnvelopeChangedError();
      throw error;
    }
  }

  /**
   * Writes the new owner's rows of a move that {@link forward} recorded in `from`'s partition: the
   * envelope, its status row and the event of the move, in one transaction, only if the envelope row
   * is not there yet (a second writer, or a later call, finds it and does nothing). Any reader may do
   * it ({@link read}), so an envelope is never without a readable owner, whenever a process dies.
   * @param forwarding the forwarding row, when already read
   */
  async materialize(from: string, id: string, forwarding?: EnvelopeEntity): Promise<void> {
    const entity = forwarding ?? (await this.row(from, id));
    if (entity === null || typeof entity.movedTo !== 'string' || (entity.movedEvent === undefined && entity.movedEventParts === undefined)) return;
    const record = { ...fromEntity(entity as TableEntityResult<EnvelopeEntity>), ownerId: entity.movedTo };
    const event = JSON.parse(readLongText(entity, 'movedEvent')) as AuditEvent;
    const envelope = toEntity(record, envelopeRowKey(id));
    try {
      await this.table.submitTransaction([
        ['create', envelope],
        ['create', { ...envelope, rowKey: statusRowKey(record.status, id) }],
        ...eventEntities(record, [event]).map((row): TransactionAction => ['upsert', row, 'Replace']),
      ]);
    } catch (error) {
      // 409: the envelope row is there already (materialized before, perhaps changed since).
      if (storageStatus(error) !== 409) throw error;
    }
  }

  /**
   * The end of a move: deletes the old owner's copies of the envelope's event and action rows, then
   * slims its forwarding row to `{id, movedTo}` (it stays, so that what still names the old owner
   * reaches the envelope). Idempotent. Call only once {@link materialize} is done.
   */
  async finishMove(from: string, id: string): Promise<void> {
    const entity = await this.row(from, id);
    if (entity === null || typeof entity.movedTo !== 'string') return;
    await this.deleteTrail(from, id);
    if (entity.movedEvent === undefined && entity.movedEventParts === undefined) return;
    const slim: EnvelopeEntity = { partitionKey: from, rowKey: envelopeRowKey(id), id, ownerId: entity.movedTo, movedTo: entity.movedTo };
    try {
      await this.table.updateEntity(slim, 'Replace', { etag: entity.etag });
    } catch (error) {
      // Slimmed by another call meanwhile.
      if (storageStatus(error) !== 412 && storageStatus(error) !== 404) throw error;
    }
  }

  /**
   * Replaces `previous` with `next` and appends `events` (those of the request's changes, in order),
   * with `extra` rows (a recipient's action row, the change's outbox batch) in the same entity-group
   * transaction, only if the envelope is still as read.
   * @throws EnvelopeChangedError when it changed in between, or was deleted
   */
  async replace(previous: StoredEnvelope, next: EnvelopeRecord, events: AuditEvent[], extra: TransactionAction[] = []): Promise<void> {
    const envelope = toEntity(next, envelopeRowKey(next.id));
    const actions: TransactionAction[] = [['update', envelope, 'Replace', { etag: previous.etag }]];
    if (previous.record.status === next.status) {
      actions.push(['upsert', { ...envelope, rowKey: statusRowKey(next.status, next.id) }, 'Replace']);
    } else {
      actions.push(['delete', { partitionKey: next.ownerId, rowKey: statusRowKey(previous.record.status, next.id) }]);
      actions.push(['create', { ...envelope, rowKey: statusRowKey(next.status, next.id) }]);
    }
    for (const entity of eventEntities(next, events)) actions.push(['create', entity]);
    actions.push(...extra);
    try {
      await this.table.submitTransaction(actions);
    } catch (error) {
      const status = storageStatus(error);
      // 404: the envelope was deleted since it was read (a draft, docs/api.md#delete-an-envelope-or-purge-its-documents); a retry reads it as missing.
      if (status === 412 || status === 409 || status === 404) throw new EnvelopeChangedError();
      throw error;
    }
  }

  /**
   * Fences off whoever else read the envelope as `stored`: changes the envelope row's ETag (a merge of
   * `sealFencedAt` alone, nothing of the record) only if it is still as read, and gives `stored` the
   * new ETag, so that this caller's own conditional replace still succeeds while every other holder
   * of the old ETag fails with {@link EnvelopeChangedError}. Completion uses it before taking over a
   * stale seal claim (`envelopes/complete.ts`): the claimer, should it still run, can no longer commit.
   * @throws EnvelopeChangedError when the envelope changed since `stored` was read
   */
  async fence(stored: StoredEnvelope, at: Date = new Date()): Promise<void> {
    try {
      const response = await this.table.updateEntity(
        { partitionKey: stored.record.ownerId, rowKey: envelopeRowKey(stored.record.id), sealFencedAt: at.toISOString() },
        'Merge',
        { etag: stored.etag },
      );
      stored.etag = response.etag!;
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 404) throw new EnvelopeChangedError();
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
        throw problem('invalidCursor');
      }
      from = after;
    }
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${from} and RowKey lt ${`${prefix}~`}`;
    const rows: TableEntityResult<EnvelopeEntity>[] = [];
    // Ask for one more than the page holds: its presence says whether a next page exists.
    const pages = this.table.listEntities<EnvelopeEntity>({ queryOptions: { filter } }).byPage({ maxPageSize: query.limit + 1 });
    outer: for await (const page of pages) {
      for (const entity of page) {
        // A draft being deleted (a tombstone), or an envelope that moved to another owner: not this owner's.
        if (entity.deletedAt !== undefined || entity.movedTo !== undefined) continue;
        rows.push(entity);
        if (rows.length > query.limit) break outer;
      }
    }
    if (rows.length <= query.limit) return { records: rows.map(fromEntity), nextCursor: undefined };
    const pageRows = rows.slice(0, query.limit);
    return { records: pageRows.map(fromEntity), nextCursor: encodeCursor(pageRows.at(-1)!.rowKey) };
  }

  /**
   * The owner's envelopes from `newestId` to `oldestId` (both included), newest first: one range query,
   * for a page of the organisation's envelopes (docs/api.md#list-envelopes, `scope=organization`).
   */
  async listBetween(ownerId: string, newestId: string, oldestId: string): Promise<EnvelopeRecord[]> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey ge ${envelopeRowKey(newestId)} and RowKey le ${envelopeRowKey(oldestId)}`;
    const records: EnvelopeRecord[] = [];
    for await (const entity of this.table.listEntities<EnvelopeEntity>({ queryOptions: { filter } })) {
      if (entity.deletedAt === undefined && entity.movedTo === undefined) records.push(fromEntity(entity));
    }
    return records;
  }

  /**
   * Removes a draft from view (docs/api.md#delete-an-envelope-or-purge-its-documents): in one entity-group transaction, conditional on the
   * envelope's ETag, replaces its envelope row with a tombstone (its id, blob name and `deletedAt`)
   * and deletes its status row. From then on {@link read} and {@link list} no longer find it, while
   * the tombstone tells {@link pendingDeletion} what is left to delete; {@link finishDeletion} removes
   * the rest, the tombstone last.
   * @throws EnvelopeChangedError when the envelope changed (or went) since it was read
   */
  async startDeletion(stored: StoredEnvelope, deletedAt: string): Promise<void> {
    const { record } = stored;
    const tombstone: EnvelopeEntity = { partitionKey: record.ownerId, rowKey: envelopeRowKey(record.id), id: record.id, ownerId: record.ownerId, blobName: record.blobName, deletedAt };
    const actions: TransactionAction[] = [
      ['update', tombstone, 'Replace', { etag: stored.etag }],
      ['delete', { partitionKey: record.ownerId, rowKey: statusRowKey(record.status, record.id) }],
    ];
    try {
      await this.table.submitTransaction(actions);
    } catch (error) {
      const status = storageStatus(error);
      if (status === 404 || status === 409 || status === 412) throw new EnvelopeChangedError();
      throw error;
    }
  }

  /** The blob name of a deletion {@link startDeletion} began and {@link finishDeletion} has not finished, or `null`. */
  async pendingDeletion(ownerId: string, id: string): Promise<{ blobName: string } | null> {
    try {
      const entity = await this.table.getEntity<EnvelopeEntity>(ownerId, envelopeRowKey(id));
      return entity.deletedAt === undefined ? null : { blobName: String(entity.blobName) };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Deletes what is left of a draft {@link startDeletion} removed from view: its audit event rows and
   * action rows (entity-group transactions of 100), then its tombstone. Idempotent: rows already gone
   * are not an error, so a retry after a crash finishes the work.
   */
  async finishDeletion(ownerId: string, id: string): Promise<void> {
    await this.deleteTrail(ownerId, id);
    await this.deleteRow(ownerId, envelopeRowKey(id));
  }

  /** Deletes the envelope's audit event rows and action rows in `ownerId`'s partition (transactions of 100); rows already gone are no error. */
  private async deleteTrail(ownerId: string, id: string): Promise<void> {
    const rowKeys: string[] = [];
    for (const prefix of [`event_${id}_`, `action_${id}_`]) {
      const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${prefix} and RowKey lt ${`${prefix}~`}`;
      for await (const entity of this.table.listEntities({ queryOptions: { filter, select: ['RowKey'] } })) rowKeys.push(entity.rowKey!);
    }
    for (let start = 0; start < rowKeys.length; start += MAX_TRANSACTION_ACTIONS) {
      const batch = rowKeys.slice(start, start + MAX_TRANSACTION_ACTIONS);
      try {
        await this.table.submitTransaction(batch.map((rowKey): TransactionAction => ['delete', { partitionKey: ownerId, rowKey }]));
      } catch (error) {
        // Another attempt deleted some of them first, and the transaction failed as a whole.
        if (storageStatus(error) !== 404) throw error;
        for (const rowKey of batch) await this.deleteRow(ownerId, rowKey);
      }
    }
  }

  private async deleteRow(partitionKey: string, rowKey: string): Promise<void> {
    try {
      await this.table.deleteEntity(partitionKey, rowKey);
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }

  /** The envelope's audit events, oldest first (event rows expanded). */
  async events(ownerId: string, id: string): Promise<AuditEvent[]> {
    return (await this.eventRows(ownerId, id)).flatMap((row) => row.events);
  }

  /**
   * The envelope's audit event rows, oldest first, each with its events and its ETag: what
   * {@link rewriteEventRows} needs to give events recorded before the chain their hashes
   * (docs/api.md#chained-audit-trail).
   */
  async eventRows(ownerId: string, id: string): Promise<EventRow[]> {
    const prefix = `event_${id}_`;
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${prefix} and RowKey lt ${`${prefix}~`}`;
    const rows: EventRow[] = [];
    for await (const entity of this.table.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) {
      rows.push({ rowKey: entity.rowKey!, etag: entity.etag, events: eventsOfRow(entity) });
    }
    return rows;
  }

  /**
   * Writes event rows again with the same events, now carrying their hashes
   * (docs/api.md#chained-audit-trail): each row replaced only if its ETag is still the one read, in
   * order, in entity-group transactions of at most 100 rows. A row of an older version (one event in
   * properties of its own) becomes a row of the current form, with the same RowKey.
   * @param rows the rows to write, oldest first, with the ETag they were read with
   * @throws EnvelopeChangedError when a row changed (another reader hashed it first) or went (the
   *   envelope was deleted) since it was read: the transaction that found it wrote nothing, earlier ones stand
   */
  async rewriteEventRows(ownerId: string, id: string, rows: readonly EventRow[]): Promise<void> {
    for (let start = 0; start < rows.length; start += MAX_TRANSACTION_ACTIONS) {
      const actions = rows.slice(start, start + MAX_TRANSACTION_ACTIONS).map((row): TransactionAction => {
        const entity: EnvelopeEntity = { partitionKey: ownerId, rowKey: row.rowKey, envelopeId: id, sequence: row.events[0]!.sequence, count: row.events.length };
        writeLongText(entity, 'events', JSON.stringify(row.events));
        return ['update', entity, 'Replace', { etag: row.etag }];
      });
      try {
        await this.table.submitTransaction(actions);
      } catch (error) {
        const status = storageStatus(error);
        if (status === 412 || status === 404) throw new EnvelopeChangedError();
        throw error;
      }
    }
  }

  /** The recipients' recorded actions of the envelope (one per recipient who acted). */
  async actions(ownerId: string, id: string): Promise<RecipientAction[]> {
    const prefix = `action_${id}_`;
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${prefix} and RowKey lt ${`${prefix}~`}`;
    const actions: RecipientAction[] = [];
    for await (const entity of this.table.listEntities<Record<string, unknown>>({ queryOptions: { filter } })) actions.push(actionFromEntity(entity));
    return actions;
  }
}

/** One row of audit events as stored (see the module comment), with its ETag. */
export interface EventRow {
  rowKey: string;
  etag: string;
  /** Its events, oldest first. */
  events: AuditEvent[];
}

/** The events of one event row, of the current form or of an older version's. */
function eventsOfRow(entity: Record<string, unknown>): AuditEvent[] {
  if (entity.events !== undefined || entity.eventsParts !== undefined) {
    // Events recorded before API keys existed have no `apiKeyId`: they were all made without one.
    return (JSON.parse(readLongText(entity, 'events')) as AuditEvent[]).map((event) => ({ ...event, apiKeyId: event.apiKeyId ?? null }));
  }
  // A row of an older version: one event in properties of its own.
  return [
    {
      sequence: Number(entity.sequence),
      type: entity.type as AuditEvent['type'],
      at: String(entity.at),
      actorId: (entity.actorId as string | undefined) ?? null,
      actorEmail: (entity.actorEmail as string | undefined) ?? null,
      ip: (entity.ip as string | undefined) ?? null,
      userAgent: (entity.userAgent as string | undefined) ?? null,
      apiKeyId: null,
      details: JSON.parse(readLongText(entity, 'details')) as Record<string, unknown>,
    },
  ];
}

/**
 * The transaction action that records a recipient's action (add it to the change's transaction).
 * @throws AppError 413 when the deflated values exceed {@link MAX_ACTION_BYTES}
 */
export function recipientActionRow(record: Pick<EnvelopeRecord, 'ownerId' | 'id'>, action: RecipientAction): TransactionAction {
  const entity: EnvelopeEntity = {
    partitionKey: record.ownerId,
    rowKey: `action_${record.id}_${action.recipientId}`,
    envelopeId: record.id,
    recipientId: action.recipientId,
    status: action.status,
    at: action.at,
  };
  if (action.ip !== null) entity.ip = action.ip;
  if (action.userAgent !== null) entity.userAgent = action.userAgent.slice(0, 1024);
  const packed = deflateRawSync(Buffer.from(JSON.stringify({ values: action.values, signature: action.signature }), 'utf8'));
  if (packed.byteLength > MAX_ACTION_BYTES) {
    throw problem('valuesTooLarge');
  }
  let parts = 0;
  for (let start = 0; start < packed.byteLength; start += BINARY_PART_BYTES, parts++) {
    entity[`data${parts}`] = new Uint8Array(packed.subarray(start, start + BINARY_PART_BYTES));
  }
  entity.dataParts = parts;
  return ['upsert', entity, 'Replace'];
}

function actionFromEntity(entity: Record<string, unknown>): RecipientAction {
  const chunks: Uint8Array[] = [];
  for (let index = 0; index < Number(entity.dataParts ?? 0); index++) chunks.push(entity[`data${index}`] as Uint8Array);
  const data = JSON.parse(inflateRawSync(Buffer.concat(chunks)).toString('utf8')) as Pick<RecipientAction, 'values' | 'signature'>;
  return {
    recipientId: String(entity.recipientId),
    status: entity.status as RecipientAction['status'],
    at: String(entity.at),
    ip: (entity.ip as string | undefined) ?? null,
    userAgent: (entity.userAgent as string | undefined) ?? null,
    values: data.values,
    signature: data.signature,
  };
}

/** Each lower-case hex digit d as f - d. */
const INVERTED_DIGITS = new Map([...'0123456789abcdef'].map((digit, value) => [digit, (15 - value).toString(16)]));

/** Inverts each hex digit (d becomes f - d; the dashes stay) so that newer UUIDv7s sort first. */
export function invertId(id: string): string {
  let inverted = '';
  for (const character of id) inverted += INVERTED_DIGITS.get(character) ?? character;
  return inverted;
}

/** Operations of one entity-group transaction at most (Table Storage). */
const MAX_TRANSACTION_ACTIONS = 100;
/** Most moves {@link EnvelopeRepository.read} follows from a forwarding row (an envelope moved again as its new owner was removed in turn). */
const MAX_FORWARDS = 8;

/** The rows of a new envelope: the envelope, its status-index copy and its first audit event. */
function creationActions(record: EnvelopeRecord, event: AuditEvent): TransactionAction[] {
  const envelope = toEntity(record, envelopeRowKey(record.id));
  return [
    ['create', envelope],
    ['create', { ...envelope, rowKey: statusRowKey(record.status, record.id) }],
    ...eventEntities(record, [event]).map((entity): TransactionAction => ['create', entity]),
  ];
}

function envelopeRowKey(id: string): string {
  return `envelope_${invertId(id)}`;
}

function statusRowKey(status: EnvelopeStatus, id: string): string {
  return `status_${status}_${invertId(id)}`;
}



/** An opaque list cursor for the RowKey a page ended with (base64url); templates use it too. */
export function encodeCursor(rowKey: string): string {
  return Buffer.from(rowKey, 'utf8').toString('base64url');
}

/** The RowKey an {@link encodeCursor} cursor names, or `null` when this service did not issue it. */
export function decodeCursor(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const rowKey = Buffer.from(cursor, 'base64url').toString('utf8');
  return /^(envelope|status_[a-z]+)_[0-9a-f-]{36}$/.test(rowKey) ? rowKey : null;
}

/** Optional scalar properties of the envelope row: absent when `null`. */
const NULLABLE_TEXT = ['organizationId', 'ownerEmail', 'ownerName', 'expiresAt', 'documentSha256', 'sentAt', 'completedAt', 'closedAt', 'completionDueAt', 'hash', 'originalSha256', 'purgedAt', 'templateId', 'voidedReason', 'auditHead', 'bulkJobId'] as const;

function toEntity(record: EnvelopeRecord, rowKey: string): EnvelopeEntity {
  const entity: EnvelopeEntity = {
    partitionKey: record.ownerId,
    rowKey,
    id: record.id,
    ownerId: record.ownerId,
    status: record.status,
    documentName: record.documentName,
    blobName: record.blobName,
    signingOrder: record.signingOrder,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    version: record.version,
    auditSequence: record.auditSequence,
  };
  writeLongText(entity, 'signers', JSON.stringify(record.signers));
  if (record.fields.length > 0) writeLongText(entity, 'fields', JSON.stringify(record.fields));
  // Several documents (docs/api.md#several-documents): absent on rows of envelopes that never had more than their first.
  if (record.documents !== undefined) writeLongText(entity, 'documents', JSON.stringify(record.documents));
  for (const name of NULLABLE_TEXT) {
    const value = record[name];
    if (value !== null && value !== undefined) entity[name] = value;
  }
  if (record.pageCount !== null) entity.pageCount = record.pageCount;
  if (record.remindEveryDays !== null) entity.remindEveryDays = record.remindEveryDays;
  if (record.locale !== undefined) entity.locale = record.locale;
  if (record.allowReassign === true) entity.allowReassign = true;
  if (record.output === 'combined') entity.output = 'combined';
  if (record.sealedHashes !== undefined) entity.sealedHashes = JSON.stringify(record.sealedHashes);
  if (record.metadata != null) entity.metadata = JSON.stringify(record.metadata);
  if (record.source !== undefined) entity.source = record.source;
  return entity;
}

function fromEntity(entity: TableEntityResult<EnvelopeEntity>): EnvelopeRecord {
  const text = (name: string): string | null => (entity[name] as string | undefined) ?? null;
  const hasFields = entity.fields !== undefined || entity.fieldsParts !== undefined;
  const hasDocuments = entity.documents !== undefined || entity.documentsParts !== undefined;
  return {
    id: String(entity.id),
    ownerId: String(entity.ownerId),
    organizationId: text('organizationId'),
    ownerEmail: text('ownerEmail'),
    ownerName: text('ownerName'),
    status: entity.status as EnvelopeStatus,
    documentName: String(entity.documentName),
    blobName: String(entity.blobName),
    signers: (JSON.parse(readLongText(entity, 'signers')) as Partial<Signer>[]).map(withSignerDefaults),
    fields: hasFields ? (JSON.parse(readLongText(entity, 'fields')) as Field[]) : [],
    signingOrder: ((entity.signingOrder as SigningOrder | undefined) ?? 'parallel'),
    expiresAt: text('expiresAt'),
    remindEveryDays: entity.remindEveryDays === undefined ? null : Number(entity.remindEveryDays),
    locale: isSupportedLocale(entity.locale) ? entity.locale : DEFAULT_LOCALE,
    documentSha256: text('documentSha256'),
    pageCount: entity.pageCount === undefined ? null : Number(entity.pageCount),
    createdAt: String(entity.createdAt),
    updatedAt: String(entity.updatedAt),
    sentAt: text('sentAt'),
    completedAt: text('completedAt'),
    closedAt: text('closedAt'),
    completionDueAt: text('completionDueAt'),
    hash: text('hash'),
    originalSha256: text('originalSha256'),
    purgedAt: text('purgedAt'),
    templateId: text('templateId'),
    version: Number(entity.version),
    auditSequence: Number(entity.auditSequence),
    ...(entity.allowReassign === true ? { allowReassign: true } : {}),
    ...(entity.output === 'combined' ? { output: 'combined' as const } : {}),
    ...(typeof entity.sealedHashes === 'string' ? { sealedHashes: JSON.parse(entity.sealedHashes) as string[] } : {}),
    // Bulk send (docs/api.md#bulk-send): present only on envelopes a job made.
    ...(typeof entity.bulkJobId === 'string' ? { bulkJobId: entity.bulkJobId, metadata: typeof entity.metadata === 'string' ? (JSON.parse(entity.metadata) as Record<string, string>) : null } : {}),
    // Public links (docs/api.md#public-links): present only on envelopes a link made.
    ...(entity.source === 'publicLink' ? { source: 'publicLink' as const } : {}),
    ...(entity.voidedReason === undefined ? {} : { voidedReason: text('voidedReason') }),
    // Absent on envelopes whose events were recorded before the chain (docs/api.md#chained-audit-trail).
    ...(entity.auditHead === undefined ? {} : { auditHead: text('auditHead') }),
    ...(hasDocuments ? { documents: JSON.parse(readLongText(entity, 'documents')) as EnvelopeDocument[] } : {}),
  };
}

/** A signer as stored, with the defaults of fields that rows of older versions lack. */
function withSignerDefaults(stored: Partial<Signer>): Signer {
  return {
    id: String(stored.id),
    email: String(stored.email),
    name: String(stored.name),
    role: stored.role ?? 'signer',
    routingOrder: stored.routingOrder ?? 1,
    status: stored.status ?? 'created',
    actedAt: stored.actedAt ?? null,
    declineReason: stored.declineReason ?? null,
    lastEmail: stored.lastEmail ?? null,
    link: stored.link ?? null,
    invitedAt: stored.invitedAt ?? null,
    remindersSent: stored.remindersSent ?? 0,
    locale: stored.locale ?? null,
    // Absent until the first resend (read as none).
    ...(stored.resends === undefined ? {} : { resends: stored.resends }),
    ...(stored.lastResendAt === undefined ? {} : { lastResendAt: stored.lastResendAt }),
    // Embedded signing (docs/api.md#embedded-signing): absent means e-mail delivery and no view.
    ...(stored.delivery === undefined ? {} : { delivery: stored.delivery }),
    // Text messages (docs/api.md#sms): absent means no phone and no text sent yet.
    ...(stored.phone === undefined ? {} : { phone: stored.phone }),
    ...(stored.lastSms == null ? {} : { lastSms: stored.lastSms }),
    ...(stored.smsBatchId == null ? {} : { smsBatchId: stored.smsBatchId }),
    // The opt-out of its number its trail records (docs/api.md#opting-out-of-text-messages); absent: none.
    ...(stored.smsOptedOutAt == null ? {} : { smsOptedOutAt: stored.smsOptedOutAt }),
    ...(stored.notifyOnCompletion === undefined ? {} : { notifyOnCompletion: stored.notifyOnCompletion }),
    ...(stored.view == null ? {} : { view: stored.view }),
    // Absent: no authentication beyond the link (docs/api.md#signer-authentication).
    ...(stored.authentication === undefined ? {} : { authentication: stored.authentication }),
  };
}

/** The rows of a change's events: as few as {@link EVENT_ROW_CHARS} allows, each named by its first sequence. */
function eventEntities(record: EnvelopeRecord, events: AuditEvent[]): EnvelopeEntity[] {
  const rows: AuditEvent[][] = [];
  let current: AuditEvent[] = [];
  let size = 0;
  for (const event of events) {
    const stored = { ...event, userAgent: event.userAgent?.slice(0, 1024) ?? null };
    const length = JSON.stringify(stored).length;
    if (current.length > 0 && size + length > EVENT_ROW_CHARS) {
      rows.push(current);
      current = [];
      size = 0;
    }
    current.push(stored);
    size += length;
  }
  if (current.length > 0) rows.push(current);
  return rows.map((row) => {
    const entity: EnvelopeEntity = {
      partitionKey: record.ownerId,
      rowKey: `event_${record.id}_${String(row[0]!.sequence).padStart(10, '0')}`,
      envelopeId: record.id,
      sequence: row[0]!.sequence,
      count: row.length,
    };
    writeLongText(entity, 'events', JSON.stringify(row));
    return entity;
  });
}
