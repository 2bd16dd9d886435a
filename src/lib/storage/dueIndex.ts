/**
 * Work that falls due at a time (docs/api.md#the-sweeper): the sweeper reads what is due from here, never by
 * scanning envelopes, so a sweep costs what is due, not what exists.
 *
 * Each kind of work has a table of its own ({@link DUE_TABLES}: `dueOutbox`, `dueExpiry`,
 * `dueReminders`, `dueCompletions`, `dueIdempotencyKeys`, `dueRemovals`, `dueLog`). PartitionKey = the kind (one partition per table; it keeps a row
 * self-describing and the same as the rows of the former single table, see below); RowKey =
 * `<dueAt ISO 8601>_<ownerId>_<id>`, so one range query per kind (`RowKey le '<now>~'`) finds exactly
 * the entries due by now, oldest first. One table per kind, rather than one partition per kind of a
 * shared table, because Azurite (local development, the tests, the benchmark) evaluates a query's
 * filter on every row of the table: each kind's query then reads only its own kind's rows. Azure
 * answers either layout from its index.
 *
 * Entries are written before the change they guard (a change that then fails leaves an entry that
 * points at nothing, which the sweeper drops) and deleted when the work is done.
 *
 * Earlier versions kept every kind in one table, `dueIndex` (PartitionKey = kind, the same RowKey
 * and properties). {@link DueIndex.moveLegacyEntries} moves what such a deployment still holds
 * there into the kind tables; the sweeper calls it before its steps. New deployments never create
 * `dueIndex`.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import type { Storage, TABLES } from './clients.js';
import { forEachConcurrently } from '../concurrency.js';
import { storageStatus } from './keys.js';

/**
 * The table of each kind of due work (keys of `TABLES` in `clients.ts`). The kinds are named where
 * their work is: `OUTBOX_DUE_KIND` (`outboxRepository.ts`), `EXPIRY_DUE_KIND` and
 * `REMINDER_DUE_KIND` (`routing.ts`), `COMPLETION_DUE_KIND` (`complete.ts`), `IDEMPOTENCY_KEY_DUE_KIND`
 * (`idempotencyKeyRepository.ts`), `REMOVAL_DUE_KIND` (`removal/removeMember.ts`), `LOG_DUE_KIND`
 * (`transparency/publicLog.ts`).
 */
export const DUE_TABLES = {
  outbox: 'dueOutbox',
  expiry: 'dueExpiry',
  reminder: 'dueReminders',
  completion: 'dueCompletions',
  idempotencyKey: 'dueIdempotencyKeys',
  removal: 'dueRemovals',
  log: 'dueLog',
} as const satisfies Record<string, keyof typeof TABLES>;

/** A kind of due work: a key of {@link DUE_TABLES}. */
export type DueKind = keyof typeof DUE_TABLES;

/** A row of the legacy `dueIndex` table: PartitionKey = kind, the properties of a {@link DueEntry}. */
type LegacyRow = { partitionKey: string; rowKey: string; dueAt: string; ownerId: string; id: string };

/** Rows {@link DueIndex.moveLegacyEntries} reads from the legacy table at a time. */
const LEGACY_PAGE = 1000;

/** Entity-group transactions {@link DueIndex.putMany} and the legacy move keep in flight by default. */
const DEFAULT_CONCURRENCY = 4;

export interface DueEntry {
  kind: DueKind;
  /** ISO 8601 UTC with milliseconds. */
  dueAt: string;
  ownerId: string;
  /** The id of the thing due (an outbox batch, an envelope, the RowKey of an idempotency key). */
  id: string;
}

function rowKey(entry: Pick<DueEntry, 'dueAt' | 'ownerId' | 'id'>): string {
  return `${entry.dueAt}_${entry.ownerId}_${entry.id}`;
}

function toEntity(entry: DueEntry) {
  return { partitionKey: entry.kind, rowKey: rowKey(entry), dueAt: entry.dueAt, ownerId: entry.ownerId, id: entry.id };
}

export class DueIndex {
  /** Set once the legacy table was found empty or missing: this process never looks again. */
  private legacyEmpty = false;

