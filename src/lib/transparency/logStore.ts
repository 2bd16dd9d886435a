/**
 * The public append-only log in Table Storage (docs/api.md#public-log): the Merkle tree of `merkle.ts`
 * kept as its perfect subtrees, an index from a leaf's value to its place, and the signed tree heads,
 * in two tables: `publicLog`, whose rows are written once (nodes and leaves), and `publicLogState`,
 * whose few rows change (the tree's state, the newest head) and the heads' history.
 *
 * | Table | PartitionKey | RowKey | What it holds |
 * | --- | --- | --- | --- |
 * | `publicLogState` | `tree` | `state` | The tree's size, its frontier (the hashes of its perfect subtrees, largest first) and the append not yet written out (`pending`) |
 * | `publicLogState` | `head` | `latest` | The newest signed tree head |
 * | `publicLogState` | `heads` | its timestamp | Every signed tree head made |
 * | `publicLog` | `node_<level>_<index ÷ 256>` | the index | The hash of the perfect subtree `(level, index)` ({@link NodeKey}) |
 * | `publicLog` | `leaf_<first two hex digits>` | the leaf's value, hex | Its index |
 *
 * **An append** reads two rows and writes O(log n): the `state` row is the commit point. An append
 * reads it (with its ETag), computes the new frontier from the old one and the new leaves, and
 * replaces the row conditional on that ETag with the new size, the new frontier and, as `pending`,
 * everything needed to write the new rows (the old frontier and the leaves). So two appends that read
 * the same state cannot both commit: the loser reads again and goes after the winner, and every leaf
 * has one index. Then the appender writes the pending rows (nodes and the leaf index), each
 * determined by the committed state alone, so writing them twice writes the same thing, and clears
 * `pending` (conditional again). Whoever reads a state with a `pending` append writes its rows first
 * (an appender before its own commit, a head before it is signed), so an append whose process died
 * after its commit is finished by the next reader, and a head never covers a node that is not written.
 *
 * **Exactly once per envelope**: an envelope's last leaf is its audit trail's head, which no other
 * envelope has (its chain starts from the envelope's id). An append of an envelope that the state's
 * `pending` names, or whose last leaf is indexed, does nothing: its rows are written before `pending`
 * is cleared, and the check is made on the state the commit is conditional on, so an envelope never
 * gets two places.
 *
 * Appends of one process are grouped: while one is in flight, the next wait and then commit together.
 *
 * Partitions are small and many (256 consecutive nodes of a level, leaves spread by their first hex
 * digits), and `publicLog` only ever gains rows: Table Storage spreads the partitions, and Azurite,
 * whose point read scans a partition and whose replacing of a row costs time in proportion to its
 * table's rows, stays as fast at 100,000 leaves as at 1,000.
 */
import type { TableClient, TableEntity, TransactionAction } from '@azure/data-tables';
import { forEachConcurrently } from '../concurrency.js';
import { LostRaceError, retryOnConflict } from '../retryOnConflict.js';
import { entityOrNull, storageStatus } from '../storage/keys.js';
import { appendLeaves, foldRight, leafHash, rangeNodes, type LeafRange, type NodeKey, type TreeNode } from './merkle.js';
import type { TreeHead } from './treeHead.js';

/** One envelope's leaves, in order (docs/api.md#public-log: each sealed PDF's SHA-256, then the audit trail's head). */
export interface LogEntry {
  envelopeId: string;
  /** Each leaf's value: 32 bytes. The last (the audit trail's head) is the envelope's alone. */
  leaves: readonly Uint8Array[];
}

/** The tree as its `state` row holds it. */
export interface TreeState {
  size: number;
  /** The hashes of the perfect subtrees of the tree, largest first (`merkle.ts` `frontierNodes`). */
  frontier: Uint8Array[];
  /** An append committed whose rows may not all be written yet. */
  pending: PendingAppend | null;
  /** The row's ETag; `null` before the first append. */
  etag: string | null;
}

/** What an append commits besides the new size and frontier: all its rows need. */
interface PendingAppend {
  /** Index of its first leaf. */
  start: number;
  /** The frontier before it. */
  frontier: Uint8Array[];
  entries: { envelopeId: string; leaves: Uint8Array[] }[];
}

/** A head as stored, with the row's ETag. */
export interface StoredHead {
  head: TreeHead;
  etag: string;
}

