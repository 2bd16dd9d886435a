/**
 * Sealed documents by hash, table `seals`: PartitionKey = lower-case hex SHA-256 of the sealed PDF,
 * RowKey = `seal`. Lets anyone holding a PDF ask whether this service sealed it (docs/api.md#evidence) with a
 * point read, without knowing its owner.
 */
import type { TableClient } from '@azure/data-tables';
import { storageStatus } from './keys.js';

export interface SealRecord {
  sha256: string;
  envelopeId: string;
  completedAt: string;
  documentName: string;
}

const ROW_KEY = 'seal';

export class SealRepository {
  constructor(private readonly table: TableClient) {}

  /** Records a seal; idempotent (a retried completion writes the same record again). */
  async put(seal: SealRecord): Promise<void> {
    await this.table.upsertEntity(
      { partitionKey: seal.sha256, rowKey: ROW_KEY, envelopeId: seal.envelopeId, completedAt: seal.completedAt, documentName: seal.documentName },
      'Replace',
    );
  }

  /** The seal with this SHA-256, or `null`. */
  async find(sha256: string): Promise<SealRecord | null> {
    try {
      const entity = await this.table.getEntity<{ envelopeId: string; completedAt: string; documentName: string }>(sha256, ROW_KEY);
      return { sha256, envelopeId: entity.envelopeId, completedAt: entity.completedAt, documentName: entity.documentName };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }
}
