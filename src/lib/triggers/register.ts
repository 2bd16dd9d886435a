/**
 * Registers queue-triggered and timer-triggered functions with the Azure Functions host
 * (`app.storageQueue`, `app.timer`) and records them in {@link registeredQueueFunctions} and
 * {@link registeredTimerFunctions}, so the local host runs exactly what the function files declare
 * (CONTRACT §12.3), as `src/lib/http/register.ts` does for HTTP functions.
 *
 * Queue functions watch the storage account of the app setting `AzureWebJobsStorage` (the Function
 * App's own account, which is also the service's: `infra/modules/functionapp.bicep`), with the
 * retry rules of `host.json` `extensions.queues`: a message whose function throws comes back after
 * `visibilityTimeout`, and after `maxDequeueCount` dequeues moves to `<queue>-poison`.
 */
import { app, type InvocationContext, type Timer } from '@azure/functions';
import { registersWithFunctionsHost } from '../http/register.js';

/** The app setting naming the storage account whose queues trigger functions. */
export const QUEUE_CONNECTION = 'AzureWebJobsStorage';

export interface QueueFunctionOptions {
  /** Queue watched, for example `outbox-email` (`src/lib/storage/clients.ts` QUEUES). */
  queueName: string;
  /**
   * The decoded message: the host base64-decodes it (`host.json` `messageEncoding`) and passes JSON
   * as a parsed value, other text as a string. `context.triggerMetadata` holds `id`,
   * `dequeueCount` (number, 1 on the first delivery), `insertionTime`, `expirationTime`,
   * `nextVisibleTime`, `popReceipt`. Throwing makes the host retry the message.
   */
  handler: (entry: unknown, context: InvocationContext) => Promise<void>;
}

export interface TimerFunctionOptions {
  /** NCRONTAB with six fields, seconds first (`0 *\/5 * * * *`), in UTC. */
  schedule: string;
  handler: (timer: Timer, context: InvocationContext) => Promise<void>;
}

export interface RegisteredQueueFunction extends QueueFunctionOptions {
  name: string;
}

export interface RegisteredTimerFunction extends TimerFunctionOptions {
  name: string;
}

/** Every queue function registered so far in this process, in registration order. */
export const registeredQueueFunctions: RegisteredQueueFunction[] = [];

/** Every timer function registered so far in this process, in registration order. */
export const registeredTimerFunctions: RegisteredTimerFunction[] = [];

/** Registers one queue-triggered function (see the module comment). */
export function queueFunction(name: string, options: QueueFunctionOptions): void {
  registeredQueueFunctions.push({ name, ...options });
  if (registersWithFunctionsHost()) {
    app.storageQueue(name, { queueName: options.queueName, connection: QUEUE_CONNECTION, handler: options.handler });
  }
}

/** Registers one timer-triggered function (see the module comment). */
export function timerFunction(name: string, options: TimerFunctionOptions): void {
  registeredTimerFunctions.push({ name, ...options });
  if (registersWithFunctionsHost()) {
    app.timer(name, { schedule: options.schedule, runOnStartup: false, handler: options.handler });
  }
}
