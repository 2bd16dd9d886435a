/**
 * Group commit for single-entity writes to one table: a write whose partition has no write in flight
 * goes out at once, as a plain request; writes to that partition that arrive meanwhile wait for it
 * and then go out together as one entity-group transaction (at most 100 actions and about 3 MiB).
 * Under load this turns many small requests of one owner into few, at no cost when there is no load.
 *
 * A transaction is all or nothing, so when one of its writes is refused (an insert of a row that
 * exists, an ETag that no longer matches) nothing of it is written, and each of its writes is then
 * sent alone, so that each gets its own answer. Two writes of the same row never share a
 * transaction (Table Storage refuses that): the second waits for the next one. A delete always goes
 * alone: a transaction's delete cannot carry an ETag condition.
 */
import type { TableClient, TableEntity, TransactionAction } from '@azure/data-tables';

/** A single-entity write: insert, replace or merge with an ETag condition, or delete with one. */
export type GroupedWrite =
  | { kind: 'create'; entity: TableEntity }
  | { kind: 'update'; entity: TableEntity; mode: 'Replace' | 'Merge'; etag: string }
  | { kind: 'delete'; partitionKey: string; rowKey: string; etag: string };

interface Pending {
  write: GroupedWrite;
  /** Estimated size in the request, bytes. */
  bytes: number;
  resolve: (etag: string | undefined) => void;
  reject: (error: unknown) => void;
}

/** Most actions of one entity-group transaction (Table Storage: 100). */
const MAX_ACTIONS = 100;
/** Largest transaction body gathered, bytes (Table Storage: 4 MiB), with room for the envelope of each action. */
const MAX_BYTES = 3 * 1024 * 1024;

export class GroupCommit {
  private readonly waiting = new Map<string, Pending[]>();

  constructor(private readonly table: TableClient) {}

  /**
   * Writes `write`, alone or with others of its partition.
   * @returns the new ETag of the row (`undefined` for a delete)
   * @throws the storage error of this write alone (404, 409, 412, ...), as a plain request would
   */
  async write(write: GroupedWrite): Promise<string | undefined> {
    const partition = partitionOf(write);
    return await new Promise<string | undefined>((resolve, reject) => {
      const pending: Pending = { write, bytes: estimatedBytes(write), resolve, reject };
      const queue = this.waiting.get(partition);
      if (queue !== undefined) {
        queue.push(pending);
        return;
      }
      this.waiting.set(partition, []);
      void this.send(partition, [pending]);
    });
  }

  /** Sends `batch`, then what gathered for the partition meanwhile, until nothing waits. */
  private async send(partition: string, batch: Pending[]): Promise<void> {
    for (let next: Pending[] | undefined = batch; next !== undefined; next = this.takeBatch(partition)) {
      await (next.length === 1 ? this.sendAlone(next[0]!) : this.sendTogether(next));
    }
  }

  /** The next transaction's writes from the partition's queue; `undefined` (and the partition idle) when none wait. */
  private takeBatch(partition: string): Pending[] | undefined {
    const queue = this.waiting.get(partition)!;
    if (queue.length === 0) {
      this.waiting.delete(partition);
      return undefined;
    }
    const batch: Pending[] = [];
    const rows = new Set<string>();
    let bytes = 0;
    while (queue.length > 0 && batch.length < MAX_ACTIONS) {
      const candidate = queue[0]!;
      const row = rowOf(candidate.write);
      if (candidate.write.kind === 'delete') {
        if (batch.length === 0) batch.push(queue.shift()!);
        break;
      }
      if (rows.has(row) || (batch.length > 0 && bytes + candidate.bytes > MAX_BYTES)) break;
      rows.add(row);
      bytes += candidate.bytes;
      batch.push(queue.shift()!);
    }
    return batch;
  }

  private async sendAlone(pending: Pending): Promise<void> {
    try {
      pending.resolve(await this.single(pending.write));
    } catch (error) {
      pending.reject(error);
    }
  }

  private async sendTogether(batch: Pending[]): Promise<void> {
    let etags: (string | undefined)[];
    try {
      // takeBatch sends every delete alone, so these are inserts and updates.
      const response = await this.table.submitTransaction(batch.map((pending) => actionOf(pending.write as Exclude<GroupedWrite, { kind: 'delete' }>)));
      // In the order of the actions (an update's sub-response names no row).
      etags = batch.map((pending, index) => {
        const sub = response.subResponses[index];
        return sub === undefined || (sub.rowKey !== undefined && sub.rowKey !== rowOf(pending.write)) ? undefined : sub.etag;
      });
    } catch {
      // Nothing was written: each write alone gets its own answer.
      await Promise.all(batch.map((pending) => this.sendAlone(pending)));
      return;
    }
    batch.forEach((pending, index) => {
      const etag = etags[index];
      if (etag === undefined) pending.reject(new Error(`The transaction's answer carries no ETag for row ${rowOf(pending.write)}.`));
      else pending.resolve(etag);
    });
  }

  private async single(write: GroupedWrite): Promise<string | undefined> {
    switch (write.kind) {
      case 'create':
        return (await this.table.createEntity(write.entity)).etag;
      case 'update':
        return (await this.table.updateEntity(write.entity, write.mode, { etag: write.etag })).etag;
      case 'delete':
        await this.table.deleteEntity(write.partitionKey, write.rowKey, { etag: write.etag });
        return undefined;
    }
  }
}

function partitionOf(write: GroupedWrite): string {
  return write.kind === 'delete' ? write.partitionKey : write.entity.partitionKey;
}

function rowOf(write: GroupedWrite): string {
  return write.kind === 'delete' ? write.rowKey : write.entity.rowKey;
}

/** The transaction action of an insert or an update (deletes never go in a transaction). */
function actionOf(write: Exclude<GroupedWrite, { kind: 'delete' }>): TransactionAction {
  return write.kind === 'create' ? ['create', write.entity] : ['update', write.entity, write.mode, { etag: write.etag }];
}

/** The entity's size as JSON, UTF-16 units: a bound good enough to keep a transaction under its limit. */
function estimatedBytes(write: GroupedWrite): number {
  return write.kind === 'delete' ? 200 : JSON.stringify(write.entity).length * 2 + 200;
}
