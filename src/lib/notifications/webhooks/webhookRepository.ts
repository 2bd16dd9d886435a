/**
 * Webhooks, table `webhooks` (docs/api.md#webhooks): PartitionKey = the owner's user id; RowKey
 * `webhook_<id>` for each webhook, and `count` for the number of webhooks the owner has
 * ({@link CountedRows}: concurrent creations can never take an owner past the limit).
 *
 * Row properties of a webhook: `id`, `url`, `events` (JSON array), `description` (absent for none),
 * `createdAt`, `encryptedSecret`.
 */
import { odata, type TableClient } from '@azure/data-tables';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../outbox.js';
import type { Webhook } from './model.js';
import { AppError } from '../../errors.js';
import { CountedRows } from '../../storage/countedRows.js';
import { storageStatus } from '../../storage/keys.js';
import { problem } from '../../problems.js';

const PREFIX = 'webhook_';

/** The owner already has as many webhooks as allowed. */
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
};

/** The answer when concurrent changes of the owner's webhooks kept winning. */
function contended(): AppError {
  return problem('webhooksContended');
}

export class WebhookRepository {
  private readonly counted: CountedRows;

  constructor(private readonly table: TableClient) {
    this.counted = new CountedRows(table, contended);
  }

  /**
   * Adds a webhook, and counts it, if the owner has fewer than `limit`.
   * @throws WebhookLimitError when the owner already has `limit` webhooks; AppError 409 `webhooks-contended` when concurrent changes kept winning
   */
  async create(webhook: Webhook, limit: number): Promise<void> {
    if (!(await this.counted.insert(toEntity(webhook), limit))) throw new WebhookLimitError(limit);
  }

  /** The owner's webhooks, oldest first (ids are UUIDv7). */
  async list(ownerId: string): Promise<Webhook[]> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey ge ${PREFIX} and RowKey lt ${`${PREFIX}~`}`;
    const webhooks: Webhook[] = [];
    for await (const entity of this.table.listEntities<WebhookEntity>({ queryOptions: { filter } })) webhooks.push(fromEntity(ownerId, entity));
    return webhooks;
  }

  /** The owner's webhook with this id, or `null` (also for another owner's). */
  async read(ownerId: string, id: string): Promise<Webhook | null> {
    try {
      return fromEntity(ownerId, await this.table.getEntity<WebhookEntity>(ownerId, PREFIX + id));
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Removes the owner's webhook and uncounts it.
   * @returns `false` when there is no such webhook
   */
  async delete(ownerId: string, id: string): Promise<boolean> {
    return await this.counted.delete(ownerId, PREFIX + id);
  }
}

function toEntity(webhook: Webhook): WebhookEntity {
  return {
    partitionKey: webhook.ownerId,
    rowKey: PREFIX + webhook.id,
    id: webhook.id,
    url: webhook.url,
    events: JSON.stringify(webhook.events),
    ...(webhook.description === null ? {} : { description: webhook.description }),
    createdAt: webhook.createdAt,
    encryptedSecret: webhook.encryptedSecret,
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
  };
}