const STATE = { partitionKey: 'tree', rowKey: 'state' } as const;
const LATEST_HEAD = { partitionKey: 'head', rowKey: 'latest' } as const;
const HEADS_PARTITION = 'heads';
/** Consecutive nodes of a level in one partition. */
const NODES_PER_PARTITION = 256;
/** Most leaves one commit takes from the waiting appends (its `pending` stays a few KiB). */
const MAX_LEAVES_PER_COMMIT = 64;
/** Writes of the pending rows in flight. */
const WRITE_CONCURRENCY = 8;
/** Point reads of a proof's nodes in flight. */
const READ_CONCURRENCY = 16;

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

function fromHex(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

function frontierToText(frontier: readonly Uint8Array[]): string {
  return frontier.map(toHex).join('');
}

function frontierFromText(text: string): Uint8Array[] {
  const hashes: Uint8Array[] = [];
  for (let at = 0; at < text.length; at += 64) hashes.push(fromHex(text.slice(at, at + 64)));
  return hashes;
}

/** The keys of the row of node `(level, index)`. */
export function nodeRowKeys({ level, index }: NodeKey): { partitionKey: string; rowKey: string } {
  return { partitionKey: `node_${level}_${Math.floor(index / NODES_PER_PARTITION)}`, rowKey: String(index) };
}

/** The keys of the row that gives a leaf value's index. */
export function leafRowKeys(valueHex: string): { partitionKey: string; rowKey: string } {
  return { partitionKey: `leaf_${valueHex.slice(0, 2)}`, rowKey: valueHex };
}

/** Every row a committed append writes in `publicLog` (its nodes and leaf index rows). */
export function pendingRows(pending: { start: number; frontier: readonly Uint8Array[]; entries: readonly LogEntry[] }): TableEntity[] {
  const values = pending.entries.flatMap((entry) => entry.leaves);
  const { nodes } = appendLeaves(pending.start, pending.frontier, values.map(leafHash));
  const rows: TableEntity[] = nodes.map((node: TreeNode) => ({ ...nodeRowKeys(node), hash: toHex(node.hash) }));
  values.forEach((leaf, offset) => rows.push({ ...leafRowKeys(toHex(leaf)), index: pending.start + offset }));
  return rows;
}

/** `rows` as entity-group transactions: one partition each, at most 100 rows, upserted. */
export function upsertTransactions(rows: readonly TableEntity[]): TransactionAction[][] {
  const byPartition = new Map<string, TableEntity[]>();
  for (const row of rows) {
    const group = byPartition.get(row.partitionKey);
    if (group === undefined) byPartition.set(row.partitionKey, [row]);
    else group.push(row);
  }
  const transactions: TransactionAction[][] = [];
  for (const group of byPartition.values()) {
    for (let start = 0; start < group.length; start += 100) transactions.push(group.slice(start, start + 100).map((row): TransactionAction => ['upsert', row, 'Replace']));
  }
  return transactions;
}

interface Waiting {
  entry: LogEntry;
  resolve: (index: number) => void;
  reject: (error: unknown) => void;
}

/** The log's rows (see the module comment). */
export class PublicLogStore {
  private readonly waiting: Waiting[] = [];
  private draining = false;

  /**
   * @param table `publicLog`: nodes and leaves, written once
   * @param stateTable `publicLogState`: the tree's state and the heads
   */
  constructor(
    readonly table: TableClient,
    readonly stateTable: TableClient,
  ) {}

  /**
   * Appends an envelope's leaves, once: an envelope already in the log keeps its place.
   * @returns the index of the envelope's first leaf
   * @throws Error when the state row kept changing through every round (nothing of this entry is
   *   committed then), or a storage error; the caller's due entry stays for the sweeper
   */
  async append(entry: LogEntry): Promise<number> {
    for (const leaf of entry.leaves) if (leaf.length !== 32) throw new RangeError(`A leaf of envelope ${entry.envelopeId} has ${leaf.length} bytes, not 32`);
    return await new Promise<number>((resolve, reject) => {
      this.waiting.push({ entry, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  /** Commits what waits, a group at a time, until nothing does. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.waiting.length > 0) {
        const group: Waiting[] = [];
        let leaves = 0;
        while (this.waiting.length > 0 && (group.length === 0 || leaves + this.waiting[0]!.entry.leaves.length <= MAX_LEAVES_PER_COMMIT)) {
          const next = this.waiting.shift()!;
          leaves += next.entry.leaves.length;
          group.push(next);
        }
        try {
          const indexes = await this.appendGroup(group.map((waiting) => waiting.entry));
          for (const waiting of group) waiting.resolve(indexes.get(waiting.entry.envelopeId)!);
        } catch (error) {
          for (const waiting of group) waiting.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** One commit of `entries` (see the module comment). @returns each envelope's first index */
  private async appendGroup(entries: readonly LogEntry[]): Promise<Map<string, number>> {
    return await retryOnConflict(
      async () => {
        const state = await this.state();
        if (state.pending !== null) await this.writePending(state.pending);
        const indexes = new Map<string, number>();
        let index = state.pending?.start ?? 0;
        for (const done of state.pending?.entries ?? []) {
          indexes.set(done.envelopeId, index);
          index += done.leaves.length;
        }
        const fresh: LogEntry[] = [];
        await Promise.all(
          entries.map(async (entry) => {
            if (indexes.has(entry.envelopeId)) return;
            const last = await this.leafIndex(toHex(entry.leaves.at(-1)!));
            if (last === null) fresh.push(entry);
            else indexes.set(entry.envelopeId, last - (entry.leaves.length - 1));
          }),
        );
        const unique = [...new Map(fresh.map((entry) => [entry.envelopeId, entry])).values()];
        if (unique.length === 0) return indexes;
        const pending: PendingAppend = { start: state.size, frontier: state.frontier, entries: unique.map((entry) => ({ envelopeId: entry.envelopeId, leaves: [...entry.leaves] })) };
        const values = unique.flatMap((entry) => entry.leaves);
        const { frontier } = appendLeaves(state.size, state.frontier, values.map(leafHash));
        const size = state.size + values.length;
        const etag = await this.commitState(state.etag, { size, frontier, pending });
        let at = state.size;
        for (const entry of unique) {
          indexes.set(entry.envelopeId, at);
          at += entry.leaves.length;
        }
        await this.writePending(pending);
        // Best effort: a later append or head finds the rows written and writes them again.
        await this.commitState(etag, { size, frontier, pending: null }).catch((error: unknown) => {
          if (!(error instanceof LostRaceError)) throw error;
        });
        return indexes;
      },
      {
        exhausted: () => {
          throw new Error('The public log\'s state kept changing through every round; the append is left to the sweeper.');
        },
      },
    );
  }

  /** The tree as its state row holds it (size 0 before the first append). */
  async state(): Promise<TreeState> {
    const row = await entityOrNull<{ size: number; frontier: string; pending: string; etag: string }>(this.stateTable, STATE.partitionKey, STATE.rowKey);
    if (row === null) return { size: 0, frontier: [], pending: null, etag: null };
    const parsed = row.pending === '' ? null : (JSON.parse(row.pending) as { start: number; frontier: string; entries: { envelopeId: string; leaves: string[] }[] });
    return {
      size: row.size,
      frontier: frontierFromText(row.frontier),
      pending: parsed === null ? null : { start: parsed.start, frontier: frontierFromText(parsed.frontier), entries: parsed.entries.map((entry) => ({ envelopeId: entry.envelopeId, leaves: entry.leaves.map(fromHex) })) },
      etag: row.etag,
    };
  }

  /**
   * The tree with every row written: the state read, and its pending append's rows written when it
   * has one (the tree's root hash follows from the frontier, `merkle.ts` `foldRight`).
   */
  async settledState(): Promise<{ size: number; rootHash: Uint8Array }> {
    const state = await this.state();
    if (state.pending !== null) await this.writePending(state.pending);
    return { size: state.size, rootHash: foldRight(state.frontier) };
  }

  /**
   * Replaces the state row conditional on `etag` (inserts it when `null`).
   * @returns the row's new ETag
   * @throws LostRaceError when another writer changed it first
   */
  private async commitState(etag: string | null, next: { size: number; frontier: readonly Uint8Array[]; pending: PendingAppend | null }): Promise<string> {
    const entity = {
      ...STATE,
      size: next.size,
      frontier: frontierToText(next.frontier),
      pending: next.pending === null ? '' : JSON.stringify({ start: next.pending.start, frontier: frontierToText(next.pending.frontier), entries: next.pending.entries.map((entry) => ({ envelopeId: entry.envelopeId, leaves: entry.leaves.map(toHex) })) }),
    };
    try {
      const written = etag === null ? await this.stateTable.createEntity(entity) : await this.stateTable.updateEntity(entity, 'Replace', { etag });
      return written.etag!;
    } catch (error) {
      const status = storageStatus(error);
      if (status === 409 || status === 412) throw new LostRaceError('The public log\'s state');
      throw error;
    }
  }

  /** Writes a committed append's rows (idempotent: the same rows each time). */
  private async writePending(pending: PendingAppend): Promise<void> {
    await forEachConcurrently(upsertTransactions(pendingRows(pending)), WRITE_CONCURRENCY, async (actions) => {
      if (actions.length === 1) await this.table.upsertEntity(actions[0]![1] as TableEntity, 'Replace');
      else await this.table.submitTransaction(actions);
    });
  }

  /** The index of the leaf whose value is `valueHex` (lower-case hex of 32 bytes), or `null`. */
  async leafIndex(valueHex: string): Promise<number | null> {
    const keys = leafRowKeys(valueHex);
    const row = await entityOrNull<{ index: number }>(this.table, keys.partitionKey, keys.rowKey);
    return row === null ? null : row.index;
  }

  /**
   * The hashes of `ranges` (each MTH of its leaves, RFC 9162 §2.1.1), in order, from the stored
   * perfect subtrees: O(log n) point reads for a proof's ranges, each node read once.
   * @throws Error when a node is not stored (a range beyond the written tree)
   */
  async rangeHashes(ranges: readonly LeafRange[]): Promise<Uint8Array[]> {
    const parts = ranges.map(rangeNodes);
    const wanted = new Map<string, NodeKey>();
    for (const node of parts.flat()) wanted.set(`${node.level}_${node.index}`, node);
    const hashes = new Map<string, Uint8Array>();
    await forEachConcurrently([...wanted], READ_CONCURRENCY, async ([id, node]) => {
      const keys = nodeRowKeys(node);
      const row = await entityOrNull<{ hash: string }>(this.table, keys.partitionKey, keys.rowKey);
      if (row === null) throw new Error(`The public log has no node (${node.level}, ${node.index})`);
      hashes.set(id, fromHex(row.hash));
    });
    return parts.map((nodes) => foldRight(nodes.map((node) => hashes.get(`${node.level}_${node.index}`)!)));
  }

  /** The newest signed tree head, with its row's ETag, or `null` before the first. */
  async latestHead(): Promise<StoredHead | null> {
    const row = await entityOrNull<{ head: string; etag: string }>(this.stateTable, LATEST_HEAD.partitionKey, LATEST_HEAD.rowKey);
    return row === null ? null : { head: JSON.parse(row.head) as TreeHead, etag: row.etag };
  }

  /**
   * Makes `head` the newest, conditional on the newest being the one read (`previous`, `null` for none),
   * and keeps it in the heads' history.
   * @returns false when another head was stored first (this one is dropped)
   */
  async storeHead(head: TreeHead, previous: StoredHead | null): Promise<boolean> {
    const entity = { ...LATEST_HEAD, head: JSON.stringify(head) };
    try {
      if (previous === null) await this.stateTable.createEntity(entity);
      else await this.stateTable.updateEntity(entity, 'Replace', { etag: previous.etag });
    } catch (error) {
      const status = storageStatus(error);
      if (status === 409 || status === 412) return false;
      throw error;
    }
    await this.stateTable.upsertEntity({ partitionKey: HEADS_PARTITION, rowKey: head.timestamp, head: JSON.stringify(head) }, 'Replace');
    return true;
  }

  /**
   * Writes a whole tree of `entries` into an empty log at storage level, in entity-group transactions:
   * for the benchmark's seeding (the state row last, with no pending append).
   * @param options `concurrency`: transactions in flight, default 4
   */
  async fill(entries: readonly LogEntry[], options: { concurrency?: number } = {}): Promise<void> {
    const values = entries.flatMap((entry) => entry.leaves);
    const rows = pendingRows({ start: 0, frontier: [], entries });
    await forEachConcurrently(upsertTransactions(rows), options.concurrency ?? 4, async (actions) => {
      await this.table.submitTransaction(actions);
    });
    const { frontier } = appendLeaves(0, [], values.map(leafHash));
    await this.stateTable.upsertEntity({ ...STATE, size: values.length, frontier: frontierToText(frontier), pending: '' }, 'Replace');
  }
}
