/**
 * `npm run --silent outbox -- list` and `npm run --silent outbox -- replay (--all | <messageId>...)`:
 * what the queue functions gave up on, for an operator.
 *
 * A message that failed 5 times (or stood for 5 invocations that died with their process, or that the
 * sweeper re-dispatched 3 times in vain) ends in the poison queue of its queue: `outbox-email-poison`,
 * `outbox-events-poison` or `webhook-deliveries-poison`, with its outbox message marked `failed` and,
 * for an e-mail to a recipient, the recipient's `lastEmail` `failed`.
 *
 * - `list` prints one line per poisoned message (at most 32 per queue, the oldest; the count of the
 *   rest follows): its queue, its message id, when it was poisoned, and what it is (an e-mail's type,
 *   recipient and envelope; a webhook event's type and envelope; a webhook delivery's webhook, event
 *   and attempt).
 * - `replay` puts the messages named (or every one, `--all`) back on their queue, once the cause is
 *   fixed (the mail server answers again): an outbox message's `failed` state is cleared first, so
 *   the e-mail is sent (and `lastEmail` becomes `sent`) or the event fanned out. A replayed message
 *   gets 5 new tries; one that fails again returns to the poison queue.
 *
 * Storage as `npm run invite` finds it (`findStorage.ts`): your settings, else the running `npm start`'s.
 */
import { parseArgs } from 'node:util';
import type { DequeuedMessageItem, QueueClient, QueueServiceClient } from '@azure/storage-queue';
import { ConfigError } from '../lib/errors.js';
import { OutboxStore, parsePointer, type OutboxPointer } from '../lib/notifications/outboxRepository.js';
import { createStorage, type Storage } from '../lib/storage/clients.js';
import { dueIndexOf } from '../lib/storage/dueIndex.js';
import { QUEUES } from '../lib/storage/queues.js';
import { findStorage, LocalStorageError } from './findStorage.js';
import { applyLocalSettingsFile } from './settings.js';

/** Messages `list` shows per poison queue (the most one peek returns). */
const LIST_LIMIT = 32;
/** Seconds a message `replay` received stays invisible to other readers while it is moved. */
const REPLAY_LEASE_SECONDS = 60;

const USAGE = 'Usage: npm run --silent outbox -- list | replay (--all | <messageId>...)';

/** A poisoned message, decoded. */
interface Poisoned {
  queue: string;
  messageId: string;
  insertedOn: Date;
  /** The message's value: the base64 JSON the queue functions take, decoded; `null` when it is not JSON. */
  value: unknown;
}

function decode(messageText: string): unknown {
  try {
    return JSON.parse(Buffer.from(messageText, 'base64').toString('utf8')) as unknown;
  } catch {
    return null;
  }
}

/** One line saying what a poisoned message is. */
async function describe(outbox: OutboxStore, message: Poisoned): Promise<string> {
  const head = `${message.queue}  ${message.messageId}  ${message.insertedOn.toISOString()}`;
  if (message.queue === `${QUEUES.webhookDeliveries}-poison`) {
    const delivery = message.value as { webhookId?: string; eventId?: string; attempt?: number; kind?: string } | null;
    return `${head}  webhook ${delivery?.webhookId ?? '?'} event ${delivery?.eventId ?? '?'} ${delivery?.kind === 'redelivery' ? 'redelivery' : `attempt ${delivery?.attempt ?? '?'}`}`;
  }
  if (message.queue === `${QUEUES.bulkJobs}-poison`) {
    const job = message.value as { organizationId?: string; jobId?: string } | null;
    return `${head}  bulk job ${job?.jobId ?? '?'} of organization ${job?.organizationId ?? '?'}`;
  }
  const pointer = parsePointer(message.value);
  if (pointer === null) return `${head}  not an outbox pointer`;
  const batch = await outbox.read(pointer.ownerId, pointer.batchId);
  const entry = batch?.messages[pointer.index];
  if (batch === null || entry === undefined) return `${head}  outbox ${pointer.batchId}.${pointer.index}: no such message`;
  const state = batch.states[pointer.index] ?? 'not final';
  if (entry.kind === 'email') return `${head}  e-mail ${entry.type} to ${entry.to.email}, envelope ${entry.envelopeId}, state ${state}`;
  if (entry.kind === 'sms') return `${head}  text message ${entry.type} to recipient ${entry.recipientId}, envelope ${entry.envelopeId}, state ${state}`;
  return `${head}  webhook event ${entry.event.type}, ${entry.event.data.envelopeId === undefined ? `bulk job ${entry.event.data.bulkJobId ?? '?'}` : `envelope ${entry.event.data.envelopeId}`}, state ${state}`;
}

