/**
 * Which member owns each envelope and each template of an organisation
 * (docs/api.md#what-members-share, docs/architecture.md#the-organizations-envelope-index), in table
 * `organizations`; one index per kind, each in a partition of its own:
 *
 * - PartitionKey `envelopes_<organizationId>` (or `templates_<organizationId>`), RowKey
 *   `envelope_<inverted id>` (or `template_<inverted id>`; newest first, as the owner's own list,
 *   `envelopeRepository.ts` `invertId`), properties `envelopeId` (or `templateId`) and `ownerId`: one
 *   row per envelope or template. A point read on it finds the partition (the owner) of one another
 *   member asks for; a range query on the partition is a page of the organisation's envelopes or
 *   templates whose cost does not grow with their number, nor with the number of members.
 * - the same partition, RowKey `indexed`: those made before the index existed are in it (written once
 *   by {@link OrganizationIndex.ensureIndexed}).
 *
 * The row is written before the envelope or template (another partition: no transaction holds both),
 * so every one that exists has its row; a row whose envelope or template was never written, or was
 * deleted, names one that reads as missing, and lists pass over it. The mapping is kept in memory per
 * instance once read: an owner changes only when its owner is removed from the organisation
 * (docs/api.md#removing-a-member), which rewrites the row ({@link OrganizationIndex.add}); an
 * instance that still remembers the former owner of an envelope reads it through the forwarding row
 * left in that owner's partition (`envelopeRepository.ts`).
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
import { forEachConcurrently } from '../concurrency.js';
import { LruCache } from '../lruCache.js';
import { invertId } from './envelopeRepository.js';
import { storageStatus } from './keys.js';

/** Most owners remembered per instance, per index. */
const OWNER_CACHE_ENTRIES = 100_000;
/** The marker row of an organisation whose older envelopes (or templates) are indexed. */
const INDEXED_ROW = 'indexed';
/** Rows of one entity-group transaction at most (Table Storage). */
const MAX_TRANSACTION_ACTIONS = 100;
/** Owners' partitions read at once for one page of an index. */
const OWNER_READS_IN_FLIGHT = 8;

/** What an index holds: the organisation's envelopes, or its templates. */
export type IndexedKind = 'envelope' | 'template';

/** One row of an index: an envelope (or template) and its owner. */
export interface IndexedRow {
  /** The envelope's (or template's) id. */
  id: string;
  ownerId: string;
  /** The row's RowKey: the position in the newest-first order, for cursors. */
  rowKey: string;
}

/** The index of the organisations' envelopes, or of their templates (see the module comment). */
export class OrganizationIndex {
  private readonly owners = new LruCache<string, string>(OWNER_CACHE_ENTRIES);
  private readonly indexed = new Set<string>();
  /** The row property holding the id: `envelopeId` or `templateId`. */
  private readonly idProperty: string;

  constructor(
    private readonly table: TableClient,
    private readonly kind: IndexedKind,
  ) {
    this.idProperty = `${kind}Id`;
  }

  /** Records that `ownerId` owns `id` in the organisation: before the envelope or template is written, and again when it moves to another owner. */
  async add(organizationId: string, id: string, ownerId: string): Promise<void> {
    await this.table.upsertEntity({ partitionKey: this.partition(organizationId), rowKey: this.row(id), [this.idProperty]: id, ownerId }, 'Replace');
    this.owners.set(`${organizationId}/${id}`, ownerId);
  }

  /**
   * Records many new rows of the organisation at once, as {@link add} records one (bulk writes, such
   * as the benchmark's seeding, before the envelopes or templates are written): the same rows, in
   * entity-group transactions of up to 100 rows (all in the organisation's one partition), at most
   * `concurrency` (default 4) in flight. Inserts, not upserts: the rows are new (Azurite's upserts
   * slow down with the partition's size, its inserts much less).
   * @throws the first failed transaction's error, once every transaction has settled (409 when one of
   *   its ids is indexed already: that transaction writes nothing)
   */
  async addMany(organizationId: string, rows: readonly { id: string; ownerId: string }[], options: { concurrency?: number } = {}): Promise<void> {
    const partitionKey = this.partition(organizationId);
    const batches: TransactionAction[][] = [];
    for (let start = 0; start < rows.length; start += MAX_TRANSACTION_ACTIONS) {
      batches.push(rows.slice(start, start + MAX_TRANSACTION_ACTIONS).map(({ id, ownerId }): TransactionAction => ['create', { partitionKey, rowKey: this.row(id), [this.idProperty]: id, ownerId }]));
    }
    await forEachConcurrently(batches, options.concurrency ?? 4, async (batch) => {
      await this.table.submitTransaction(batch);
    });
    for (const { id, ownerId } of rows) this.owners.set(`${organizationId}/${id}`, ownerId);
  }

