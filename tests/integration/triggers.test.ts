/**
 * The local host runs queue and timer functions as the Functions host does (docs/api.md#the-sweeper), against
 * the suite's real Azurite: base64 JSON decoded, trigger metadata, delete on success, retry after the
 * visibility timeout with a growing dequeue count, `<queue>-poison` after 5 dequeues, NCRONTAB
 * schedules with seconds. Each test uses queues of its own.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterEach, describe, expect, test } from '@jest/globals';
import type { InvocationContext, Timer } from '@azure/functions';
import { QueueServiceClient } from '@azure/storage-queue';
import { MAX_DEQUEUE_COUNT } from '../../src/lib/storage/queues.js';
import type { RegisteredQueueFunction, RegisteredTimerFunction } from '../../src/lib/triggers/register.js';
import { QueueTriggerRunner, readQueueRunnerSettings, type QueueRunnerSettings } from '../../src/local/queueRunner.js';
import { HOST_JSON } from '../../src/local/service.js';
import { parseSchedule, TimerTriggerRunner } from '../../src/local/timerRunner.js';
import { waitUntil } from '../support/patience.js';

const queueService = QueueServiceClient.fromConnectionString(process.env.STORAGE_CONNECTION_STRING!);
const FAST: Partial<QueueRunnerSettings> = { visibilityTimeoutSeconds: 1, leaseSeconds: 30, minPollingIntervalMs: 25, maxPollingIntervalMs: 200 };
const quiet = () => undefined;

let runners: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(runners.map((runner) => runner.close()));
  runners = [];
});

async function newQueue() {
  const name = `test-${randomUUID().slice(0, 8)}`;
  const queue = queueService.getQueueClient(name);
  await queue.create();
  return { name, queue, poison: queueService.getQueueClient(`${name}-poison`) };
}

async function messagesIn(queue: ReturnType<typeof queueService.getQueueClient>): Promise<number> {
  if (!(await queue.exists())) return 0;
  return (await queue.getProperties()).approximateMessagesCount ?? 0;
}

interface Invocation {
  entry: unknown;
  metadata: Record<string, unknown>;
  at: number;
}

function runQueue(fn: RegisteredQueueFunction, settings: Partial<QueueRunnerSettings> = FAST): QueueTriggerRunner {
  const runner = new QueueTriggerRunner(queueService, [fn], { settings, logHandler: quiet });
  runner.start();
  runners.push(runner);
  return runner;
}

function recorder(failTimes: number, invocations: Invocation[]) {
  return async (entry: unknown, context: InvocationContext) => {
    invocations.push({ entry, metadata: { ...context.triggerMetadata }, at: Date.now() });
    if (invocations.length <= failTimes) throw new Error(`failure ${invocations.length}`);
  };
}

describe('queue functions', () => {
  test('get the base64 JSON message parsed, with the trigger metadata the host gives, and the message is deleted after success', async () => {
    const { name, queue, poison } = await newQueue();
    const invocations: Invocation[] = [];
    const sent = await queue.sendMessage(Buffer.from(JSON.stringify({ ownerId: 'o', batchId: 'b', index: 2 })).toString('base64'));
    runQueue({ name: 'Recorder', queueName: name, handler: recorder(0, invocations) });
    await waitUntil(async () => invocations.length === 1 && (await messagesIn(queue)) === 0, 10_000, 'the message to be handled and deleted');
    const [first] = invocations;
    expect(first!.entry).toEqual({ ownerId: 'o', batchId: 'b', index: 2 });
    expect(first!.metadata).toMatchObject({
      id: sent.messageId,
      dequeueCount: 1,
      queueTrigger: Buffer.from(JSON.stringify({ ownerId: 'o', batchId: 'b', index: 2 })).toString('base64'),
      insertionTime: sent.insertedOn.toISOString(),
      expirationTime: sent.expiresOn.toISOString(),
    });
    expect(typeof first!.metadata.popReceipt).toBe('string');
    expect(Date.parse(String(first!.metadata.nextVisibleTime))).toBeGreaterThan(Date.now());
    expect(await poison.exists()).toBe(false);
  });

  test('text that is not JSON arrives as a string', async () => {
    const { name, queue } = await newQueue();
    const invocations: Invocation[] = [];
    await queue.sendMessage(Buffer.from('plain words').toString('base64'));
    runQueue({ name: 'Recorder', queueName: name, handler: recorder(0, invocations) });
    await waitUntil(() => invocations.length === 1, 10_000, 'the message');
    expect(invocations[0]!.entry).toBe('plain words');
  });

  test('a function that fails twice gets the message again after the visibility timeout, with a growing dequeue count, then succeeds', async () => {
    const { name, queue, poison } = await newQueue();
    const invocations: Invocation[] = [];
    const sent = await queue.sendMessage(Buffer.from('"work"').toString('base64'));
    runQueue({ name: 'FlakyTwice', queueName: name, handler: recorder(2, invocations) }, { ...FAST, visibilityTimeoutSeconds: 2 });
    await waitUntil(async () => invocations.length === 3 && (await messagesIn(queue)) === 0, 20_000, 'three attempts and the delete');
    expect(invocations.map((invocation) => invocation.metadata.dequeueCount)).toEqual([1, 2, 3]);
    expect(new Set(invocations.map((invocation) => invocation.metadata.id))).toEqual(new Set([sent.messageId]));
    expect(invocations.every((invocation) => invocation.entry === 'work')).toBe(true);
    // Not before the visibility timeout (Azurite counts whole seconds: allow for rounding down).
    expect(invocations[1]!.at - invocations[0]!.at).toBeGreaterThanOrEqual(1_000);
    expect(invocations[2]!.at - invocations[1]!.at).toBeGreaterThanOrEqual(1_000);
    await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more may happen: the message is gone
    expect(invocations).toHaveLength(3);
    expect(await poison.exists()).toBe(false);
  });

  test('a function that always fails runs 5 times, then the message moves to <queue>-poison unchanged', async () => {
    const { name, queue, poison } = await newQueue();
    const invocations: Invocation[] = [];
    const text = Buffer.from(JSON.stringify({ n: 1 })).toString('base64');
    await queue.sendMessage(text);
    runQueue({ name: 'AlwaysFails', queueName: name, handler: recorder(Number.POSITIVE_INFINITY, invocations) }, { ...FAST, visibilityTimeoutSeconds: 0 });
    await waitUntil(async () => (await messagesIn(poison)) === 1, 20_000, 'the poison message');
    expect(invocations.map((invocation) => invocation.metadata.dequeueCount)).toEqual([1, 2, 3, 4, 5]);
    expect(await messagesIn(queue)).toBe(0);
    const poisoned = await poison.receiveMessages();
    expect(poisoned.receivedMessageItems.map((message) => message.messageText)).toEqual([text]);
    expect(MAX_DEQUEUE_COUNT).toBe(5);
  });

  test('a message already dequeued 5 times by runs that died goes to the poison queue without running', async () => {
    const { name, queue, poison } = await newQueue();
    await queue.sendMessage(Buffer.from('"crashy"').toString('base64'));
    for (let attempt = 0; attempt < 5; attempt++) {
      // Each receive counts a dequeue; making it visible again at once stands for a run that died.
      const [message] = (await queue.receiveMessages({ visibilityTimeout: 30 })).receivedMessageItems;
      await queue.updateMessage(message!.messageId, message!.popReceipt, undefined, 0);
    }
    const invocations: Invocation[] = [];
    runQueue({ name: 'NeverRuns', queueName: name, handler: recorder(0, invocations) });
    await waitUntil(async () => (await messagesIn(poison)) === 1, 10_000, 'the poison message');
    expect(invocations).toHaveLength(0);
    expect(await messagesIn(queue)).toBe(0);
  });

  test('text that is not base64 fails the invocation without running the function', async () => {
    const { name, queue, poison } = await newQueue();
    await queue.sendMessage('not base64!');
    const invocations: Invocation[] = [];
    runQueue({ name: 'NeverRuns', queueName: name, handler: recorder(0, invocations) }, { ...FAST, visibilityTimeoutSeconds: 0 });
    await waitUntil(async () => (await messagesIn(poison)) === 1, 20_000, 'the poison message');
    expect(invocations).toHaveLength(0);
  });

  test('a queue that does not exist yet is polled until it does, with the fault logged once', async () => {
    const name = `test-${randomUUID().slice(0, 8)}`;
    const queue = queueService.getQueueClient(name);
    const invocations: Invocation[] = [];
    const lines: string[] = [];
    const runner = new QueueTriggerRunner(queueService, [{ name: 'Later', queueName: name, handler: recorder(0, invocations) }], {
      settings: FAST,
      logHandler: (_level, ...args) => lines.push(args.join(' ')),
    });
    runner.start();
    runners.push(runner);
    await waitUntil(() => lines.length > 0, 10_000, 'the fault to be logged');
    await new Promise((resolve) => setTimeout(resolve, 500)); // several more polls fail meanwhile
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^Queue ${name}: cannot receive messages .*; retrying\\.$`))]);
    await queue.create();
    await queue.sendMessage(Buffer.from('"late"').toString('base64'));
    await waitUntil(() => invocations.length === 1, 10_000, 'the message');
    expect(invocations[0]!.entry).toBe('late');
  });

  test('close waits for the functions that are running and stops polling', async () => {
    const { name, queue } = await newQueue();
    let finished = 0;
    let started = 0;
    const runner = runQueue({
      name: 'Slow',
      queueName: name,
      handler: async () => {
        started++;
        await new Promise((resolve) => setTimeout(resolve, 400));
        finished++;
      },
    });
    await queue.sendMessage(Buffer.from('1').toString('base64'));
    await waitUntil(() => started === 1, 10_000, 'the function to start');
    await runner.close();
    expect(finished).toBe(1);
    expect(await messagesIn(queue)).toBe(0);
    await queue.sendMessage(Buffer.from('2').toString('base64'));
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(started).toBe(1);
  });
});

/**
 * A TCP relay to the suite's queue service that holds the first answer it gets back until `release`:
 * `answered` resolves once the storage has answered (and so has done what the request asked).
 */
