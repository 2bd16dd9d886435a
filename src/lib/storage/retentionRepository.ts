/**
 * Retention (docs/api.md#retention), table `retention`:
 *
 * - PartitionKey `policy`, RowKey `org_<organizationId>`: an organisation's `retentionDays`, the one
 *   place it is kept (absent: finished envelopes are kept for ever), and `indexedAt`, set once the
 *   organisation's envelopes finished before the index existed are in it ({@link RetentionRepository.markIndexed}).
 *   The sweeper lists this partition: it holds one row per organisation that set a period.
 * - PartitionKey `finished_<organizationId>`, RowKey `<closedAt>_<envelopeId>`: the index of finished
 *   envelopes (completed, declined, voided, expired), oldest first, written before the change that
 *   finishes the envelope (`envelopes/change.ts`). One range query (`RowKey le '<cutoff>~'`) finds
 *   exactly the envelopes finished before a cutoff, whatever the period and however often it changes:
 *   a sweep reads what has fallen due, never every envelope.
 * - PartitionKey `purges_<organizationId>`, RowKey `<inverted purgedAt>_<envelopeId>`: the purge log,
 *   newest first (`GET /api/organization/purges`, docs/api.md#the-purge-log): ids and hashes only.
 */
import { odata, type TableClient } from '@azure/data-tables';
import { deleteEntityIfExists, entityOrNull, storageStatus } from './keys.js';

/** An organisation's retention period (docs/api.md#retention). */
export interface RetentionPolicy {
  organizationId: string;
  /** Days a finished envelope is kept, 30 to 3650. */
  retentionDays: number;
  /** ISO 8601: when the period was last set. */
  changedAt: string;
  /** ISO 8601: when the organisation's older finished envelopes were indexed; `null` until then. */
  indexedAt: string | null;
}

/** One finished envelope in the index. */
export interface FinishedEntry {
  organizationId: string;
  /** The owner when it finished (a removed member's envelope is found through its forwarding row). */
  ownerId: string;
  envelopeId: string;
  /** ISO 8601 UTC with milliseconds: when it reached its final status. */
  closedAt: string;
}

/** Why a finished envelope's documents were purged. */
export type PurgeReason = 'retention' | 'delete';

/** One row of the purge log (docs/api.md#the-purge-log). */
export interface PurgeRecord {
  envelopeId: string;
  /** ISO 8601: the envelope's `purgedAt`. */
  purgedAt: string;
  /** Lower-case hex SHA-256 of the sealed PDF; `null` for an envelope never sealed (declined, voided, expired). */
  sealedSha256: string | null;
  reason: PurgeReason;
  /**
   * ISO 8601: the end of the sealed PDF's immutability period when storage refused to delete it
   * (docs/api.md#sealed-pdfs-are-immutable); `null` when nothing was refused.
   */
  sealedImmutableUntil: string | null;
}

/** One page of the purge log. */
export interface PurgePage {
  purges: PurgeRecord[];
  /** The RowKey of the page's last row, when more follow. */
  nextRowKey: string | undefined;
}

const POLICY_PARTITION = 'policy';
const policyRow = (organizationId: string): string => `org_${organizationId}`;
const finishedPartition = (organizationId: string): string => `finished_${organizationId}`;
const finishedRow = (entry: Pick<FinishedEntry, 'closedAt' | 'envelopeId'>): string => `${entry.closedAt}_${entry.envelopeId}`;
const purgesPartition = (organizationId: string): string => `purges_${organizationId}`;
/** Milliseconds inverted over 15 digits, so that ascending RowKeys are newest first. */
const MAX_MS = 999_999_999_999_999;
const purgeRow = (purgedAt: string, envelopeId: string): string => `${String(MAX_MS - Date.parse(purgedAt)).padStart(15, '0')}_${envelopeId}`;

interface PolicyEntity {
  organizationId: string;
  retentionDays: number;
  changedAt: string;
  indexedAt?: string;
}

interface PurgeEntity {
  envelopeId: string;
  purgedAt: string;
  sealedSha256?: string;
  reason: string;
  sealedImmutableUntil?: string;
}

function toPolicy(entity: PolicyEntity): RetentionPolicy {
  return { organizationId: entity.organizationId, retentionDays: entity.retentionDays, changedAt: entity.changedAt, indexedAt: typeof entity.indexedAt === 'string' ? entity.indexedAt : null };
}

function toPurge(entity: PurgeEntity): PurgeRecord {
  return {
    envelopeId: entity.envelopeId,
    purgedAt: entity.purgedAt,
    sealedSha256: typeof entity.sealedSha256 === 'string' ? entity.sealedSha256 : null,
    reason: entity.reason === 'retention' ? 'retention' : 'delete',
    sealedImmutableUntil: typeof entity.sealedImmutableUntil === 'string' ? entity.sealedImmutableUntil : null,
  };
}

export class RetentionRepository {
  constructor(private readonly table: TableClient) {}

  /** The organisation's retention period, or `null` when it keeps finished envelopes for ever. */
  async policy(organizationId: string): Promise<RetentionPolicy | null> {
    const entity = await entityOrNull<PolicyEntity>(this.table, POLICY_PARTITION, policyRow(organizationId));
    return entity === null ? null : toPolicy(entity);
  }

