/**
 * Runs queue-triggered functions against Azure Storage queues (Azurite on a laptop) as the Functions
 * host's queue trigger does (docs/api.md#the-sweeper), with the settings of `host.json` `extensions.queues`:
 *
 * - polls each function's queue, receiving up to `batchSize` messages, each hidden for
 *   {@link QueueRunnerSettings.leaseSeconds} while its function runs, and receives the next batch as
 *   soon as at most `newBatchThreshold` of the function's invocations are still running (without
 *   waiting for the whole batch), so at most `batchSize + newBatchThreshold` run at once per
 *   function; an empty queue backs the polling off from {@link QueueRunnerSettings.minPollingIntervalMs},
 *   doubling up to `maxPollingInterval` (capped at 1 s locally, so e-mails show up at once);
 * - decodes the message as `messageEncoding` says (base64), passes JSON as a parsed value and any other
 *   text as a string, with `triggerMetadata` as the host gives it (`id`, `dequeueCount`,
 *   `insertionTime`, `expirationTime`, `nextVisibleTime`, `popReceipt`, `queueTrigger`);
 * - deletes the message when the function returns; when it throws, makes the message visible again
 *   after `visibilityTimeout`, or, once it has been dequeued `maxDequeueCount` times, copies it to
 *   `<queue>-poison` and deletes it; a message already dequeued more often than that (its earlier
 *   runs died with their process) goes to the poison queue without running.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import functions, { type LogHandler } from '@azure/functions';
import type { DequeuedMessageItem, QueueClient, QueueServiceClient } from '@azure/storage-queue';
import type { RegisteredQueueFunction } from '../lib/triggers/register.js';

// @azure/functions is CommonJS, and Node's ES module loader cannot see this class as a named export.
const { InvocationContext } = functions;

export interface QueueRunnerSettings {
  /** Messages received per poll (`batchSize`, 1 to 32). */
  batchSize: number;
  /**
   * A new batch is received once at most this many invocations of the function are still running
   * (`newBatchThreshold`); `undefined`: the host's default on one vCPU, `floor(batchSize / 2)`.
   */
  newBatchThreshold?: number;
  /** Dequeues after which a failing message goes to `<queue>-poison` (`maxDequeueCount`). */
  maxDequeueCount: number;
  /** Seconds a failed message stays invisible before its next attempt (`visibilityTimeout`). */
  visibilityTimeoutSeconds: number;
  /** Seconds a received message stays invisible while its function runs (the host uses 10 minutes). */
  leaseSeconds: number;
  /** Polling interval right after a message, milliseconds. */
  minPollingIntervalMs: number;
  /** Longest polling interval of an idle queue, milliseconds (`maxPollingInterval`). */
  maxPollingIntervalMs: number;
  /** `base64` (the host's default) or `none`. */
  messageEncoding: 'base64' | 'none';
}

/** The Functions host's defaults for what `host.json` leaves out, and the local polling bounds. */
export const DEFAULT_QUEUE_RUNNER_SETTINGS: QueueRunnerSettings = {
  batchSize: 16,
  maxDequeueCount: 5,
  visibilityTimeoutSeconds: 0,
  leaseSeconds: 600,
  minPollingIntervalMs: 100,
  maxPollingIntervalMs: 1000,
  messageEncoding: 'base64',
};

/** Longest polling interval locally, whatever `host.json` says: a developer waits for the e-mail. */
const LOCAL_MAX_POLLING_INTERVAL_MS = 1000;

/**
 * Reads `extensions.queues` of a `host.json` file into runner settings; what the file leaves out
 * keeps the host's default, and `maxPollingInterval` is capped at 1 s.
 * @param file path of `host.json`
 * @throws Error when the file is unreadable or a value is malformed (naming it)
 */