function poisonQueues(queueService: QueueServiceClient): { queue: QueueClient; poison: QueueClient }[] {
  return Object.values(QUEUES).map((name) => ({ queue: queueService.getQueueClient(name), poison: queueService.getQueueClient(`${name}-poison`) }));
}

async function exists(queue: QueueClient): Promise<boolean> {
  return await queue.exists();
}

async function list(storage: Storage, outbox: OutboxStore): Promise<void> {
  let total = 0;
  for (const { poison } of poisonQueues(storage.queueService)) {
    if (!(await exists(poison))) continue;
    const count = (await poison.getProperties()).approximateMessagesCount ?? 0;
    const peeked = (await poison.peekMessages({ numberOfMessages: LIST_LIMIT })).peekedMessageItems;
    for (const item of peeked) {
      console.log(await describe(outbox, { queue: poison.name, messageId: item.messageId, insertedOn: item.insertedOn, value: decode(item.messageText) }));
    }
    if (count > peeked.length) console.log(`${poison.name}: ${count - peeked.length} more not shown`);
    total += count;
  }
  console.error(total === 0 ? 'No poisoned messages.' : `${total} poisoned message(s). Replay with: npm run --silent outbox -- replay (--all | <messageId>...)`);
}

async function replay(storage: Storage, outbox: OutboxStore, wanted: Set<string> | 'all'): Promise<void> {
  let replayed = 0;
  for (const { queue, poison } of poisonQueues(storage.queueService)) {
    if (!(await exists(poison))) continue;
    // Received in rounds until no visible message is left; those not wanted become visible again at the end.
    const skipped: DequeuedMessageItem[] = [];
    for (;;) {
      const received: DequeuedMessageItem[] = (await poison.receiveMessages({ numberOfMessages: 32, visibilityTimeout: REPLAY_LEASE_SECONDS })).receivedMessageItems;
      if (received.length === 0) break;
      for (const item of received) {
        if (wanted !== 'all' && !wanted.has(item.messageId)) {
          skipped.push(item);
          continue;
        }
        const pointer: OutboxPointer | null = queue.name === QUEUES.webhookDeliveries || queue.name === QUEUES.bulkJobs ? null : parsePointer(decode(item.messageText));
        if (pointer !== null) await outbox.reopen(pointer);
        await queue.createIfNotExists();
        await queue.sendMessage(item.messageText);
        await poison.deleteMessage(item.messageId, item.popReceipt);
        console.log(`${poison.name}  ${item.messageId}  replayed on ${queue.name}`);
        replayed++;
      }
    }
    for (const item of skipped) await poison.updateMessage(item.messageId, item.popReceipt, undefined, 0);
  }
  if (wanted !== 'all') {
    const missing = [...wanted].length - replayed;
    if (missing > 0) console.error(`${missing} of the message ids given were not found in a poison queue.`);
  }
  console.error(`${replayed} message(s) replayed.`);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  const [command, ...ids] = positionals;
  if (values.help || command === undefined) {
    console.log(USAGE);
    if (command === undefined && !values.help) process.exitCode = 2;
    return;
  }
  if (command !== 'list' && command !== 'replay') throw new TypeError(`unknown command "${command}". ${USAGE}`);
  if (command === 'replay' && values.all !== true && ids.length === 0) throw new TypeError(`replay needs --all or message ids. ${USAGE}`);
  await applyLocalSettingsFile(process.cwd());
  const storage = createStorage(await findStorage(process.cwd()), undefined, 'background');
  const outbox = new OutboxStore(storage.tables.envelopes, storage.queues, dueIndexOf(storage));
  if (command === 'list') await list(storage, outbox);
  else await replay(storage, outbox, values.all === true ? 'all' : new Set(ids));
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof TypeError || error instanceof LocalStorageError;
  console.error(`outbox: ${known ? error.message : `failed: ${error instanceof Error ? error.message : String(error)}`}`);
  process.exitCode = 1;
});
