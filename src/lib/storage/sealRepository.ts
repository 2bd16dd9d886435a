/**
 * Sealed documents by hash, table `seals`: PartitionKey = lower-case hex SHA-256 of the sealed PDF,
 * RowKey = `seal`. Lets anyone holding a PDF ask whether this service sealed it (docs/api.md#evidence) with a
 * point read, without knowing its owner.
 */
import type { TableClient } from '@azure/data-tables';
import { KeyedRows } from './keyedRows.js';

export interface SealRecord {
  sha256: string;
  envelopeId: string;
  completedAt: string;
  documentName: string;
}

const ROW_KEY = 'seal';

export class SealRepository {
  private readonly rows: KeyedRows<{ envelopeId: string; completedAt: string; documentName: string }>;

  constructor(table: TableClient) {
    this.rows = new KeyedRows(table, ROW_KEY);
  }

  /** Records a seal; idempotent (a retried completion writes the same record again). */
  async put(seal: SealRecord): Promise<void> {
    await this.rows.put(seal.sha256, { envelopeId: seal.envelopeId, completedAt: seal.completedAt, documentName: seal.documentName });
  }

  /** The seal with this SHA-256, or `null`. */
  async find(sha256: string): Promise<SealRecord | null> {
    const entity = await this.rows.get(sha256);
    return entity === null ? null : { sha256, envelopeId: entity.envelopeId, completedAt: entity.completedAt, documentName: entity.documentName };
  }
}