export async function readQueueRunnerSettings(file: string): Promise<QueueRunnerSettings> {
  const json = JSON.parse(await readFile(file, 'utf8')) as { extensions?: { queues?: Record<string, unknown> } };
  const queues = json.extensions?.queues ?? {};
  const settings = { ...DEFAULT_QUEUE_RUNNER_SETTINGS };
  if (queues.batchSize !== undefined) settings.batchSize = wholeNumber(queues.batchSize, 'batchSize', 1, 32);
  if (queues.newBatchThreshold !== undefined) settings.newBatchThreshold = wholeNumber(queues.newBatchThreshold, 'newBatchThreshold', 0, 1000);
  if (queues.maxDequeueCount !== undefined) settings.maxDequeueCount = wholeNumber(queues.maxDequeueCount, 'maxDequeueCount', 1, 1000);
  if (queues.visibilityTimeout !== undefined) settings.visibilityTimeoutSeconds = timeSpanSeconds(queues.visibilityTimeout, 'visibilityTimeout');
  if (queues.maxPollingInterval !== undefined) {
    settings.maxPollingIntervalMs = Math.min(timeSpanSeconds(queues.maxPollingInterval, 'maxPollingInterval') * 1000, LOCAL_MAX_POLLING_INTERVAL_MS);
  }
  if (queues.messageEncoding !== undefined) {
    if (queues.messageEncoding !== 'base64' && queues.messageEncoding !== 'none') throw new Error('host.json extensions.queues.messageEncoding must be base64 or none');
    settings.messageEncoding = queues.messageEncoding;
  }
  return settings;
}

