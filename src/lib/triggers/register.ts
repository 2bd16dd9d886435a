/**
 * Registers queue-triggered and timer-triggered functions with the Azure Functions host
 * (`app.storageQueue`, `app.timer`) and records them in {@link registeredQueueFunctions} and
 * {@link registeredTimerFunctions}, so the local host runs exactly what the function files declare
 * (CONTRACT §12.3), as `src/lib/http/register.ts` does for HTTP functions. As there, the handler
 * loads on the function's first invocation (`loadHandler`, once, shared by concurrent first
 * invocations); a load that fails fails that invocation, which the host retries like any other.
 *
 * Queue functions watch the storage account of the app setting `AzureWebJobsStorage` (the Function
 * App's own account, which is also the service's: `infra/modules/functionapp.bicep`), with the
 * retry rules of `host.json` `extensions.queues`: a message whose function throws comes back after
 * `visibilityTimeout`, and after `maxDequeueCount` dequeues moves to `<queue>-poison`.
 */
import { app, type InvocationContext, type Timer } from '@azure/functions';
import { registersWithFunctionsHost } from '../http/register.js';
import { onFirstUse } from '../onFirstUse.js';

/** The app setting naming the storage account whose queues trigger functions. */
export const QUEUE_CONNECTION = 'AzureWebJobsStorage';

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
  const handler: QueueHandler = async (entry, context) => await (await loadHandler())(entry, context);
  registeredQueueFunctions.push({ name, queueName: options.queueName, handler });
  if (registersWithFunctionsHost()) {
    app.storageQueue(name, { queueName: options.queueName, connection: QUEUE_CONNECTION, handler });
  }
}

/** Registers one timer-triggered function (see the module comment). */
export function timerFunction(name: string, options: TimerFunctionOptions): void {
  const loadHandler = onFirstUse(options.loadHandler);
  const handler: TimerHandler = async (timer, context) => await (await loadHandler())(timer, context);
  registeredTimerFunctions.push({ name, schedule: options.schedule, handler });
  if (registersWithFunctionsHost()) {
    app.timer(name, { schedule: options.schedule, runOnStartup: false, handler });
  }
}
