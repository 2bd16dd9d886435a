/**
 * Rows an owner may have at most a fixed number of (webhooks, API keys), in one Table partition per
 * owner: beside the rows, a `count` row holds how many there are. Each insert or delete changes the
 * count row in the same entity-group transaction as the row it counts, with the count's ETag, so
 * concurrent insertions can never take an owner past the limit; a change that lost to a concurrent one
 * reads the count again (`../retryOnConflict.ts`).
 */
import type { TableClient, TableEntity, TransactionAction } from '@azure/data-tables';
import type { AppError } from '../errors.js';
import { retryOnConflict } from '../retryOnConflict.js';
import { storageStatus } from './keys.js';

const COUNT_ROW = 'count';


export class CountedRows {
  /**
   * @param table the table holding the rows and their owners' count rows
   * @param contended the error to throw when concurrent changes kept winning
   */
  constructor(
    private readonly table: TableClient,
    private readonly contended: () => AppError,
  ) {}

  /**
   * Inserts `entity` and counts it, if its partition holds fewer than `limit` counted rows.
   * @returns `false` (nothing written) when the partition already holds `limit`
   * @throws the `contended` error when concurrent changes kept winning
   */
  async insert(entity: TableEntity, limit: number): Promise<boolean> {
    const partitionKey = entity.partitionKey;
    return await retryOnConflict(
      async () => {
        const count = await this.readCount(partitionKey);
        if ((count?.value ?? 0) >= limit) return false;
        const countEntity = { partitionKey, rowKey: COUNT_ROW, value: (count?.value ?? 0) + 1 };
        const actions: TransactionAction[] = [
          ['create', entity],
          count === null ? ['create', countEntity] : ['update', countEntity, 'Replace', { etag: count.etag }],
        ];
        await this.table.submitTransaction(actions);
        return true;
      },
      { isConflict: (error) => storageStatus(error) === 412 || storageStatus(error) === 409, exhausted: this.exhausted },
    );
  }

  /**
   * Deletes the row and uncounts it.
   * @returns `false` when there is no such row (also when a concurrent request deleted it)
   * @throws the `contended` error when concurrent changes kept winning
   */
  async delete(partitionKey: string, rowKey: string): Promise<boolean> {
    return await retryOnConflict(
      async () => {
        if (!(await this.exists(partitionKey, rowKey))) return false;
        const count = await this.readCount(partitionKey);
        const actions: TransactionAction[] = [['delete', { partitionKey, rowKey }]];
        if (count !== null) actions.push(['update', { partitionKey, rowKey: COUNT_ROW, value: Math.max(0, count.value - 1) }, 'Replace', { etag: count.etag }]);
        await this.table.submitTransaction(actions);
        return true;
      },
      // 404: deleted by a concurrent request (the next round sees it gone); 412: the count changed.
      { isConflict: (error) => storageStatus(error) === 412 || storageStatus(error) === 404, exhausted: this.exhausted },
    );
  }

  /** What every round lost answers: the owner's contended problem. */
  private readonly exhausted = (): never => {
    throw this.contended();
  };

  private async exists(partitionKey: string, rowKey: string): Promise<boolean> {
    try {
      await this.table.getEntity(partitionKey, rowKey, { queryOptions: { select: ['PartitionKey'] } });
      return true;
    } catch (error) {
      if (storageStatus(error) === 404) return false;
      throw error;
    }
  }

  private async readCount(partitionKey: string): Promise<{ value: number; etag: string } | null> {
    try {
      const entity = await this.table.getEntity<{ value: number }>(partitionKey, COUNT_ROW);
      return { value: Number(entity.value), etag: entity.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }
}