  /**
   * Forgets `id` once its envelope or template is deleted (a row left behind by a process that died
   * first names nothing, which reads and lists pass over).
   */
  async remove(organizationId: string, id: string): Promise<void> {
    try {
      await this.table.deleteEntity(this.partition(organizationId), this.row(id));
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }

  /**
   * The owner of the organisation's envelope (or template) `id`, or `null` when the organisation has
   * none by that id: one point read the first time, none after (a former owner of an envelope still reaches it: see the module comment).
   */
  async owner(organizationId: string, id: string): Promise<string | null> {
    const key = `${organizationId}/${id}`;
    const known = this.owners.find(key);
    if (known !== undefined) return known;
    try {
      const row = await this.table.getEntity<{ ownerId: string }>(this.partition(organizationId), this.row(id));
      this.owners.set(key, row.ownerId);
      return row.ownerId;
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * The owner the row names now, read past what this instance remembers (and remembered again): for
   * an envelope or template whose remembered owner may be a former one (moved when its owner was
   * removed, docs/api.md#removing-a-member). One point read; `null` when the organisation has none by
   * that id.
   */
  async currentOwner(organizationId: string, id: string): Promise<string | null> {
    this.owners.delete(`${organizationId}/${id}`);
    return await this.owner(organizationId, id);
  }

  /**
   * Up to `limit` rows of the organisation's envelopes (or templates), newest first, after the RowKey `after`.
   * @returns the rows, and whether more follow
   */
  async page(organizationId: string, limit: number, after: string | undefined): Promise<{ rows: IndexedRow[]; more: boolean }> {
    const partition = this.partition(organizationId);
    const from = after ?? `${this.kind}_`;
    const filter = `PartitionKey eq '${partition}' and RowKey gt '${from}' and RowKey lt '${this.kind}~'`;
    const rows: IndexedRow[] = [];
    const pages = this.table.listEntities<Record<string, string>>({ queryOptions: { filter } }).byPage({ maxPageSize: limit + 1 });
    outer: for await (const page of pages) {
      for (const entity of page) {
        rows.push({ id: entity[this.idProperty]!, ownerId: entity.ownerId!, rowKey: entity.rowKey! });
        if (rows.length > limit) break outer;
      }
    }
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * Indexes, once per organisation, the envelopes (or templates) its members made before the index
   * existed: lists each member's through `idsOf` and upserts their rows (idempotent: run again after
   * a crash, it writes the same rows), then the marker. Remembered per instance once done.
   */
  async ensureIndexed(organizationId: string, memberIds: () => Promise<string[]>, idsOf: (ownerId: string) => AsyncIterable<string>): Promise<void> {
    if (this.indexed.has(organizationId)) return;
    const partitionKey = this.partition(organizationId);
    try {
      await this.table.getEntity(partitionKey, INDEXED_ROW);
      this.indexed.add(organizationId);
      return;
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
    for (const ownerId of await memberIds()) {
      let batch: TransactionAction[] = [];
      for await (const id of idsOf(ownerId)) {
        batch.push(['upsert', { partitionKey, rowKey: this.row(id), [this.idProperty]: id, ownerId }, 'Replace']);
        if (batch.length === MAX_TRANSACTION_ACTIONS) {
          await this.table.submitTransaction(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await this.table.submitTransaction(batch);
    }
    await this.table.upsertEntity({ partitionKey, rowKey: INDEXED_ROW, indexedAt: new Date().toISOString() }, 'Replace');
    this.indexed.add(organizationId);
  }

  private partition(organizationId: string): string {
    return `${this.kind}s_${organizationId}`;
  }

  private row(id: string): string {
    return `${this.kind}_${invertId(id)}`;
  }
}

/** How {@link indexedPage} reads and filters what an index names. */
export interface IndexedReads<T extends { id: string }> {
  /** The owner's records from `newestId` to `oldestId`, both included (one range query of its partition). */
  listBetween: (ownerId: string, newestId: string, oldestId: string) => Promise<T[]>;
  /** Whether a record belongs in the page (a status asked for, what the caller may read). */
  keep: (record: T) => boolean;
}

/**
 * One page of what an index names, newest first, after the RowKey `after`: a range of the index, then
 * for each owner in it one range query on the owner's partition; while records that are gone or not
 * kept leave the page short, further ranges. Its cost grows with the page, the owners in it and the
 * records passed over, never with the organisation's total or its members.
 * @returns up to `limit` records, and the RowKey to continue after when more follow
 */
export async function indexedPage<T extends { id: string }>(index: OrganizationIndex, organizationId: string, limit: number, after: string | undefined, reads: IndexedReads<T>): Promise<{ records: T[]; nextRowKey: string | undefined }> {
  const found: { record: T; rowKey: string }[] = [];
  let from = after;
  for (;;) {
    const { rows, more } = await index.page(organizationId, limit + 1 - found.length, from);
    const records = await readIndexed(rows, reads.listBetween);
    for (const row of rows) {
      const record = records.get(row.id);
      // A row whose record was never written, or is deleted, names nothing.
      if (record === undefined || !reads.keep(record)) continue;
      found.push({ record, rowKey: row.rowKey });
    }
    if (found.length > limit || !more || rows.length === 0) break;
    from = rows.at(-1)!.rowKey;
  }
  const pageRows = found.slice(0, limit);
  return { records: pageRows.map((row) => row.record), nextRowKey: found.length > limit ? pageRows.at(-1)!.rowKey : undefined };
}

/** The records of `rows`, by id: one range query per owner, from its newest to its oldest in `rows`. */
async function readIndexed<T extends { id: string }>(rows: readonly IndexedRow[], listBetween: IndexedReads<T>['listBetween']): Promise<Map<string, T>> {
  const byOwner = new Map<string, IndexedRow[]>();
  for (const row of rows) {
    const owned = byOwner.get(row.ownerId);
    if (owned === undefined) byOwner.set(row.ownerId, [row]);
    else owned.push(row);
  }
  const wanted = new Set(rows.map((row) => row.id));
  const records = new Map<string, T>();
  await forEachConcurrently([...byOwner.entries()], OWNER_READS_IN_FLIGHT, async ([ownerId, owned]) => {
    for (const record of await listBetween(ownerId, owned[0]!.id, owned.at(-1)!.id)) {
      if (wanted.has(record.id)) records.set(record.id, record);
    }
  });
  return records;
}
