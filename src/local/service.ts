/**
 * Starts the API on a local host against the configured storage: used by `npm start` and the
 * end-to-end tests, so both run the same start-up.
 */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LogHandler } from '@azure/functions';
import { getServices } from '../lib/services.js';
import { ensureStorage } from '../lib/storage/setup.js';
import { createLocalHost } from './host.js';
import { loadFunctions } from './loadFunctions.js';

export interface StartServiceOptions {
  /** 0 picks a free port. */
  port: number;
  /** Interface to listen on; default 127.0.0.1. */
  hostname?: string;
  logHandler?: LogHandler;
}

export interface RunningService {
  /** Base URL of the API, ending in `/api`. */
  apiUrl: string;
  server: http.Server;
  close(): Promise<void>;
}

/**
 * Reads the settings, creates missing tables and containers, sets Blob CORS, loads every function and
 * listens.
 * @throws ConfigError for a missing or invalid setting; storage errors when storage does not answer
 */
export async function startService({ port, hostname = '127.0.0.1', logHandler }: StartServiceOptions): Promise<RunningService> {
  const services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: services.config.allowedOrigins });
  const routes = await loadFunctions();
  const server = createLocalHost(routes, { allowedOrigins: services.config.allowedOrigins, ...(logHandler === undefined ? {} : { logHandler }) });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    apiUrl: `http://${hostname}:${address.port}/api`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
