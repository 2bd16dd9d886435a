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
 * envelope that reads as missing, and lists pass over it. The mapping is kept in memory per instance
 * once read: an envelope's owner changes only when its owner is removed from the organisation
 * (docs/api.md#removing-a-member), which rewrites the row ({@link OrganizationIndex.addEnvelope}); an
 * instance that still remembers the former owner reads the envelope through the forwarding row left
 * in that owner's partition (`envelopeRepository.ts`).
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
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

  /** Records that `ownerId` owns `envelopeId` in the organisation: before the envelope is written, and again when it moves to another owner. */
  async addEnvelope(organizationId: string, envelopeId: string, ownerId: string): Promise<void> {
    await this.table.upsertEntity({ partitionKey: envelopesKey(organizationId), rowKey: envelopeRow(envelopeId), envelopeId, ownerId }, 'Replace');
    this.owners.set(`${organizationId}/${envelopeId}`, ownerId);
  }

  /**
   * The owner of the organisation's envelope `envelopeId`, or `null` when the organisation has none by
   * that id: one point read the first time, none after (a former owner still reaches the envelope: see the module comment).
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
        batch.push(['upsert', { partitionKey, rowKey: envelopeRow(envelopeId), envelopeId, ownerId }, 'Replace']);
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
