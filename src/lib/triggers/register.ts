/**
 * Registers queue-triggered and timer-triggered functions with the Azure Functions host
 * (`app.storageQueue`, `app.timer`) and records them in {@link registeredQueueFunctions} and
 * {@link registeredTimerFunctions}, so the local host runs exactly what the function files declare
 * (docs/api.md#the-sweeper), as `src/lib/http/register.ts` does for HTTP functions. As there, the handler
 * loads on the function's first invocation (`loadHandler`, once, shared by concurrent first
 * invocations); a load that fails fails that invocation, which the host retries like any other.
 *
 * Queue functions watch the storage account of the app setting `AzureWebJobsStorage` (the Function
 * App's own account, which is also the service's: `infra/modules/functionapp.bicep`), with the
 * retry rules of `host.json` `extensions.queues`: a message whose function throws comes back after
 * `visibilityTimeout`, and after `maxDequeueCount` dequeues moves to `<queue>-poison`.
 *
 * A message whose invocation dies with its process (killed, out of memory, a host restart) is another
 * matter: the Functions host keeps every message it hands to a function invisible for 10 minutes,
 * renewed while the function runs, and `host.json` offers no setting for that lease (its
 * `visibilityTimeout` is the delay after a failure). So each queue function keeps a lease of its
 * own, {@link QUEUE_LEASE_SECONDS}: before the handler runs, a copy of the message is put on the same
 * queue, invisible for that long and renewed every {@link QUEUE_LEASE_RENEW_SECONDS} while the
 * handler runs, and deleted when it returns or throws. When the process dies, the copy shows up about
 * a minute later and runs the handler again (every handler is idempotent: claims and states in
 * storage); the original comes back after the host's 10 minutes and finds its work done. A copy
 * counts the deaths it stands for; one standing for {@link MAX_DEQUEUE_COUNT} deaths goes to
 * `<queue>-poison` without running (a message that kills its process every time), and the handler
 * sees the deaths added to `triggerMetadata.dequeueCount`. The cost: two or three more queue
 * operations per message.
 */
import { app, type InvocationContext, type Timer } from '@azure/functions';
import type { QueueClient } from '@azure/storage-queue';
import { registersWithFunctionsHost } from '../http/register.js';
import { onFirstUse } from '../onFirstUse.js';
import { MAX_DEQUEUE_COUNT } from '../storage/queues.js';
import { inTriggerSpan } from '../telemetry/index.js';

/** The app setting naming the storage account whose queues trigger functions. */
export const QUEUE_CONNECTION = 'AzureWebJobsStorage';

/** Seconds after which the work of a message whose process died comes back (see the module comment). */
export const QUEUE_LEASE_SECONDS = 60;
/** Seconds between renewals of that lease while the handler runs. */
export const QUEUE_LEASE_RENEW_SECONDS = 20;

/** The body of a lease copy (see the module comment): the decoded message, and the deaths it stands for. */
interface LeaseCopy {
  leaseCopy: { deaths: number; entry: unknown };
}

function isLeaseCopy(entry: unknown): entry is LeaseCopy {
  const copy = (entry as Partial<LeaseCopy> | null)?.leaseCopy;
  return typeof entry === 'object' && entry !== null && typeof copy === 'object' && copy !== null && Number.isInteger(copy.deaths) && 'entry' in copy;
}

