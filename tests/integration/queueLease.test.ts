/**
 * The queue functions' own lease (`src/lib/triggers/register.ts` `runLeased`): while a handler runs, a
 * copy of its message waits invisible on the same queue for about a minute, and goes when the handler
 * returns or throws; a copy, when its process died, runs the handler with the deaths added to the
 * dequeue count; a copy standing for 5 deaths goes to the poison queue without running.
 */
import { randomUUID } from 'node:crypto';
import { InvocationContext } from '@azure/functions';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { QueueClient } from '@azure/storage-queue';
import { getStorage } from '../../src/lib/storage/clients.js';
import { MAX_DEQUEUE_COUNT } from '../../src/lib/storage/queues.js';
import { QUEUE_LEASE_SECONDS, runLeased } from '../../src/lib/triggers/register.js';

let queues: { queue: QueueClient; poison: QueueClient };

beforeAll(async () => {
  const name = `lease-${randomUUID().slice(0, 8)}`;
  const service = getStorage('background').queueService;
  queues = { queue: service.getQueueClient(name), poison: service.getQueueClient(`${name}-poison`) };
  await queues.queue.create();
});
afterAll(async () => {
  await queues.queue.deleteIfExists();
  await queues.poison.deleteIfExists();
});

function context(dequeueCount = 1): InvocationContext {
  return new InvocationContext({ invocationId: randomUUID(), functionName: 'Test', logHandler: () => undefined, triggerMetadata: { dequeueCount } });
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

async function count(queue: QueueClient): Promise<number> {
  return (await queue.exists()) ? ((await queue.getProperties()).approximateMessagesCount ?? 0) : 0;
}

describe('a queue function’s own lease', () => {
  test('holds an invisible copy of the message while the handler runs, and drops it when the handler returns', async () => {
    let copiesWhileRunning: number | undefined;
    let visibleWhileRunning: number | undefined;
    await runLeased(queues, async (entry) => {
      expect(entry).toEqual({ ownerId: 'o', batchId: 'b', index: 0 });
      copiesWhileRunning = await count(queues.queue);
      visibleWhileRunning = (await queues.queue.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.length;
    }, { ownerId: 'o', batchId: 'b', index: 0 }, context());
    expect(copiesWhileRunning).toBe(1);
    expect(visibleWhileRunning).toBe(0);
    expect(await count(queues.queue)).toBe(0);
  });

  test('drops the copy when the handler throws (the queue retries the original)', async () => {
    await expect(runLeased(queues, async () => { throw new Error('refused'); }, 'text', context())).rejects.toThrow('refused');
    expect(await count(queues.queue)).toBe(0);
  });

  test(`left behind by a dead process, the copy shows up after ${QUEUE_LEASE_SECONDS} s and runs the handler with the death counted`, async () => {
    // What a killed process leaves: its copy (made visible now instead of a minute later).
    let seen: { entry: unknown; dequeueCount: unknown } | undefined;
    await runLeased(queues, async (entry, invocation) => {
      seen = { entry, dequeueCount: invocation.triggerMetadata?.dequeueCount };
    }, { leaseCopy: { deaths: 2, entry: { ownerId: 'o', batchId: 'b', index: 1 } } }, context(1));
    expect(seen).toEqual({ entry: { ownerId: 'o', batchId: 'b', index: 1 }, dequeueCount: 3 });
    expect(await count(queues.queue)).toBe(0);
  });

  test(`a copy standing for ${MAX_DEQUEUE_COUNT} deaths goes to the poison queue without running`, async () => {
    let ran = false;
    await runLeased(queues, async () => {
      ran = true;
    }, { leaseCopy: { deaths: MAX_DEQUEUE_COUNT, entry: { ownerId: 'o', batchId: 'b', index: 2 } } }, context());
    expect(ran).toBe(false);
    const poisoned = (await queues.poison.peekMessages({ numberOfMessages: 32 })).peekedMessageItems.map((item) => item.messageText);
    expect(poisoned).toEqual([encode({ ownerId: 'o', batchId: 'b', index: 2 })]);
  });
});