async function holdFirstAnswer(): Promise<{ queueService: QueueServiceClient; answered: Promise<void>; release: () => void; close: () => Promise<void> }> {
  const target = new URL(queueService.url);
  let held: (() => void)[] | null = [];
  let answeredNow: () => void = () => undefined;
  const answered = new Promise<void>((resolve) => (answeredNow = resolve));
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (held === null) {
        client.write(chunk);
        return;
      }
      held.push(() => client.write(chunk));
      answeredNow();
    });
    upstream.on('end', () => (held === null ? client.end() : held.push(() => client.end())));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const endpoint = `http://127.0.0.1:${port}${target.pathname.replace(/\/$/, '')}`;
  const connectionString = process.env.STORAGE_CONNECTION_STRING!.replace(/QueueEndpoint=[^;]+/, `QueueEndpoint=${endpoint}`);
  return {
    queueService: QueueServiceClient.fromConnectionString(connectionString),
    answered,
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const send of waiting) send();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('closing while a receive is on the way', () => {
  test('the messages it brings are handled before close returns, not left hidden for their lease', async () => {
    const { name, queue } = await newQueue();
    await queue.sendMessage(Buffer.from('"on the way"').toString('base64'));
    const relay = await holdFirstAnswer();
    try {
      const invocations: Invocation[] = [];
      const runner = new QueueTriggerRunner(relay.queueService, [{ name: 'OnTheWay', queueName: name, handler: recorder(0, invocations) }], {
        settings: { ...FAST, leaseSeconds: 600 },
        logHandler: quiet,
      });
      runner.start();
      // The storage has answered the first receive (the message is hidden for the lease); the answer
      // has not reached the runner when it is closed.
      await relay.answered;
      const closing = runner.close();
      relay.release();
      await closing;
      expect(invocations.map((invocation) => invocation.entry)).toEqual(['on the way']);
      expect(await messagesIn(queue)).toBe(0);
    } finally {
      await relay.close();
    }
  });
});

