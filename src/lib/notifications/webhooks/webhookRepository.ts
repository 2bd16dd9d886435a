/**
 * Webhooks, table `webhooks` (docs/api.md#webhooks, docs/architecture.md#tables): PartitionKey
 * `org_<organizationId>`, the organisation's (before organisations: the user id of the account that
 * made them, a partition read only to copy them into the organisation's, `organizationWebhooks.ts`);
 * RowKey `webhook_<id>` for each webhook, `count` for the number of webhooks in the partition
 * ({@link CountedRows}: concurrent creations can never take an organisation past the limit), and
 * `migrated` once the webhooks its members had before organisations are copied in.
 *
 * Row properties of a webhook: `id`, `url`, `events` (JSON array), `description` (absent for none),
 * `createdAt`, `encryptedSecret`, and `migratedFrom` (the old partition of a copied webhook).
 */
import { odata, type TableClient } from '@azure/data-tables';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../outbox.js';
import type { Webhook } from './model.js';
import { AppError } from '../../errors.js';
import { CountedRows } from '../../storage/countedRows.js';
import { entityOrNull, ownedRow, storageStatus } from '../../storage/keys.js';
import { problem } from '../../problems.js';

const PREFIX = 'webhook_';
const MIGRATED_ROW = 'migrated';

/** The organisation already has as many webhooks as allowed. */
export class WebhookLimitError extends Error {
  constructor(readonly limit: number) {
    super(`at most ${limit} webhooks`);
    this.name = 'WebhookLimitError';
  }
}

type WebhookEntity = {
  partitionKey: string;
  rowKey: string;
  id: string;
  url: string;
  events: string;
  description?: string;
  createdAt: string;
  encryptedSecret: string;
  migratedFrom?: string;
};

/** The answer when concurrent changes of the partition's webhooks kept winning. */
function contended(): AppError {
  return problem('webhooksContended');
}

export class WebhookRepository {
  private readonly counted: CountedRows;

  constructor(private readonly table: TableClient) {
    this.counted = new CountedRows(table, contended);
  }

  /**
   * Adds a webhook, and counts it, if its partition has fewer than `limit`.
   * @throws WebhookLimitError when the partition already has `limit` webhooks; AppError 409 `webhooks-contended` when concurrent changes kept winning
   */
  async create(webhook: Webhook, limit: number): Promise<void> {
    if (!(await this.counted.insert(toEntity(webhook), limit))) throw new WebhookLimitError(limit);
  }

  /**
   * Adds a webhook copied from an old partition (`webhook.migratedFrom`), counted without a limit (an
   * organisation keeps every webhook its members had); nothing when it is there already.
   */
  async copyIn(webhook: Webhook): Promise<void> {
    const entity = toEntity(webhook);
    if (await this.exists(entity.partitionKey, entity.rowKey)) return;
    try {
      await this.counted.insert(entity, Number.MAX_SAFE_INTEGER);
    } catch (error) {
      // A concurrent copy of the same webhook wins every round: it is there.
      if (!(await this.exists(entity.partitionKey, entity.rowKey))) throw error;
    }
  }

  /** Whether the partition's old webhooks were copied in ({@link markMigrated}). */
  async migrated(partition: string): Promise<boolean> {
    return await this.exists(partition, MIGRATED_ROW);
  }

  /** Records that the partition's old webhooks are copied in. */
  async markMigrated(partition: string, at: string): Promise<void> {
    await this.table.upsertEntity({ partitionKey: partition, rowKey: MIGRATED_ROW, at }, 'Replace');
  }

  /** The partition's webhooks, oldest first (ids are UUIDv7). */
  async list(ownerId: string): Promise<Webhook[]> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey ge ${PREFIX} and RowKey lt ${`${PREFIX}~`}`;
    const webhooks: Webhook[] = [];
    for await (const entity of this.table.listEntities<WebhookEntity>({ queryOptions: { filter } })) webhooks.push(fromEntity(ownerId, entity));
    return webhooks;
  }

  /** The partition's webhook with this id, or `null` (also for another organisation's). */
  async read(ownerId: string, id: string): Promise<Webhook | null> {
    const entity = await entityOrNull<WebhookEntity>(this.table, ownerId, PREFIX + id);
    return entity === null ? null : fromEntity(ownerId, entity);
  }

  private async exists(partitionKey: string, rowKey: string): Promise<boolean> {
    try {
      await this.table.getEntity(partitionKey, rowKey);
      return true;
    } catch (error) {
      if (storageStatus(error) === 404) return false;
      throw error;
    }
  }

  /**
   * Removes the partition's webhook and uncounts it.
   * @returns `false` when there is no such webhook
   */
  async delete(ownerId: string, id: string): Promise<boolean> {
    return await this.counted.delete(ownerId, PREFIX + id);
  }
}

function toEntity(webhook: Webhook): WebhookEntity {
  return {
    ...ownedRow(PREFIX, webhook),
    url: webhook.url,
    events: JSON.stringify(webhook.events),
    ...(webhook.description === null ? {} : { description: webhook.description }),
    createdAt: webhook.createdAt,
    encryptedSecret: webhook.encryptedSecret,
    ...(webhook.migratedFrom == null ? {} : { migratedFrom: webhook.migratedFrom }),
  };
}

function fromEntity(ownerId: string, entity: WebhookEntity): Webhook {
  const events = JSON.parse(entity.events) as string[];
  return {
    id: entity.id,
    ownerId,
    url: entity.url,
    events: WEBHOOK_EVENT_TYPES.filter((type) => events.includes(type)) as WebhookEventType[],
    description: entity.description ?? null,
    createdAt: entity.createdAt,
    encryptedSecret: entity.encryptedSecret,
    migratedFrom: entity.migratedFrom ?? null,
  };
}
