/**
 * Webhooks, table `webhooks` (CONTRACT §12.2): PartitionKey = the owner's user id; RowKey
 * `webhook_<id>` for each webhook, and `count` for the number of webhooks the owner has. The count
 * row changes in the same entity-group transaction as the webhook it counts, with its ETag, so
 * concurrent creations can never take an owner past the limit.
 *
 * Row properties of a webhook: `id`, `url`, `events` (JSON array), `description` (absent for none),
 * `createdAt`, `encryptedSecret`.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../notifications/outbox.js';
import type { Webhook } from '../notifications/webhooks/model.js';
import { AppError } from '../errors.js';
import { storageStatus } from './keys.js';

const COUNT_ROW = 'count';
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

/** Times a change retries when a concurrent one changed the count first (each round one writer wins). */
const CONTENTION_RETRIES = 30;

/** Random delay growing with the round, milliseconds: spreads contending writers. */
async function backoff(round: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * (round + 1))));
}

/** The answer when concurrent changes of the owner's webhooks kept winning. */
function contended(): AppError {
  return new AppError('conflict', 'The webhooks are being changed by other requests at the same time; retry.', { type: 'webhooks-contended' });
}

export class WebhookRepository {
  constructor(private readonly table: TableClient) {}

  /**
   * Adds a webhook, and counts it, if the owner has fewer than `limit`.
   * @throws WebhookLimitError when the owner already has `limit` webhooks; AppError 409 `webhooks-contended` when concurrent changes kept winning
   */
  async create(webhook: Webhook, limit: number): Promise<void> {
    for (let round = 0; ; round++) {
      const count = await this.readCount(webhook.ownerId);
      if ((count?.value ?? 0) >= limit) throw new WebhookLimitError(limit);
      const countEntity = { partitionKey: webhook.ownerId, rowKey: COUNT_ROW, value: (count?.value ?? 0) + 1 };
      const actions: TransactionAction[] = [
        ['create', toEntity(webhook)],
        count === null ? ['create', countEntity] : ['update', countEntity, 'Replace', { etag: count.etag }],
      ];
      try {
        await this.table.submitTransaction(actions);
        return;
      } catch (error) {
        const status = storageStatus(error);
        if (status !== 412 && status !== 409) throw error;
        if (round >= CONTENTION_RETRIES) throw contended();
        await backoff(round);
      }
    }
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
    for (let round = 0; ; round++) {
      if ((await this.read(ownerId, id)) === null) return false;
      const count = await this.readCount(ownerId);
      const actions: TransactionAction[] = [['delete', { partitionKey: ownerId, rowKey: PREFIX + id }]];
      if (count !== null) actions.push(['update', { partitionKey: ownerId, rowKey: COUNT_ROW, value: Math.max(0, count.value - 1) }, 'Replace', { etag: count.etag }]);
      try {
        await this.table.submitTransaction(actions);
        return true;
      } catch (error) {
        const status = storageStatus(error);
        // 404: deleted by a concurrent request (the next round sees it gone); 412: the count changed.
        if (status !== 412 && status !== 404) throw error;
        if (round >= CONTENTION_RETRIES) throw contended();
        await backoff(round);
      }
    }
  }

  private async readCount(ownerId: string): Promise<{ value: number; etag: string } | null> {
    try {
      const entity = await this.table.getEntity<{ value: number }>(ownerId, COUNT_ROW);
      return { value: Number(entity.value), etag: entity.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
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
