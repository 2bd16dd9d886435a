/**
 * Starts the service on a local host against the configured storage: used by `npm start` and the
 * end-to-end tests, so both run the same start-up. Besides the HTTP functions it runs the queue and
 * timer functions of `src/functions` as the Functions host would (`queueRunner.ts`, `timerRunner.ts`,
 * with `host.json`'s queue settings).
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LogHandler } from '@azure/functions';
import { afterResponse } from '../lib/afterResponse.js';
import { loadConfig, markLocalHost, resetConfig } from '../lib/config.js';
import { AFTER_RESPONSE_GRACE_MS } from '../lib/http/register.js';
import { getEmailTransport, resetEmailTransport } from '../lib/notifications/transport.js';
import { resetSmsTransport } from '../lib/notifications/smsTransport.js';
import { getServices, resetServices } from '../lib/services.js';
import { resetStorage } from '../lib/storage/clients.js';
import { ensureStorage } from '../lib/storage/setup.js';
import { registeredQueueFunctions, registeredTimerFunctions } from '../lib/triggers/register.js';
import { createLocalHost } from './host.js';
import { loadFunctions } from './loadFunctions.js';
import { QueueTriggerRunner, readQueueRunnerSettings, type QueueRunnerSettings } from './queueRunner.js';
import { TimerTriggerRunner } from './timerRunner.js';

/** The project's `host.json` (from `dist/src/local`). */
export const HOST_JSON = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../host.json');

export interface StartServiceOptions {
  /** 0 picks a free port. */
  port: number;
  /** Interface to listen on; default 127.0.0.1. */
  hostname?: string;
  /** Where function logs go; default the console (without debug and trace lines). */
  logHandler?: LogHandler;
  /** Run the queue and timer functions; default true. */
  triggers?: boolean;
  /**
   * With `triggers`, run only the functions of these queues (names as in `host.json`'s bindings,
   * e.g. `bulk-jobs`); default every queue. Tests use it for an instance that must die holding
   * one kind of work only.
   */
  queues?: readonly string[];
  /** Overrides of `host.json`'s queue settings (tests shorten the visibility timeout). */
  queueSettings?: Partial<QueueRunnerSettings>;
}

export interface RunningService {
  /** Base URL of the API, ending in `/api`. */
  apiUrl: string;
  /** Origin that links in e-mails point at (`PUBLIC_BASE_URL`). */
  publicBaseUrl: string;
  server: http.Server;
  close(): Promise<void>;
}

/** Console output without debug and trace lines. */
const consoleLog: LogHandler = (level, ...args) => {
  if (level === 'error' || level === 'critical') console.error(...args);
  else if (level === 'warning') console.warn(...args);
  else if (level === 'information') console.log(...args);
};

/**
 * Loads every function, listens, then reads the settings, creates missing tables, containers and
 * queues, sets Blob CORS and starts the queue and timer functions. When PUBLIC_BASE_URL is unset,
 * it becomes this host's address (with the port actually bound) until {@link RunningService.close}.
 * @throws ConfigError for a missing or invalid setting; storage errors when storage does not answer
 */
export async function startService({ port, hostname = '127.0.0.1', logHandler = consoleLog, triggers = true, queues, queueSettings = {} }: StartServiceOptions): Promise<RunningService> {
  // The local host: settings for tests only (RETENTION_DAY_SECONDS) are accepted here, never in Azure.
  markLocalHost();
  const routes = await loadFunctions();
  const server = createLocalHost(routes, { allowedOrigins: loadConfig().allowedOrigins, logHandler });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const closeServer = () =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });

  const setBaseUrl = !process.env.PUBLIC_BASE_URL?.trim();
  if (setBaseUrl) process.env.PUBLIC_BASE_URL = `http://${hostname}:${address.port}`;
  const restoreBaseUrl = () => {
    if (setBaseUrl) delete process.env.PUBLIC_BASE_URL;
  };
  // Settings and clients built before this point would not know PUBLIC_BASE_URL.
  resetConfig();
  resetStorage();
  resetServices();
  resetEmailTransport();
  resetSmsTransport();

  let queueRunner: QueueTriggerRunner | undefined;
  let timerRunner: TimerTriggerRunner | undefined;
  try {
    const services = getServices();
    await ensureStorage(services.storage, { allowedOrigins: services.config.allowedOrigins });
    if (triggers) {
      getEmailTransport();
      const settings = { ...(await readQueueRunnerSettings(HOST_JSON)), ...queueSettings };
      const functions = queues === undefined ? registeredQueueFunctions : registeredQueueFunctions.filter((registered) => queues.includes(registered.queueName));
      queueRunner = new QueueTriggerRunner(services.storage.queueService, functions, { settings, logHandler });
      timerRunner = new TimerTriggerRunner(registeredTimerFunctions, { logHandler });
      timerRunner.start();
      queueRunner.start();
    }
    return {
      apiUrl: `http://${hostname}:${address.port}/api`,
      publicBaseUrl: services.config.publicBaseUrl,
      server,
      async close() {
        // Requests first, then the work they started after answering (`afterResponse.ts`), then the
        // triggers, and then what their last invocations started (a sweep's commits).
        await closeServer();
        await afterResponse.idle(AFTER_RESPONSE_GRACE_MS);
        await Promise.all([queueRunner?.close(), timerRunner?.close()]);
        await afterResponse.idle(AFTER_RESPONSE_GRACE_MS);
        restoreBaseUrl();
      },
    };
  } catch (error) {
    await Promise.all([queueRunner?.close(), timerRunner?.close()]);
    await closeServer().catch(() => undefined);
    restoreBaseUrl();
    throw error;
  }
}