  /**
   * @param tables the table of each kind (see {@link dueIndexOf} for the service's own)
   * @param legacy the single table of earlier versions, `dueIndex`; read and emptied, never created
   */
  constructor(
    private readonly tables: Readonly<Record<DueKind, TableClient>>,
    private readonly legacy?: TableClient,
  ) {}

  /** Records (or re-records) an entry; idempotent. @throws Error for a kind not in {@link DUE_TABLES} */
  async put(entry: DueEntry): Promise<void> {
    await this.tableOf(entry.kind).upsertEntity(toEntity(entry), 'Replace');
  }

  /**
   * Records (or re-records) many entries, as {@link put} does one: upserts grouped by kind into
   * entity-group transactions of 100, `concurrency` in flight. For bulk loads (the benchmark's seeding).
   * @param options `concurrency`: transactions in flight, default 4
   * @throws Error for a kind not in {@link DUE_TABLES} (before anything is written)
   */
  async putMany(entries: readonly DueEntry[], options: { concurrency?: number } = {}): Promise<void> {
    const batches = transactionsByKind(entries, (entry) => ['upsert', toEntity(entry), 'Replace']).map(({ kind, actions }) => ({ table: this.tableOf(kind), actions }));
    await forEachConcurrently(batches, options.concurrency ?? DEFAULT_CONCURRENCY, async ({ table, actions }) => {
      await table.submitTransaction(actions);
    });
  }

  /** Removes an entry; removing one that is gone is not an error. @throws Error for a kind not in {@link DUE_TABLES} */
  async remove(entry: DueEntry): Promise<void> {
    await deleteIfExists(this.tableOf(entry.kind), entry.kind, rowKey(entry));
  }

  /**
   * Entries of `kind` due at or before `now`, oldest first, at most `limit`.
   * @param now ISO 8601 UTC with milliseconds
   * @throws Error for a kind not in {@link DUE_TABLES}
   */
  async due(kind: DueKind, now: string, limit: number): Promise<DueEntry[]> {
    const entries: DueEntry[] = [];
    // The RowKey bound first: Azure answers either order from its index, and Azurite, which evaluates
    // the filter on every row of the table, stops at it for every entry not yet due.
    const filter = odata`RowKey le ${`${now}~`} and PartitionKey eq ${kind}`;
    const pages = this.tableOf(kind).listEntities<{ dueAt: string; ownerId: string; id: string }>({ queryOptions: { filter } }).byPage({ maxPageSize: Math.min(limit, 1000) });
    for await (const page of pages) {
      for (const entity of page) {
        entries.push({ kind, dueAt: entity.dueAt, ownerId: entity.ownerId, id: entity.id });
        if (entries.length >= limit) return entries;
      }
    }
    return entries;
  }