describe('batchSize and newBatchThreshold', () => {
  /** A function whose invocations wait until released, counting how many run at once. */
  function gated() {
    const state = { running: 0, most: 0, done: 0, releases: [] as (() => void)[] };
    const handler = async () => {
      state.running++;
      state.most = Math.max(state.most, state.running);
      await new Promise<void>((resolve) => state.releases.push(resolve));
      state.running--;
      state.done++;
    };
    return { state, handler };
  }

  test('run at most batchSize + newBatchThreshold at once, and a new batch comes once at most newBatchThreshold still run', async () => {
    const { name, queue } = await newQueue();
    for (let index = 0; index < 8; index++) await queue.sendMessage(Buffer.from(String(index)).toString('base64'));
    const { state, handler } = gated();
    runQueue({ name: 'Gated', queueName: name, handler }, { ...FAST, batchSize: 2, newBatchThreshold: 1 });
    // First batch: 2 running (more than the threshold of 1), so no new batch yet.
    await waitUntil(() => state.running === 2, 10_000, 'the first batch');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(state.running).toBe(2);
    // One finishes: 1 running, at the threshold, so a new batch of 2 comes while the other still runs.
    state.releases.shift()!();
    await waitUntil(() => state.running === 3, 10_000, 'a second batch beside the running invocation');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(state.running).toBe(3);
    // Release everything as it comes: all 8 run, never more than 3 at once.
    await waitUntil(() => {
      while (state.releases.length > 0) state.releases.shift()!();
      return state.done === 8;
    }, 10_000, 'every message');
    expect(state.most).toBe(3);
    await waitUntil(async () => (await messagesIn(queue)) === 0, 10_000, 'the queue to empty');
  });

  test('newBatchThreshold 0 waits for the whole batch, as the host does', async () => {
    const { name, queue } = await newQueue();
    for (let index = 0; index < 4; index++) await queue.sendMessage(Buffer.from(String(index)).toString('base64'));
    const { state, handler } = gated();
    runQueue({ name: 'Gated0', queueName: name, handler }, { ...FAST, batchSize: 2, newBatchThreshold: 0 });
    await waitUntil(() => state.running === 2, 10_000, 'the first batch');
    state.releases.shift()!();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(state.running).toBe(1);
    await waitUntil(() => {
      while (state.releases.length > 0) state.releases.shift()!();
      return state.done === 4;
    }, 10_000, 'every message');
    expect(state.most).toBe(2);
  });
});

