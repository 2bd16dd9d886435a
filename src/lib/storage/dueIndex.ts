/**
 * Work that falls due at a time, table `dueIndex` (CONTRACT §12.3): the sweeper reads what is due
 * from here, never by scanning envelopes, so a sweep costs what is due, not what exists.
 *
 * PartitionKey = the kind of work (`outbox`, and the sweeper's own kinds); RowKey =
 * `<dueAt ISO 8601>_<ownerId>_<id>`, so one range query per kind (`RowKey le '<now>~'`) finds exactly
 * the entries due by now, oldest first. Entries are written before the change they guard (a change
 * that then fails leaves an entry that points at nothing, which the sweeper drops) and deleted when
 * the work is done.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import { storageStatus } from './keys.js';

export interface DueEntry {
  kind: string;
  /** ISO 8601 UTC with milliseconds. */
  dueAt: string;
  ownerId: string;
  /** The id of the thing due (an outbox batch, an envelope). */
  id: string;
}

function rowKey(entry: Pick<DueEntry, 'dueAt' | 'ownerId' | 'id'>): string {
  return `${entry.dueAt}_${entry.ownerId}_${entry.id}`;
}

function toEntity(entry: DueEntry) {
  return { partitionKey: entry.kind, rowKey: rowKey(entry), dueAt: entry.dueAt, ownerId: entry.ownerId, id: entry.id };
}

export class DueIndex {
  constructor(private readonly table: TableClient) {}

  /** Records (or re-records) an entry; idempotent. */
  async put(entry: DueEntry): Promise<void> {
    await this.table.upsertEntity(toEntity(entry), 'Replace');
  }

  /**
   * Records (or re-records) many entries, as {@link put} does one: upserts grouped by kind into
   * entity-group transactions of 100, `concurrency` in flight. For bulk loads (the benchmark's seeding).
   * @param options `concurrency`: transactions in flight, default 4
   */
  async putMany(entries: readonly DueEntry[], options: { concurrency?: number } = {}): Promise<void> {
    const byKind = new Map<string, DueEntry[]>();
    for (const entry of entries) byKind.set(entry.kind, [...(byKind.get(entry.kind) ?? []), entry]);
    const batches: TransactionAction[][] = [];
    for (const group of byKind.values()) {
      for (let start = 0; start < group.length; start += 100) batches.push(group.slice(start, start + 100).map((entry): TransactionAction => ['upsert', toEntity(entry), 'Replace']));
    }
    let next = 0;
    const worker = async () => {
      while (next < batches.length) await this.table.submitTransaction(batches[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 4, batches.length) }, worker));
  }

  /** Removes an entry; removing one that is gone is not an error. */
  async remove(entry: DueEntry): Promise<void> {
    try {
      await this.table.deleteEntity(entry.kind, rowKey(entry));
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    }
  }

  /**
   * Entries of `kind` due at or before `now`, oldest first, at most `limit`.
   * @param now ISO 8601 UTC with milliseconds
   */
  async due(kind: string, now: string, limit: number): Promise<DueEntry[]> {
    const entries: DueEntry[] = [];
    const filter = odata`PartitionKey eq ${kind} and RowKey le ${`${now}~`}`;
    const pages = this.table.listEntities<{ dueAt: string; ownerId: string; id: string }>({ queryOptions: { filter } }).byPage({ maxPageSize: Math.min(limit, 1000) });
    for await (const page of pages) {
      for (const entity of page) {
        entries.push({ kind, dueAt: entity.dueAt, ownerId: entity.ownerId, id: entity.id });
        if (entries.length >= limit) return entries;
      }
    }
    return entries;
  }
}
