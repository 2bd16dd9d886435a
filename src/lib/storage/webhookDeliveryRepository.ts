/**
 * Webhook deliveries, table `webhookDeliveries` (docs/api.md#webhooks): PartitionKey = the webhook id, so a
 * webhook's deliveries and its log are one partition (recorded together in one transaction, listed
 * with one query, deleted with the webhook).
 *
 * - `delivery_<eventId>`: one event for this webhook ({@link DeliveryRecord}); its insert is what
 *   makes the fan-out idempotent per (event, webhook). Properties: `ownerId`, `event` (JSON of the
 *   body as delivered, split by `writeLongText`), `createdAt`, `autoAttempt`, `recordedAutoAttempt`,
 *   `attemptCount`, `autoAttemptNumber`, `claimedAt`, `status`, `recentRedeliveries` (JSON).
 * - `attempt_<13-digit inverted epoch ms>_<attemptId>`: one attempt of the log
 *   ({@link DeliveryAttemptView}); the inverted time makes the natural key order newest first. The
 *   attempt id is a UUIDv7 carrying the same time, so an id finds its row with one point read.
 */
import { odata, type TableClient, type TransactionAction } from '@azure/data-tables';
import type { WebhookEventType } from '../notifications/outbox.js';
import type { DeliveryAttemptView, DeliveryRecord } from '../notifications/webhooks/model.js';
import { storageStatus } from './keys.js';
import { readLongText, writeLongText } from './longText.js';

const DELIVERY_PREFIX = 'delivery_';
const ATTEMPT_PREFIX = 'attempt_';
const MAX_EPOCH_MS = 9_999_999_999_999;

/** The epoch milliseconds of a UUIDv7 (its first 48 bits), or `null` for anything else. */
export function uuidV7Time(id: string): number | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)) return null;
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

function attemptRowKey(id: string): string | null {
  const time = uuidV7Time(id);
  if (time === null) return null;
  return `${ATTEMPT_PREFIX}${String(MAX_EPOCH_MS - time).padStart(13, '0')}_${id}`;
}

/** A delivery with the ETag it was read with. */
export interface StoredDelivery {
  record: DeliveryRecord;
  etag: string;
}

type Entity = Record<string, unknown> & { partitionKey: string; rowKey: string };

export class WebhookDeliveryRepository {
  constructor(private readonly table: TableClient) {}

  /**
   * Records a new delivery, unless one exists for the same event and webhook.
   * @returns `null` when it was created, else the existing delivery
   */
  async create(record: DeliveryRecord): Promise<StoredDelivery | null> {
    try {
      await this.table.createEntity(toDeliveryEntity(record));
      return null;
    } catch (error) {
      if (storageStatus(error) !== 409) throw error;
    }
    const existing = await this.read(record.webhookId, record.event.id);
    if (existing === null) throw new Error(`delivery ${record.event.id} of webhook ${record.webhookId} conflicted but cannot be read`);
    return existing;
  }

