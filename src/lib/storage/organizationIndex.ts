/**
 * Which member owns each envelope of an organisation (docs/api.md#what-members-share,
 * docs/architecture.md#the-organizations-envelope-index), in table `organizations`:
 *
 * - PartitionKey `envelopes_<organizationId>`, RowKey `envelope_<inverted id>` (newest first, as the
 *   owner's own list, `envelopeRepository.ts` `invertId`), property `ownerId`: one row per envelope.
 *   A point read on it finds the partition (the owner) of an envelope another member asks for; a range
 *   query on the partition is a page of the organisation's envelopes whose cost does not grow with
 *   their number, nor with the number of members.
 * - the same partition, RowKey `indexed`: the envelopes made before the index existed are in it
 *   (written once by {@link OrganizationIndex.ensureIndexed}).
 *
 * The row is written before the envelope (another partition: no transaction holds both), so every
 * envelope that exists has its row; a row whose envelope was never written, or was deleted, names an
 * envelope that reads as missing, and lists pass over it. An envelope's owner never changes: the
 * mapping is kept in memory per instance once read.
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
import { forEachConcurrently } from '../concurrency.js';
import { LruCache } from '../lruCache.js';
import { invertId } from './envelopeRepository.js';
import { storageStatus } from './keys.js';

/** Most envelope owners remembered per instance. */
const OWNER_CACHE_ENTRIES = 100_000;
/** The marker row of an organisation whose older envelopes are indexed. */
const INDEXED_ROW = 'indexed';
/** Rows of one entity-group transaction at most (Table Storage). */
const MAX_TRANSACTION_ACTIONS = 100;

/** One row of the index: an envelope and its owner. */
export interface IndexedEnvelope {
  envelopeId: string;
  ownerId: string;
  /** The row's RowKey: the position in the newest-first order, for cursors. */
  rowKey: string;
}

/** The index of the organisations' envelopes (see the module comment). */
export class OrganizationIndex {
  private readonly owners = new LruCache<string, string>(OWNER_CACHE_ENTRIES);
  private readonly indexed = new Set<string>();

  constructor(private readonly table: TableClient) {}

  /** Records that `ownerId` owns `envelopeId` in the organisation: before the envelope is written. */
  async addEnvelope(organizationId: string, envelopeId: string, ownerId: string): Promise<void> {
    await this.table.upsertEntity(indexEntity(envelopesKey(organizationId), envelopeId, ownerId), 'Replace');
    this.owners.set(`${organizationId}/${envelopeId}`, ownerId);
  }

  /**
   * Records many new envelopes of the organisation at once, as {@link addEnvelope} records one (bulk
   * writes, such as the benchmark's seeding, before the envelopes are written): the same rows, in
   * entity-group transactions of up to 100 rows (all in the organisation's one partition), at most
   * `concurrency` (default 4) in flight. Inserts, not upserts: the envelopes are new (Azurite's
   * upserts slow down with the partition's size, its inserts much less).
   * @throws the first failed transaction's error, once every transaction has settled (409 when one of
   *   its envelopes is indexed already: that transaction writes nothing)
   */
  async addEnvelopes(organizationId: string, envelopes: readonly { envelopeId: string; ownerId: string }[], options: { concurrency?: number } = {}): Promise<void> {
    const partitionKey = envelopesKey(organizationId);
    const batches: TransactionAction[][] = [];
    for (let start = 0; start < envelopes.length; start += MAX_TRANSACTION_ACTIONS) {
      batches.push(envelopes.slice(start, start + MAX_TRANSACTION_ACTIONS).map(({ envelopeId, ownerId }): TransactionAction => ['create', indexEntity(partitionKey, envelopeId, ownerId)]));
    }
    await forEachConcurrently(batches, options.concurrency ?? 4, async (batch) => {
      await this.table.submitTransaction(batch);
    });
    for (const { envelopeId, ownerId } of envelopes) this.owners.set(`${organizationId}/${envelopeId}`, ownerId);
  }

  /**
   * The owner of the organisation's envelope `envelopeId`, or `null` when the organisation has none by
   * that id: one point read the first time, none after (an envelope's owner never changes).
   */
  async envelopeOwner(organizationId: string, envelopeId: string): Promise<string | null> {
    const key = `${organizationId}/${envelopeId}`;
    const known = this.owners.find(key);
    if (known !== undefined) return known;
    try {
      const row = await this.table.getEntity<{ ownerId: string }>(envelopesKey(organizationId), envelopeRow(envelopeId));
      this.owners.set(key, row.ownerId);
      return row.ownerId;
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Up to `limit` rows of the organisation's envelopes, newest first, after the RowKey `after`.
   * @returns the rows, and whether more follow
   */
  async page(organizationId: string, limit: number, after: string | undefined): Promise<{ rows: IndexedEnvelope[]; more: boolean }> {
    const partition = envelopesKey(organizationId);
    const from = after ?? 'envelope_';
    const filter = `PartitionKey eq '${partition}' and RowKey gt '${from}' and RowKey lt 'envelope~'`;
    const rows: IndexedEnvelope[] = [];
    const pages = this.table.listEntities<{ envelopeId: string; ownerId: string }>({ queryOptions: { filter } }).byPage({ maxPageSize: limit + 1 });
    outer: for await (const page of pages) {
      for (const entity of page) {
        rows.push({ envelopeId: entity.envelopeId, ownerId: entity.ownerId, rowKey: entity.rowKey! });
        if (rows.length > limit) break outer;
      }
    }
    return { rows: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * Indexes, once per organisation, the envelopes its members made before the index existed: lists
   * each member's envelopes through `envelopesOf` and upserts their rows (idempotent: run again after
   * a crash, it writes the same rows), then the marker. Remembered per instance once done.
   */
  async ensureIndexed(organizationId: string, memberIds: () => Promise<string[]>, envelopesOf: (ownerId: string) => AsyncIterable<string>): Promise<void> {
    if (this.indexed.has(organizationId)) return;
    const partitionKey = envelopesKey(organizationId);
    try {
      await this.table.getEntity(partitionKey, INDEXED_ROW);
      this.indexed.add(organizationId);
      return;
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
    for (const ownerId of await memberIds()) {
      let batch: TransactionAction[] = [];
      for await (const envelopeId of envelopesOf(ownerId)) {
        batch.push(['upsert', indexEntity(partitionKey, envelopeId, ownerId), 'Replace']);
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
}

function envelopesKey(organizationId: string): string {
  return `envelopes_${organizationId}`;
}

function envelopeRow(envelopeId: string): string {
  return `envelope_${invertId(envelopeId)}`;
}

/** The index row of one envelope in the partition `partitionKey` ({@link envelopesKey}). */
function indexEntity(partitionKey: string, envelopeId: string, ownerId: string): { partitionKey: string; rowKey: string; envelopeId: string; ownerId: string } {
  return { partitionKey, rowKey: envelopeRow(envelopeId), envelopeId, ownerId };
}
