/**
 * A table that holds one row per key: PartitionKey = the key, RowKey = a fixed name. Written
 * whole and idempotently (the same record again is harmless), read with one point read.
 */
import type { TableClient } from '@azure/data-tables';
import { entityOrNull } from './keys.js';

export class KeyedRows<T extends Record<string, string>> {
  /**
   * @param table the table
   * @param rowKey the RowKey every row has
   */
  constructor(
    private readonly table: TableClient,
    private readonly rowKey: string,
  ) {}

  /** Writes the row of `key` (Table Storage's Insert Or Replace Entity). */
  async put(key: string, properties: T): Promise<void> {
    await this.table.upsertEntity({ partitionKey: key, rowKey: this.rowKey, ...properties }, 'Replace');
  }

  /** The row of `key` (its properties and Table Storage's own), or `null` when there is none. */
  async get(key: string): Promise<T | null> {
    return await entityOrNull<T>(this.table, key, this.rowKey);
  }
}