  /**
   * Sets the organisation's period (`null`: none, finished envelopes are kept for ever). Last writer
   * wins. A policy set again keeps its `indexedAt`: the index stays complete.
   */
  async setPolicy(organizationId: string, retentionDays: number | null, now: Date = new Date()): Promise<void> {
    if (retentionDays === null) {
      await deleteEntityIfExists(this.table, POLICY_PARTITION, policyRow(organizationId));
      return;
    }
    await this.table.upsertEntity({ partitionKey: POLICY_PARTITION, rowKey: policyRow(organizationId), organizationId, retentionDays, changedAt: now.toISOString() }, 'Merge');
  }

  /** Every organisation's period: one row per organisation that set one. */
  async policies(): Promise<RetentionPolicy[]> {
    const found: RetentionPolicy[] = [];
    for await (const entity of this.table.listEntities<PolicyEntity>({ queryOptions: { filter: odata`PartitionKey eq ${POLICY_PARTITION}` } })) found.push(toPolicy(entity));
    return found;
  }

  /** Records that the organisation's older finished envelopes are in the index (a policy removed meanwhile stays removed). */
  async markIndexed(organizationId: string, at: Date = new Date()): Promise<void> {
    try {
      await this.table.updateEntity({ partitionKey: POLICY_PARTITION, rowKey: policyRow(organizationId), indexedAt: at.toISOString() }, 'Merge');
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }

  /** Records a finished envelope in the index; idempotent. */
  async addFinished(entry: FinishedEntry): Promise<void> {
    await this.table.upsertEntity({ partitionKey: finishedPartition(entry.organizationId), rowKey: finishedRow(entry), ownerId: entry.ownerId, envelopeId: entry.envelopeId, closedAt: entry.closedAt }, 'Replace');
  }

  /**
   * The organisation's envelopes finished at or before `cutoff`, oldest first, at most `limit`: one range query.
   * @param cutoff ISO 8601 UTC with milliseconds
   */
  async finishedBefore(organizationId: string, cutoff: string, limit: number): Promise<FinishedEntry[]> {
    const entries: FinishedEntry[] = [];
    const filter = odata`PartitionKey eq ${finishedPartition(organizationId)} and RowKey le ${`${cutoff}~`}`;
    const pages = this.table.listEntities<{ ownerId: string; envelopeId: string; closedAt: string }>({ queryOptions: { filter } }).byPage({ maxPageSize: Math.min(limit, 1000) });
    for await (const page of pages) {
      for (const entity of page) {
        entries.push({ organizationId, ownerId: entity.ownerId, envelopeId: entity.envelopeId, closedAt: entity.closedAt });
        if (entries.length >= limit) return entries;
      }
    }
    return entries;
  }

  /** Removes a finished envelope from the index (once purged); removing one that is gone is not an error. */
  async removeFinished(entry: Pick<FinishedEntry, 'organizationId' | 'closedAt' | 'envelopeId'>): Promise<void> {
    await deleteEntityIfExists(this.table, finishedPartition(entry.organizationId), finishedRow(entry));
  }

  /**
   * Records a purge in the organisation's log, once per purge (its `purgedAt`): a repeated call (a retry
   * after a crash, a second DELETE) keeps the first row's reason and only updates `sealedImmutableUntil`.
   */
  async recordPurge(organizationId: string, purge: PurgeRecord): Promise<void> {
    const keys = { partitionKey: purgesPartition(organizationId), rowKey: purgeRow(purge.purgedAt, purge.envelopeId) };
    const immutable = purge.sealedImmutableUntil === null ? {} : { sealedImmutableUntil: purge.sealedImmutableUntil };
    try {
      await this.table.createEntity({ ...keys, ...toEntityFields(purge), ...immutable });
    } catch (error) {
      if (storageStatus(error) !== 409) throw error;
      // The same purge recorded before: what storage refused may have changed since (an immutability period ended).
      const before = await entityOrNull<PurgeEntity>(this.table, keys.partitionKey, keys.rowKey);
      if (before !== null && (before.sealedImmutableUntil ?? null) !== purge.sealedImmutableUntil) {
        await this.table.upsertEntity({ ...keys, ...toEntityFields(toPurge(before)), ...immutable }, 'Replace');
      }
    }
  }

  /**
   * One page of the organisation's purge log, newest first.
   * @param after the RowKey of the previous page's last row
   */
  async purges(organizationId: string, limit: number, after?: string): Promise<PurgePage> {
    const partition = purgesPartition(organizationId);
    const filter = after === undefined ? odata`PartitionKey eq ${partition}` : odata`PartitionKey eq ${partition} and RowKey gt ${after}`;
    const rows: (PurgeEntity & { rowKey?: string })[] = [];
    // One more than the page holds: its presence says whether a next page exists.
    const pages = this.table.listEntities<PurgeEntity>({ queryOptions: { filter } }).byPage({ maxPageSize: limit + 1 });
    outer: for await (const page of pages) {
      for (const entity of page) {
        rows.push(entity);
        if (rows.length > limit) break outer;
      }
    }
    const pageRows = rows.slice(0, limit);
    return { purges: pageRows.map(toPurge), nextRowKey: rows.length > limit ? pageRows.at(-1)!.rowKey : undefined };
  }
}

/** A purge's properties as stored (its keys aside); an absent hash or date is no property. */
function toEntityFields(purge: PurgeRecord): Record<string, string> {
  return {
    envelopeId: purge.envelopeId,
    purgedAt: purge.purgedAt,
    reason: purge.reason,
    ...(purge.sealedSha256 === null ? {} : { sealedSha256: purge.sealedSha256 }),
  };
}
