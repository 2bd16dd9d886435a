/**
 * Storage of outbox batches (see `outbox.ts`): the row `outbox_<batchId>` in table `envelopes`, in the
 * owner's partition, so it is written in the same entity-group transaction as the change it reports.
 *
 * Row properties: `batchId`, `envelopeId`, `createdAt`, `messages` (JSON of {@link OutboxMessage}[],
 * split by `writeLongText`), `dispatchedAt` (set once every message is on its queue), and per message
 * `state<index>`: `sent` or `failed` once the queue-triggered function finished with it. Each message's
 * state is its own property, written with an unconditional merge, so the functions working on the
 * messages of one batch never contend.
 *
 * Lifecycle: {@link OutboxStore.prepare} before the transaction (records a due-index entry one minute
 * ahead, so the sweeper re-queues the batch if this process dies before dispatching it) and returns
 * the row to add to the transaction; {@link OutboxStore.dispatch} after it commits (one queue message
 * per message; then the due entry goes).
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
import type { QueueClient } from '@azure/storage-queue';
import type { DueIndex } from '../storage/dueIndex.js';
import { storageStatus } from '../storage/keys.js';
import { readLongText, writeLongText } from '../storage/longText.js';
import type { OutboxBatch, OutboxMessage } from './outbox.js';

/** Seconds after which the sweeper re-queues a batch that was never dispatched (CONTRACT §12.1). */
export const OUTBOX_REDISPATCH_SECONDS = 60;
/** The due-index kind of undispatched outbox batches. */
export const OUTBOX_DUE_KIND = 'outbox';

/** What a queue message carries: where to find one message of a batch. Never the message itself. */
export interface OutboxPointer {
  ownerId: string;
  batchId: string;
  /** Index of the message in the batch. */
  index: number;
}

export type MessageState = 'sent' | 'failed';

/** A batch as stored, with the state of each message. */
export interface StoredOutboxBatch extends OutboxBatch {
  dispatchedAt: string | null;
  states: (MessageState | null)[];
}

export function outboxRowKey(batchId: string): string {
  return `outbox_${batchId}`;
}

/** Queue message text for a pointer: base64 of its JSON, the encoding the Functions host's queue trigger expects. */
export function encodePointer(pointer: OutboxPointer): string {
  return Buffer.from(JSON.stringify(pointer), 'utf8').toString('base64');
}

export interface OutboxQueues {
  /** Queue of `email` messages. */
  email: QueueClient;
  /** Queue of webhook `event` messages. */
  events: QueueClient;
}

export class OutboxStore {
  constructor(
    private readonly table: TableClient,
    private readonly queues: OutboxQueues,
    private readonly dueIndex: DueIndex,
  ) {}

  /**
   * Makes a batch ready to be written with a change: records its due-index entry, and returns the
   * transaction action that creates its row (add it to the change's entity-group transaction).
   */
  async prepare(batch: OutboxBatch): Promise<TransactionAction> {
    await this.dueIndex.put(this.dueEntry(batch));
    const entity: Record<string, unknown> & { partitionKey: string; rowKey: string } = {
      partitionKey: batch.ownerId,
      rowKey: outboxRowKey(batch.id),
      batchId: batch.id,
      envelopeId: batch.envelopeId,
      createdAt: batch.createdAt,
    };
    writeLongText(entity, 'messages', JSON.stringify(batch.messages));
    return ['create', entity];
  }

  /**
   * Puts one queue message per message of a committed batch on its queue, then marks the batch
   * dispatched and drops its due entry. Never throws for storage faults: the change is committed, and
   * the sweeper dispatches the batch again after {@link OUTBOX_REDISPATCH_SECONDS}; the fault is logged.
   * Dispatching twice is harmless: the functions skip messages whose state is set.
   */
  async dispatch(batch: Pick<OutboxBatch, 'id' | 'ownerId' | 'createdAt' | 'messages'>, log: (message: string) => void = console.warn): Promise<boolean> {
    try {
      const stored = await this.read(batch.ownerId, batch.id);
      await Promise.all(
        batch.messages.map((message, index) =>
          stored?.states[index] != null ? undefined : this.queueFor(message).sendMessage(encodePointer({ ownerId: batch.ownerId, batchId: batch.id, index })),
        ),
      );
      await this.table.updateEntity({ partitionKey: batch.ownerId, rowKey: outboxRowKey(batch.id), dispatchedAt: new Date().toISOString() }, 'Merge');
      await this.dueIndex.remove(this.dueEntry(batch));
      return true;
    } catch (error) {
      log(`Outbox batch ${batch.id} not dispatched yet (the sweeper retries): ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  /** The stored batch, or `null` when it does not exist (its change failed). */
  async read(ownerId: string, batchId: string): Promise<StoredOutboxBatch | null> {
    let entity: Record<string, unknown>;
    try {
      entity = await this.table.getEntity<Record<string, unknown>>(ownerId, outboxRowKey(batchId));
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
    const messages = JSON.parse(readLongText(entity, 'messages')) as OutboxMessage[];
    return {
      id: batchId,
      ownerId,
      envelopeId: String(entity.envelopeId),
      createdAt: String(entity.createdAt),
      messages,
      dispatchedAt: (entity.dispatchedAt as string | undefined) ?? null,
      states: messages.map((_, index) => (entity[`state${index}`] as MessageState | undefined) ?? null),
    };
  }

  /** Records what became of one message (unconditional merge of its own property). */
  async setState(pointer: OutboxPointer, state: MessageState): Promise<void> {
    await this.table.updateEntity({ partitionKey: pointer.ownerId, rowKey: outboxRowKey(pointer.batchId), [`state${pointer.index}`]: state }, 'Merge');
  }

  private queueFor(message: OutboxMessage): QueueClient {
    return message.kind === 'email' ? this.queues.email : this.queues.events;
  }

  private dueEntry(batch: Pick<OutboxBatch, 'id' | 'ownerId' | 'createdAt'>) {
    const dueAt = new Date(Date.parse(batch.createdAt) + OUTBOX_REDISPATCH_SECONDS * 1000).toISOString();
    return { kind: OUTBOX_DUE_KIND, dueAt, ownerId: batch.ownerId, id: batch.id };
  }
}