/** Queue message text of a JSON value, as the host's `base64` message encoding expects it. */
function encodeMessage(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

/** Pauses between tries at putting a lease copy while storage fails, milliseconds (about 30 s in all). */
const LEASE_COPY_PAUSES_MS = [1000, 2000, 4000, 8000, 15_000];

/**
 * Puts the lease copy, invisible for {@link QUEUE_LEASE_SECONDS}, retrying while storage fails: an
 * invocation that fails here fails before its handler ran, and the host could not give its message
 * back either (storage is down), so the message would wait out the host's 10 minutes.
 */
async function putLeaseCopy(queue: QueueClient, text: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await queue.sendMessage(text, { visibilityTimeout: QUEUE_LEASE_SECONDS });
    } catch (error) {
      const pause = LEASE_COPY_PAUSES_MS[attempt];
      if (pause === undefined) throw error;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/**
 * Runs `handler` under a lease of its own (see the module comment). Exported for the tests.
 * @param queue the function's queue and its poison queue, from the background storage clients
 */
export async function runLeased(
  queues: { queue: QueueClient; poison: QueueClient },
  handler: QueueHandler,
  entry: unknown,
  context: InvocationContext,
): Promise<void> {
  let deaths = 0;
  let inner = entry;
  if (isLeaseCopy(entry)) {
    deaths = entry.leaseCopy.deaths;
    inner = entry.leaseCopy.entry;
    if (deaths >= MAX_DEQUEUE_COUNT) {
      await queues.poison.createIfNotExists();
      await queues.poison.sendMessage(encodeMessage(inner));
      context.warn(`A message of ${queues.queue.name} stood for ${deaths} invocations that died with their process; moved to ${queues.poison.name}.`);
      return;
    }
  }
  const metadata = context.triggerMetadata ?? {};
  context.triggerMetadata = { ...metadata, dequeueCount: Number(metadata.dequeueCount ?? 1) + deaths };
  const copy = await putLeaseCopy(queues.queue, encodeMessage({ leaseCopy: { deaths: deaths + 1, entry: inner } } satisfies LeaseCopy));
  let popReceipt = copy.popReceipt;
  let renewing = Promise.resolve();
  const timer = setInterval(() => {
    renewing = queues.queue
      .updateMessage(copy.messageId, popReceipt, undefined, QUEUE_LEASE_SECONDS)
      .then((renewed) => {
        popReceipt = renewed.popReceipt ?? popReceipt;
      })
      .catch((error: unknown) => context.warn(`Lease of a ${queues.queue.name} message not renewed (${error instanceof Error ? error.message : String(error)}); it may run twice.`));
  }, QUEUE_LEASE_RENEW_SECONDS * 1000);
  try {
    await handler(inner, context);
  } finally {
    clearInterval(timer);
    await renewing;
    try {
      await queues.queue.deleteMessage(copy.messageId, popReceipt);
    } catch (error) {
      // A copy that stays only runs the handler once more, a minute later, which finds the work done.
      context.warn(`Lease copy of a ${queues.queue.name} message not deleted (${error instanceof Error ? error.message : String(error)}); it runs once more.`);
    }
  }
}

/**
 * A queue function's handler. `entry` is the decoded message: the host base64-decodes it (`host.json`
 * `messageEncoding`) and passes JSON as a parsed value, other text as a string.
 * `context.triggerMetadata` holds `id`, `dequeueCount` (number, 1 on the first delivery),
 * `insertionTime`, `expirationTime`, `nextVisibleTime`, `popReceipt`. Throwing makes the host retry
 * the message.
 */
export type QueueHandler = (entry: unknown, context: InvocationContext) => Promise<void>;

export type TimerHandler = (timer: Timer, context: InvocationContext) => Promise<void>;

export interface QueueFunctionOptions {
  /** Queue watched, for example `outbox-email` (`src/lib/storage/queues.ts` QUEUES). */
  queueName: string;
  /** Imports the handler (`async () => (await import('../handlers/SendEmail.js')).sendEmail`); called once. */
  loadHandler: () => Promise<QueueHandler>;
}

export interface TimerFunctionOptions {
  /** NCRONTAB with six fields, seconds first (`0 *\/5 * * * *`), in UTC. */
  schedule: string;
  /** Imports the handler; called once. */
  loadHandler: () => Promise<TimerHandler>;
}

export interface RegisteredQueueFunction {
  name: string;
  queueName: string;
  /** The handler as registered with the host, loading included. */
  handler: QueueHandler;
}

export interface RegisteredTimerFunction {
  name: string;
  schedule: string;
  /** The handler as registered with the host, loading included. */
  handler: TimerHandler;
}

/** Every queue function registered so far in this process, in registration order. */
export const registeredQueueFunctions: RegisteredQueueFunction[] = [];

/** Every timer function registered so far in this process, in registration order. */
export const registeredTimerFunctions: RegisteredTimerFunction[] = [];

/** Registers one queue-triggered function (see the module comment). */
export function queueFunction(name: string, options: QueueFunctionOptions): void {
  const loadHandler = onFirstUse(options.loadHandler);
  const loadQueues = onFirstUse(async () => {
    // Loaded with the handler, not when the function modules are imported (cold start).
    const { getStorage } = await import('../storage/clients.js');
    const queueService = getStorage('background').queueService;
    return { queue: queueService.getQueueClient(options.queueName), poison: queueService.getQueueClient(`${options.queueName}-poison`) };
  });
  // The handler loads under the lease: a first invocation's import takes a while, and a process that
  // dies meanwhile must leave the lease's copy behind.
  // Each invocation in a span when telemetry is on (docs/api.md#telemetry), the lease's storage calls included.
  const handler: QueueHandler = async (entry, context) =>
    await inTriggerSpan({ queue: options.queueName }, context, async () => await runLeased(await loadQueues(), async (inner, invocation) => await (await loadHandler())(inner, invocation), entry, context));
  registeredQueueFunctions.push({ name, queueName: options.queueName, handler });
  if (registersWithFunctionsHost()) {
    app.storageQueue(name, { queueName: options.queueName, connection: QUEUE_CONNECTION, handler });
  }
}

/** Registers one timer-triggered function (see the module comment). */
export function timerFunction(name: string, options: TimerFunctionOptions): void {
  const loadHandler = onFirstUse(options.loadHandler);
  const handler: TimerHandler = async (timer, context) => await inTriggerSpan({ timer: name }, context, async () => await (await loadHandler())(timer, context));
  registeredTimerFunctions.push({ name, schedule: options.schedule, handler });
  if (registersWithFunctionsHost()) {
    app.timer(name, { schedule: options.schedule, runOnStartup: false, handler });
  }
}
