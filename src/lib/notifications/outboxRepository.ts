/**
 * Storage of outbox batches (see `outbox.ts`): the row `outbox_<batchId>` in table `envelopes`, in the
 * owner's partition, so it is written in the same entity-group transaction as the change it reports.
 *
 * Row properties: `batchId`, `envelopeId`, `createdAt`, `messages` (JSON of {@link OutboxMessage}[],
 * split by `writeLongText`), `dispatchedAt` (set once every message is on its queue), and per message
 * `state<index>`: `sent` or `failed` once the queue-triggered function finished with it. Each message's
 * state is its own property, written with an unconditional merge, so the functions working on the
 * messages of one batch never contend. While a sender works on a message, its `state<index>` holds
 * a claim, `sending <until ISO 8601> <holder>` ({@link OutboxStore.claim}), which {@link OutboxStore.read}
 * shows as no state: a second delivery of the same queue message (a re-dispatch, or the queue's own
 * at-least-once delivery) then waits instead of sending the e-mail twice.
 *
 * Lifecycle: {@link OutboxStore.prepare} before the transaction (records a due-index entry one minute
 * ahead) and returns the row to add to the transaction; {@link OutboxStore.dispatch} after it commits
 * (one queue message per message). The due entry stays until every message of the batch has a final
 * state: the sweeper (`sweeper/sweep.ts` `redispatchDueOutbox`) dispatches a batch this process died before
 * dispatching, re-dispatches ({@link OutboxStore.redispatch}) each message stuck in `sending` past its
 * claim (its sender died, or its message reached the poison queue before its state could be
 * written), and looks again a minute later while any message is still on its way.
 *
 * A claim lasts {@link OUTBOX_CLAIM_SECONDS} and its sender renews it while it works, so a claim left
 * by a dead sender runs out within a minute; a delivery that finds another's claim running puts the
 * message back on the queue for when the claim ends ({@link OutboxStore.requeue}) instead of failing,
 * so a held claim never costs one of the queue's five dequeues. `redispatched<index>` counts the
 * sweeper's re-dispatches of a message; after {@link OUTBOX_MAX_REDISPATCHES} it is given up on.
 * `firstAttempt<index>` notes when the first claim of a message was made (a text message's
 * `Repeatability-First-Sent`, docs/api.md#sms).
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
import type { QueueClient } from '@azure/storage-queue';
import type { DueIndex, DueKind } from '../storage/dueIndex.js';
import { retryOnConflict, type RetryOnConflictOptions } from '../retryOnConflict.js';
import { storageStatus } from '../storage/keys.js';
import { readLongText, writeLongText } from '../storage/longText.js';
import type { OutboxBatch, OutboxMessage } from './outbox.js';

/** Seconds after which the sweeper re-queues a batch that was never dispatched (docs/api.md#e-mail). */
export const OUTBOX_REDISPATCH_SECONDS = 60;
/** The due-index kind of undispatched outbox batches. */
export const OUTBOX_DUE_KIND: DueKind = 'outbox';

/**
 * Seconds a sender's claim on a message keeps other deliveries of it waiting; the sender renews it
 * every third of that while it sends, so only a dead sender's claim runs out.
 */
export const OUTBOX_CLAIM_SECONDS = 60;
/** Re-dispatches of one message by the sweeper before it is marked `failed` (a message that kills its sender). */
export const OUTBOX_MAX_REDISPATCHES = 3;

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
  /** Per message: the running or lapsed claim of a sender, `null` when none (or a final state). */
  claims: ({ until: string; holder: string } | null)[];
  /** Per message: how often the sweeper re-dispatched it. */
  redispatches: number[];
  /** Per message: when the sweeper last re-dispatched it (ISO 8601), or `null`. */
  redispatchedAt: (string | null)[];
  /**
   * Per message: when a sender first claimed it (ISO 8601), or `null` before that; a text message's
   * `Repeatability-First-Sent` (docs/api.md#sms), the same on every attempt.
   */
  firstAttempts: (string | null)[];
}

/** What {@link OutboxStore.claim} found. */
export type OutboxClaim =
  /** The caller holds the message until it sets its state or releases it. */
  | { outcome: 'claimed'; batch: StoredOutboxBatch }
  /** The message already has a state: nothing to do. */
  | { outcome: 'done'; state: MessageState }
  /** Another sender holds it (until `until`). */
  | { outcome: 'busy'; until: string }
  /** No such batch or message. */
  | { outcome: 'gone' };