describe("host.json's queue settings", () => {
  test('are what the local host applies: 5 dequeues, base64, a one-minute visibility timeout, polling at most every second, one invocation of a function at a time (1 + 0)', async () => {
    const settings = await readQueueRunnerSettings(HOST_JSON);
    expect(settings).toMatchObject({ maxDequeueCount: MAX_DEQUEUE_COUNT, messageEncoding: 'base64', visibilityTimeoutSeconds: 60, batchSize: 1, newBatchThreshold: 0, maxPollingIntervalMs: 1000 });
  });
});

describe('timer functions', () => {
  function runTimers(functions: RegisteredTimerFunction[]): TimerTriggerRunner {
    const runner = new TimerTriggerRunner(functions, { logHandler: quiet });
    runner.start();
    runners.push(runner);
    return runner;
  }

  test('run on a six-field schedule with seconds, with the timer object the host passes; a throwing run does not stop the schedule', async () => {
    const timers: { timer: Timer; at: number }[] = [];
    const runner = runTimers([
      {
        name: 'EverySecond',
        schedule: '*/1 * * * * *',
        handler: async (timer) => {
          timers.push({ timer, at: Date.now() });
          throw new Error('a failing run');
        },
      },
    ]);
    await waitUntil(() => timers.length >= 3, 10_000, 'three runs');
    await runner.close();
    const count = timers.length;
    expect(timers.every(({ timer }) => timer.isPastDue === false && !Number.isNaN(Date.parse(timer.scheduleStatus.next)))).toBe(true);
    expect(Date.parse(timers[1]!.timer.scheduleStatus.next)).toBeGreaterThan(timers[1]!.at);
    expect(timers[2]!.at - timers[1]!.at).toBeGreaterThanOrEqual(500);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(timers).toHaveLength(count);
  });

  test('a run still going when the next occurrence comes makes that occurrence skip', async () => {
    let running = 0;
    let overlapped = false;
    let runs = 0;
    runTimers([
      {
        name: 'Slow',
        schedule: '* * * * * *',
        handler: async () => {
          runs++;
          running++;
          if (running > 1) overlapped = true;
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          running--;
        },
      },
    ]);
    await waitUntil(() => runs >= 2, 10_000, 'two runs');
    expect(overlapped).toBe(false);
  });

  test('schedules that are not six-field NCRONTAB are refused', () => {
    expect(() => parseSchedule('*/5 * * * *')).toThrow(/six fields/);
    expect(() => parseSchedule('0 */5 * * * * 2030')).toThrow(/six fields/);
    expect(() => parseSchedule('0 61 * * * *')).toThrow(/not a valid NCRONTAB/);
    expect(parseSchedule('0 */5 * * * *').nextRun()!.getUTCSeconds()).toBe(0);
  });
});
