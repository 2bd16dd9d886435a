/**
 * Runs a handler for the messages of one Azure Storage queue, as the Functions host's queue trigger
 * does in the ways these tests rely on: messages received in batches with a visibility timeout,
 * handled concurrently (a slow handler holds back no other message), deleted when the handler
 * succeeds, left to reappear when it throws. For tests of queue-driven lib functions before they are
 * wired to `app.storageQueue`.
 */
import type { QueueClient } from '@azure/storage-queue';

export interface QueueRunner {
  /** Handler failures so far (a test asserts there were none). */
  failures: unknown[];
  /** Messages handled successfully so far. */
  handled: number;
  /** Stops receiving and waits for the handlers in flight. */
  stop(): Promise<void>;
}

export function startQueueRunner(queue: QueueClient, handle: (messageText: string, dequeueCount: number) => Promise<unknown>, options: { pollMs?: number; visibilityTimeoutSeconds?: number } = {}): QueueRunner {
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  const runner: QueueRunner = {
    failures: [],
    handled: 0,
    stop: async () => {
      stopped = true;
      await loop;
      await Promise.all(inFlight);
    },
  };
  const loop = (async () => {
    while (!stopped) {
      const received = await queue.receiveMessages({ numberOfMessages: 16, visibilityTimeout: options.visibilityTimeoutSeconds ?? 60 });
      for (const message of received.receivedMessageItems) {
        const work = (async () => {
          try {
            await handle(message.messageText, message.dequeueCount);
            await queue.deleteMessage(message.messageId, message.popReceipt);
            runner.handled++;
          } catch (error) {
            runner.failures.push(error);
          }
        })();
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work));
      }
      if (received.receivedMessageItems.length === 0) await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 50));
    }
  })();
  return runner;
}