/** Decodes a pointer from its queue message value (already base64-decoded and JSON-parsed by the host), or `null`. */
export function parsePointer(value: unknown): OutboxPointer | null {
  const candidate = value as Partial<OutboxPointer> | null;
  if (typeof candidate !== 'object' || candidate === null) return null;
  if (typeof candidate.ownerId !== 'string' || candidate.ownerId === '' || typeof candidate.batchId !== 'string' || candidate.batchId === '') return null;
  if (typeof candidate.index !== 'number' || !Number.isInteger(candidate.index) || candidate.index < 0) return null;
  return { ownerId: candidate.ownerId, batchId: candidate.batchId, index: candidate.index };
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
  /** Queue of `sms` messages (docs/api.md#sms). */
  sms: QueueClient;
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
   * dispatched (its due entry stays, for the sweeper to check that every message arrives). Never
   * throws for storage faults: the change is committed, and the sweeper dispatches the batch again
   * after {@link OUTBOX_REDISPATCH_SECONDS}; the fault is logged. Dispatching twice is harmless: the
   * functions skip messages whose state is set.
   *
   * `justCommitted`: the batch's row was created by the commit this call follows, so no message has a
   * state yet and the row is not read first (one storage round trip fewer on every change).
   */
  async dispatch(
    batch: Pick<OutboxBatch, 'id' | 'ownerId' | 'createdAt' | 'messages'>,
    log: (message: string) => void = console.warn,
    { justCommitted = false }: { justCommitted?: boolean } = {},
  ): Promise<boolean> {
    try {
      const stored = justCommitted ? null : await this.read(batch.ownerId, batch.id);
      await Promise.all(
        batch.messages.map((message, index) =>
          stored?.states[index] != null ? undefined : this.queueFor(message).sendMessage(encodePointer({ ownerId: batch.ownerId, batchId: batch.id, index })),
        ),
      );
      // May be lost to a dying process: the due entry then brings the batch back to the sweeper,
      // which dispatches it again (harmless, above).
      await this.table.updateEntity({ partitionKey: batch.ownerId, rowKey: outboxRowKey(batch.id), dispatchedAt: new Date().toISOString() }, 'Merge');
      return true;
    } catch (error) {
      log(`Outbox batch ${batch.id} not dispatched yet (the sweeper retries): ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }

  /** The stored batch, or `null` when it does not exist (its change failed). */
  async read(ownerId: string, batchId: string): Promise<StoredOutboxBatch | null> {
    return (await this.readEntity(ownerId, batchId))?.batch ?? null;
  }

  private async readEntity(ownerId: string, batchId: string): Promise<{ batch: StoredOutboxBatch; entity: Record<string, unknown>; etag: string } | null> {
    let entity: Record<string, unknown> & { etag: string };
    try {
      entity = await this.table.getEntity<Record<string, unknown>>(ownerId, outboxRowKey(batchId));
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
    const messages = JSON.parse(readLongText(entity, 'messages')) as OutboxMessage[];
    const batch: StoredOutboxBatch = {
      id: batchId,
      ownerId,
      envelopeId: String(entity.envelopeId),
      createdAt: String(entity.createdAt),
      messages,
      dispatchedAt: (entity.dispatchedAt as string | undefined) ?? null,
      states: messages.map((_, index) => finalState(entity[`state${index}`])),
      claims: messages.map((_, index) => parseClaim(entity[`state${index}`])),
      redispatches: messages.map((_, index) => Number(entity[`redispatched${index}`] ?? 0) || 0),
      redispatchedAt: messages.map((_, index) => (typeof entity[`redispatchedAt${index}`] === 'string' ? (entity[`redispatchedAt${index}`] as string) : null)),
      firstAttempts: messages.map((_, index) => (typeof entity[`firstAttempt${index}`] === 'string' ? (entity[`firstAttempt${index}`] as string) : null)),
    };
    return { batch, entity, etag: entity.etag };
  }

  /**
   * Claims one message for `holder` (an invocation id) for {@link OUTBOX_CLAIM_SECONDS}, unless it
   * has a state or another holder's claim is still running. ETag-conditional, retried on contention
   * with the other messages of the batch (`../retryOnConflict.ts`). Claiming a message one already
   * holds renews the claim.
   * @throws Error when concurrent claims won every round
   */
  async claim(pointer: OutboxPointer, holder: string, now: Date = new Date()): Promise<OutboxClaim> {
    return await retryOnConflict(async () => {
      const found = await this.readEntity(pointer.ownerId, pointer.batchId);
      if (found === null || pointer.index >= found.batch.messages.length) return { outcome: 'gone' };
      const state = found.batch.states[pointer.index];
      if (state != null) return { outcome: 'done', state };
      const current = parseClaim(found.entity[`state${pointer.index}`]);
      if (current !== null && current.holder !== holder && Date.parse(current.until) > now.getTime()) return { outcome: 'busy', until: current.until };
      const until = new Date(now.getTime() + OUTBOX_CLAIM_SECONDS * 1000).toISOString();
      // The first claim notes when the first attempt began; later claims keep it.
      const firstAttempt = found.batch.firstAttempts[pointer.index] ?? now.toISOString();
      try {
        await this.table.updateEntity(
          {
            partitionKey: pointer.ownerId,
            rowKey: outboxRowKey(pointer.batchId),
            [`state${pointer.index}`]: `sending ${until} ${holder}`,
            [`firstAttempt${pointer.index}`]: firstAttempt,
          },
          'Merge',
          { etag: found.etag },
        );
        found.batch.firstAttempts[pointer.index] = firstAttempt;
        return { outcome: 'claimed', batch: found.batch };
      } catch (error) {
        if (storageStatus(error) === 404) return { outcome: 'gone' };
        throw error;
      }
    }, batchRowRetries(pointer));
  }

  /**
   * Gives up `holder`'s claim on a message (its send failed and will be retried); no-op if not held.
   * @throws Error when concurrent claims won every round
   */
  async release(pointer: OutboxPointer, holder: string): Promise<void> {
    await retryOnConflict(async () => {
      const found = await this.readEntity(pointer.ownerId, pointer.batchId);
      if (found === null || parseClaim(found.entity[`state${pointer.index}`])?.holder !== holder) return;
      try {
        await this.table.updateEntity({ partitionKey: pointer.ownerId, rowKey: outboxRowKey(pointer.batchId), [`state${pointer.index}`]: '' }, 'Merge', { etag: found.etag });
        return;
      } catch (error) {
        if (storageStatus(error) === 404) return;
        throw error;
      }
    }, batchRowRetries(pointer));
  }

  /**
   * Puts one message of a batch on its queue again, invisible for `delaySeconds` (a delivery that met
   * another's running claim, {@link OUTBOX_CLAIM_SECONDS}).
   */
  async requeue(pointer: OutboxPointer, message: OutboxMessage, delaySeconds: number): Promise<void> {
    const visibilityTimeout = Math.max(0, Math.ceil(delaySeconds));
    await this.queueFor(message).sendMessage(encodePointer(pointer), visibilityTimeout > 0 ? { visibilityTimeout } : {});
  }

  /**
   * Re-dispatches one message stuck on its way (the sweeper): counts it in `redispatched<index>` and
   * notes when in `redispatchedAt<index>`, then puts it on its queue again.
   */
  async redispatch(batch: StoredOutboxBatch, index: number, now: Date = new Date()): Promise<void> {
    await this.table.updateEntity(
      { partitionKey: batch.ownerId, rowKey: outboxRowKey(batch.id), [`redispatched${index}`]: batch.redispatches[index]! + 1, [`redispatchedAt${index}`]: now.toISOString() },
      'Merge',
    );
    await this.queueFor(batch.messages[index]!).sendMessage(encodePointer({ ownerId: batch.ownerId, batchId: batch.id, index }));
  }

  /**
   * Lets an operator send a message again (`npm run outbox -- replay`): clears its state and its
   * re-dispatch count, so that the next delivery of its pointer sends it.
   */
  async reopen(pointer: OutboxPointer): Promise<void> {
    await this.table.updateEntity(
      { partitionKey: pointer.ownerId, rowKey: outboxRowKey(pointer.batchId), [`state${pointer.index}`]: '', [`redispatched${pointer.index}`]: 0 },
      'Merge',
    );
  }

  /** Records what became of one message (unconditional merge of its own property). */
  async setState(pointer: OutboxPointer, state: MessageState): Promise<void> {
    await this.table.updateEntity({ partitionKey: pointer.ownerId, rowKey: outboxRowKey(pointer.batchId), [`state${pointer.index}`]: state }, 'Merge');
  }

  private queueFor(message: OutboxMessage): QueueClient {
    return message.kind === 'email' ? this.queues.email : message.kind === 'sms' ? this.queues.sms : this.queues.events;
  }

  private dueEntry(batch: Pick<OutboxBatch, 'id' | 'ownerId' | 'createdAt'>) {
    const dueAt = new Date(Date.parse(batch.createdAt) + OUTBOX_REDISPATCH_SECONDS * 1000).toISOString();
    return { kind: OUTBOX_DUE_KIND, dueAt, ownerId: batch.ownerId, id: batch.id };
  }
}

/** The final state a `state<index>` property holds, or `null` (unset, empty or a claim). */
function finalState(value: unknown): MessageState | null {
  return value === 'sent' || value === 'failed' ? value : null;
}

function parseClaim(value: unknown): { until: string; holder: string } | null {
  const match = typeof value === 'string' ? /^sending (\S+) (\S+)$/.exec(value) : null;
  return match === null ? null : { until: match[1]!, holder: match[2]! };
}

/**
 * How a claim or release retries on the batch row (`../retryOnConflict.ts`): until it wins, since every
 * message of a batch (up to one per recipient and more) may be claimed at once and each round one
 * claimer wins, so the rounds are bounded by the batch's messages.
 */
function batchRowRetries(pointer: OutboxPointer): RetryOnConflictOptions<never> {
  return {
    // 412: the batch row changed since it was read (a concurrent claim of another of its messages).
    isConflict: (error) => storageStatus(error) === 412,
    attempts: Number.POSITIVE_INFINITY,
    exhausted: () => {
      throw new Error(`outbox batch ${pointer.batchId} of owner ${pointer.ownerId} stayed contended`);
    },
  };
}