  /** The delivery of this event at this webhook, or `null`. */
  async read(webhookId: string, eventId: string): Promise<StoredDelivery | null> {
    try {
      const entity = await this.table.getEntity<Entity>(webhookId, DELIVERY_PREFIX + eventId);
      return { record: fromDeliveryEntity(entity), etag: entity.etag };
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Replaces the delivery only if it is still as read (claiming an attempt).
   * @returns `false` when it changed in between
   */
  async replaceIfUnchanged(previous: StoredDelivery, next: DeliveryRecord): Promise<boolean> {
    try {
      await this.table.updateEntity(toDeliveryEntity(next), 'Replace', { etag: previous.etag });
      return true;
    } catch (error) {
      if (storageStatus(error) === 412) return false;
      throw error;
    }
  }

  /**
   * Appends an attempt to the log and, for an automatic attempt, merges what it changed into its
   * delivery (only those properties, so a concurrent redelivery's claim is kept), in one transaction.
   */
  async recordAttempt(
    webhookId: string,
    eventId: string,
    attempt: DeliveryAttemptView,
    changes: Pick<DeliveryRecord, 'recordedAutoAttempt' | 'status'> | null,
  ): Promise<void> {
    const rowKey = attemptRowKey(attempt.id);
    if (rowKey === null) throw new Error(`attempt id ${attempt.id} is not a UUIDv7`);
    const actions: TransactionAction[] = [['create', toAttemptEntity(webhookId, rowKey, attempt)]];
    if (changes !== null) actions.push(['update', { partitionKey: webhookId, rowKey: DELIVERY_PREFIX + eventId, ...changes }, 'Merge']);
    await this.table.submitTransaction(actions);
  }

  /** The newest `limit` attempts of the webhook's log, newest first. */
  async listAttempts(webhookId: string, limit: number): Promise<DeliveryAttemptView[]> {
    const filter = odata`PartitionKey eq ${webhookId} and RowKey ge ${ATTEMPT_PREFIX} and RowKey lt ${`${ATTEMPT_PREFIX}~`}`;
    const attempts: DeliveryAttemptView[] = [];
    for await (const page of this.table.listEntities<Entity>({ queryOptions: { filter } }).byPage({ maxPageSize: limit })) {
      for (const entity of page) {
        attempts.push(fromAttemptEntity(entity));
        if (attempts.length >= limit) return attempts;
      }
    }
    return attempts;
  }

  /** One attempt of the webhook's log, or `null` (also for an id that is not a UUIDv7). */
  async readAttempt(webhookId: string, attemptId: string): Promise<DeliveryAttemptView | null> {
    const rowKey = attemptRowKey(attemptId);
    if (rowKey === null) return null;
    try {
      return fromAttemptEntity(await this.table.getEntity<Entity>(webhookId, rowKey));
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * Deletes the attempts older than the newest `keep`, so the log stays the size the endpoint shows.
   * Reads only row keys.
   * @returns how many it deleted
   */
  async pruneAttempts(webhookId: string, keep: number): Promise<number> {
    const filter = odata`PartitionKey eq ${webhookId} and RowKey ge ${ATTEMPT_PREFIX} and RowKey lt ${`${ATTEMPT_PREFIX}~`}`;
    const surplus: string[] = [];
    let seen = 0;
    for await (const entity of this.table.listEntities<Entity>({ queryOptions: { filter, select: ['RowKey'] } })) {
      if (++seen > keep) surplus.push(entity.rowKey);
    }
    await this.deleteRows(webhookId, surplus);
    return surplus.length;
  }

  /** Deletes every delivery and attempt of a webhook (after the webhook itself is deleted). */
  async deleteAll(webhookId: string): Promise<void> {
    const keys: string[] = [];
    for await (const entity of this.table.listEntities<Entity>({ queryOptions: { filter: odata`PartitionKey eq ${webhookId}`, select: ['RowKey'] } })) keys.push(entity.rowKey);
    await this.deleteRows(webhookId, keys);
  }

  private async deleteRows(partitionKey: string, rowKeys: string[]): Promise<void> {
    // An entity-group transaction holds at most 100 operations.
    for (let start = 0; start < rowKeys.length; start += 100) {
      const actions: TransactionAction[] = rowKeys.slice(start, start + 100).map((rowKey) => ['delete', { partitionKey, rowKey }]);
      try {
        await this.table.submitTransaction(actions);
      } catch (error) {
        // A row deleted concurrently fails the whole batch: delete the rest one by one.
        if (storageStatus(error) !== 404) throw error;
        for (const [, entity] of actions) {
          try {
            await this.table.deleteEntity(partitionKey, entity.rowKey);
          } catch (inner) {
            if (storageStatus(inner) !== 404) throw inner;
          }
        }
      }
    }
  }
}

function toDeliveryEntity(record: DeliveryRecord): Entity {
  const entity: Entity = {
    partitionKey: record.webhookId,
    rowKey: DELIVERY_PREFIX + record.event.id,
    ownerId: record.ownerId,
    createdAt: record.createdAt,
    autoAttempt: record.autoAttempt,
    recordedAutoAttempt: record.recordedAutoAttempt,
    attemptCount: record.attemptCount,
    autoAttemptNumber: record.autoAttemptNumber,
    status: record.status,
    recentRedeliveries: JSON.stringify(record.recentRedeliveries),
  };
  if (record.claimedAt !== null) entity.claimedAt = record.claimedAt;
  writeLongText(entity, 'event', JSON.stringify(record.event));
  return entity;
}

function fromDeliveryEntity(entity: Entity): DeliveryRecord {
  return {
    webhookId: entity.partitionKey,
    ownerId: String(entity.ownerId),
    event: JSON.parse(readLongText(entity, 'event')) as DeliveryRecord['event'],
    createdAt: String(entity.createdAt),
    autoAttempt: Number(entity.autoAttempt),
    recordedAutoAttempt: Number(entity.recordedAutoAttempt),
    attemptCount: Number(entity.attemptCount),
    autoAttemptNumber: Number(entity.autoAttemptNumber),
    claimedAt: typeof entity.claimedAt === 'string' ? entity.claimedAt : null,
    status: String(entity.status) as DeliveryRecord['status'],
    recentRedeliveries: JSON.parse(String(entity.recentRedeliveries ?? '[]')) as string[],
  };
}

function toAttemptEntity(webhookId: string, rowKey: string, attempt: DeliveryAttemptView): Entity {
  const entity: Entity = {
    partitionKey: webhookId,
    rowKey,
    id: attempt.id,
    eventId: attempt.eventId,
    eventType: attempt.eventType,
    attempt: attempt.attempt,
    at: attempt.at,
    outcome: attempt.outcome,
  };
  if (attempt.responseStatus !== null) entity.responseStatus = attempt.responseStatus;
  if (attempt.error !== null) entity.error = attempt.error;
  if (attempt.nextAttemptAt !== null) entity.nextAttemptAt = attempt.nextAttemptAt;
  return entity;
}

function fromAttemptEntity(entity: Entity): DeliveryAttemptView {
  return {
    id: String(entity.id),
    eventId: String(entity.eventId),
    eventType: String(entity.eventType) as WebhookEventType,
    attempt: Number(entity.attempt),
    at: String(entity.at),
    outcome: String(entity.outcome) as DeliveryAttemptView['outcome'],
    responseStatus: typeof entity.responseStatus === 'number' ? entity.responseStatus : null,
    error: typeof entity.error === 'string' ? entity.error : null,
    nextAttemptAt: typeof entity.nextAttemptAt === 'string' ? entity.nextAttemptAt : null,
  };
}