  /**
   * Moves every entry of the legacy single table (`dueIndex`, earlier versions) into the table of its
   * kind: each page of up to 1,000 rows is upserted into the kind tables, then deleted from the
   * legacy table (entity-group transactions of 100), until a read finds no more. Once the table was
   * found empty or missing (a deployment that never had it: not an error, and it is not created),
   * every later call returns 0 at once, for the life of this object (the process's services).
   *
   * Idempotent, and safe on several instances at once: a row moved twice is upserted twice, a delete
   * of a row another instance deleted already is not an error. An entry the sweeper acted on and
   * removed between another instance's upsert and delete can come back; it then points at work that
   * is done, which the sweeper's steps drop, as they drop entries whose change failed.
   * @returns the number of rows this call moved
   * @throws Error when the legacy table holds rows of no kind of {@link DUE_TABLES} (only the kinds
   *   are read, so such rows stay there and every call says so until they are deleted); storage
   *   errors other than the missing table
   */
  async moveLegacyEntries(options: { concurrency?: number } = {}): Promise<number> {
    if (this.legacy === undefined || this.legacyEmpty) return 0;
    const legacy = this.legacy;
    const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
    const ofKnownKinds = Object.keys(DUE_TABLES).map((kind) => odata`PartitionKey eq ${kind}`).join(' or ');
    let moved = 0;
    for (;;) {
      const page = await firstPage(legacy, ofKnownKinds);
      if (page === null) {
        // No such table (or no longer): nothing to move.
        this.legacyEmpty = true;
        return moved;
      }
      if (page.length === 0) break;
      const entries = page.map((entity): DueEntry => ({ kind: entity.partitionKey as DueKind, dueAt: entity.dueAt, ownerId: entity.ownerId, id: entity.id }));
      await this.putMany(entries, { concurrency });
      const deletions = transactionsByKind(entries, (entry) => ['delete', { partitionKey: entry.kind, rowKey: rowKey(entry) }]);
      await forEachConcurrently(deletions, concurrency, async ({ actions }) => {
        try {
          await legacy.submitTransaction(actions);
        } catch (error) {
          // Another instance deleted some of them first, and the transaction failed as a whole.
          if (storageStatus(error) !== 404) throw error;
          for (const [, entity] of actions) await deleteIfExists(legacy, entity.partitionKey, entity.rowKey);
        }
      });
      moved += entries.length;
    }
    // No rows of a known kind left: any other row is of an unknown kind.
    const stray = await firstPage(legacy, undefined, 1);
    if (stray !== null && stray.length > 0) {
      throw new Error(`Due index: the legacy table ${legacy.tableName} holds rows of no known kind (PartitionKey "${stray[0]!.partitionKey}"); the kinds are ${Object.keys(DUE_TABLES).join(', ')}. They were left there.`);
    }
    this.legacyEmpty = true;
    return moved;
  }

  private tableOf(kind: string): TableClient {
    if (!isDueKind(kind)) throw new Error(`Due index: unknown kind "${kind}"; the kinds are ${Object.keys(DUE_TABLES).join(', ')} (DUE_TABLES in src/lib/storage/dueIndex.ts).`);
    return this.tables[kind];
  }
}

/** Whether `kind` is a kind of {@link DUE_TABLES}. */
export function isDueKind(kind: string): kind is DueKind {
  return Object.hasOwn(DUE_TABLES, kind);
}

/** The service's due index: the kind tables of `storage`, and its legacy `dueIndex` table to empty. */
export function dueIndexOf(storage: Pick<Storage, 'tables' | 'legacyTables'>): DueIndex {
  const tables = Object.fromEntries(Object.entries(DUE_TABLES).map(([kind, table]) => [kind, storage.tables[table]])) as Record<DueKind, TableClient>;
  return new DueIndex(tables, storage.legacyTables.dueIndex);
}

/**
 * The first page of `table`'s rows matching `filter` (at most `size`); `null` when the table does not
 * exist. The legacy move deletes what it read before it reads again, so it only ever needs the first.
 */
async function firstPage(table: TableClient, filter: string | undefined, size = LEGACY_PAGE): Promise<LegacyRow[] | null> {
  try {
    for await (const page of table.listEntities<LegacyRow>({ queryOptions: filter === undefined ? {} : { filter } }).byPage({ maxPageSize: size })) return page;
    return [];
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}

/** `entries` as entity-group transactions: one kind (one table and partition) each, at most 100 actions. */
function transactionsByKind(entries: readonly DueEntry[], action: (entry: DueEntry) => TransactionAction): { kind: DueKind; actions: TransactionAction[] }[] {
  const byKind = new Map<DueKind, DueEntry[]>();
  for (const entry of entries) {
    const group = byKind.get(entry.kind);
    if (group === undefined) byKind.set(entry.kind, [entry]);
    else group.push(entry);
  }
  const transactions: { kind: DueKind; actions: TransactionAction[] }[] = [];
  for (const [kind, group] of byKind) {
    for (let start = 0; start < group.length; start += 100) transactions.push({ kind, actions: group.slice(start, start + 100).map(action) });
  }
  return transactions;
}

/** Deletes a row; one that is gone is not an error. */
async function deleteIfExists(table: TableClient, partitionKey: string, rowKey: string): Promise<void> {
  try {
    await table.deleteEntity(partitionKey, rowKey);
  } catch (error) {
    if (storageStatus(error) !== 404) throw error;
  }
}