function wholeNumber(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new Error(`host.json extensions.queues.${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/** `hh:mm:ss` or `d.hh:mm:ss` (.NET TimeSpan, as host.json writes durations) in seconds. */
function timeSpanSeconds(value: unknown, name: string): number {
  const match = typeof value === 'string' ? /^(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})$/.exec(value) : null;
  if (match === null) throw new Error(`host.json extensions.queues.${name} must be a duration hh:mm:ss`);
  return Number(match[1] ?? 0) * 86_400 + Number(match[2]) * 3600 + Number(match[3]) * 60 + Number(match[4]);
}

export interface QueueRunnerOptions {
  settings?: Partial<QueueRunnerSettings>;
  /** Where `context.log` and the runner's own lines go; default the console. */
  logHandler?: LogHandler;
}

/**
 * Milliseconds {@link QueueTriggerRunner.close} waits for a receive on the way before abandoning it: a
 * receive answers at once from a reachable storage, and retries for up to half a minute an unreachable one.
 */
export const CLOSE_RECEIVE_GRACE_MS = 5_000;

/** Polls one queue per registered function until {@link QueueTriggerRunner.close}. */
export class QueueTriggerRunner {
  private readonly settings: QueueRunnerSettings;
  private readonly abort = new AbortController();
  /** Aborts a receive on the way, {@link CLOSE_RECEIVE_GRACE_MS} after close. */
  private readonly receiveAbort = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly queueService: QueueServiceClient,
    private readonly functions: readonly RegisteredQueueFunction[],
    private readonly options: QueueRunnerOptions = {},
  ) {
    this.settings = { ...DEFAULT_QUEUE_RUNNER_SETTINGS, ...options.settings };
  }

  /** Starts polling; returns at once. */
  start(): void {
    this.loops = this.functions.map((fn) => this.poll(fn));
  }

  /**
   * Stops polling and waits for the functions that are running to finish, and for a receive on the way
   * for up to {@link CLOSE_RECEIVE_GRACE_MS} (the messages it brings are handled before close returns,
   * not left hidden for their lease; a receive still retrying an unreachable storage then is abandoned).
   */
  async close(): Promise<void> {
    this.abort.abort();
    const giveUp = setTimeout(() => this.receiveAbort.abort(), CLOSE_RECEIVE_GRACE_MS);
    try {
      await Promise.all(this.loops);
    } finally {
      clearTimeout(giveUp);
    }
  }

  private log(level: 'information' | 'warning' | 'error', message: string): void {
    if (this.options.logHandler !== undefined) this.options.logHandler(level, message);
    else if (level === 'information') console.log(message);
    else console.error(message);
  }

  private async poll(fn: RegisteredQueueFunction): Promise<void> {
    const queue = this.queueService.getQueueClient(fn.queueName);
    const poison = this.queueService.getQueueClient(`${fn.queueName}-poison`);
    const signal = this.abort.signal;
    const threshold = this.settings.newBatchThreshold ?? Math.floor(this.settings.batchSize / 2);
    const running = new Set<Promise<void>>();
    let delay = this.settings.minPollingIntervalMs;
    let lastFault = '';
    while (!signal.aborted) {
      if (running.size > threshold) {
        // As the host does: no new batch while more than newBatchThreshold invocations run.
        await Promise.race(running);
        continue;
      }
      let messages: DequeuedMessageItem[];
      try {
        // Not aborted by close at once: the storage service may have hidden the messages already, and
        // a receive abandoned on the way leaves them hidden for the whole lease, handled by nobody.
        const received = await queue.receiveMessages({
          numberOfMessages: this.settings.batchSize,
          visibilityTimeout: this.settings.leaseSeconds,
          abortSignal: this.receiveAbort.signal,
        });
        messages = received.receivedMessageItems;
        lastFault = '';
      } catch (error) {
        if (signal.aborted) break;
        // Log a fault once, not on every poll (storage stopped, queue deleted), and back off.
        const fault = describe(error);
        if (fault !== lastFault) this.log('warning', `Queue ${fn.queueName}: cannot receive messages (${fault}); retrying.`);
        lastFault = fault;
        messages = [];
      }
      if (messages.length === 0) {
        await sleep(delay, signal);
        delay = Math.min(delay * 2, this.settings.maxPollingIntervalMs);
        continue;
      }
      delay = this.settings.minPollingIntervalMs;
      for (const message of messages) {
        const invocation: Promise<void> = this.handle(fn, queue, poison, message)
          .catch((error: unknown) => this.log('error', `Queue ${fn.queueName}: message ${message.messageId} not handled (${describe(error)}).`))
          .finally(() => running.delete(invocation));
        running.add(invocation);
      }
    }
    await Promise.all(running);
  }

  private async handle(fn: RegisteredQueueFunction, queue: QueueClient, poison: QueueClient, message: DequeuedMessageItem): Promise<void> {
    if (message.dequeueCount > this.settings.maxDequeueCount) {
      await this.settle(fn, () => this.moveToPoison(fn, queue, poison, message));
      return;
    }
    const invocationId = randomUUID();
    const context = new InvocationContext({
      invocationId,
      functionName: fn.name,
      ...(this.options.logHandler === undefined ? {} : { logHandler: this.options.logHandler }),
      triggerMetadata: {
        queueTrigger: message.messageText,
        id: message.messageId,
        dequeueCount: message.dequeueCount,
        insertionTime: message.insertedOn.toISOString(),
        expirationTime: message.expiresOn.toISOString(),
        nextVisibleTime: message.nextVisibleOn.toISOString(),
        popReceipt: message.popReceipt,
      },
      options: { trigger: { type: 'queueTrigger', name: 'queueItem', queueName: fn.queueName, connection: 'AzureWebJobsStorage' } },
    });
    const started = Date.now();
    try {
      await fn.handler(this.decode(message.messageText), context);
    } catch (error) {
      this.log('error', `Executed 'Functions.${fn.name}' (Failed, Id=${invocationId}, Duration=${Date.now() - started}ms, dequeueCount=${message.dequeueCount}): ${describe(error)}`);
      await this.settle(fn, async () => {
        if (message.dequeueCount >= this.settings.maxDequeueCount) await this.moveToPoison(fn, queue, poison, message);
        else await queue.updateMessage(message.messageId, message.popReceipt, undefined, this.settings.visibilityTimeoutSeconds);
      });
      return;
    }
    await this.settle(fn, () => queue.deleteMessage(message.messageId, message.popReceipt).then(() => undefined));
  }

  /** Runs a queue operation after an invocation; its failure (the lease ran out) only gets logged. */
  private async settle(fn: RegisteredQueueFunction, operation: () => Promise<void>): Promise<void> {
    try {
      await operation();
    } catch (error) {
      this.log('warning', `Queue ${fn.queueName}: message not settled (${describe(error)}); it reappears when its visibility timeout ends.`);
    }
  }

  private async moveToPoison(fn: RegisteredQueueFunction, queue: QueueClient, poison: QueueClient, message: DequeuedMessageItem): Promise<void> {
    await poison.createIfNotExists();
    await poison.sendMessage(message.messageText);
    await queue.deleteMessage(message.messageId, message.popReceipt);
    this.log('warning', `Message ${message.messageId} has reached MaxDequeueCount of ${this.settings.maxDequeueCount}; moved to ${fn.queueName}-poison.`);
  }

  /**
   * The value a function receives: the host decodes base64, then passes JSON parsed and any other
   * text as is. Text that is not base64 fails the invocation, as it does in the host.
   */
  private decode(messageText: string): unknown {
    let text = messageText;
    if (this.settings.messageEncoding === 'base64') {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(messageText) || messageText.length % 4 !== 0) {
        throw new Error('The message is not valid base64 (host.json messageEncoding is base64).');
      }
      text = Buffer.from(messageText, 'base64').toString('utf8');
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
