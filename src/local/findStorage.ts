/**
 * The storage a command run beside `npm start` works on (`npm run invite`, `npm run outbox`):
 * STORAGE_CONNECTION_STRING, or STORAGE_ACCOUNT_NAME with your Azure identity (from the environment
 * or `local.settings.json`, which the command applies first); with neither, the storage of the
 * `npm start` running in this folder, found through `.local/runtime.json`; with no `npm start`
 * either, a local Azurite on the standard ports (`UseDevelopmentStorage=true`).
 */
import net from 'node:net';
import { loadStorageSettings, type Config } from '../lib/config.js';
import { processAlive, readRuntimeFile, RUNTIME_FILE } from './runtimeFile.js';

/** The storage cannot be found or does not answer: a one-line explanation, without a stack. */
export class LocalStorageError extends Error {}

/**
 * The storage to use (see the module comment).
 * @throws LocalStorageError when `.local/runtime.json` was left by an `npm start` that no longer runs, or
 *   the local storage does not answer; ConfigError for an invalid setting
 */
export async function findStorage(root: string, env: NodeJS.ProcessEnv = process.env): Promise<Config['storage']> {
  if (env.STORAGE_CONNECTION_STRING?.trim() || env.STORAGE_ACCOUNT_NAME?.trim()) return loadStorageSettings(env);
  const runtime = await readRuntimeFile(root).catch((error: unknown) => {
    throw new LocalStorageError(error instanceof Error ? error.message : String(error));
  });
  if (runtime === null) {
    const storage = loadStorageSettings({});
    await probe(storage, `No npm start runs in this folder (no ${RUNTIME_FILE}) and no storage is configured, so the local Azurite on the standard ports was tried`);
    return storage;
  }
  if (!processAlive(runtime.pid)) {
    throw new LocalStorageError(
      `${RUNTIME_FILE} was left by an npm start (process ${runtime.pid}, started ${runtime.startedAt}) that no longer runs: start npm start again in this folder, or set STORAGE_CONNECTION_STRING.`,
    );
  }
  await probe(runtime.storage, `The storage of the npm start running in this folder (process ${runtime.pid}) does not answer`);
  console.error(`Using the storage of the npm start running in this folder (process ${runtime.pid}, API at ${runtime.apiUrl}).`);
  return runtime.storage;
}

/** Fails fast (2 s) when the Table endpoint of a local connection string refuses connections. */
async function probe(storage: Config['storage'], failure: string): Promise<void> {
  if (storage.kind !== 'connectionString') return;
  const endpoint = tableEndpoint(storage.connectionString);
  if (endpoint === null) return;
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: endpoint.hostname, port: Number(endpoint.port || (endpoint.protocol === 'https:' ? 443 : 80)) });
    const settle = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(2_000);
    socket.once('connect', () => settle(true));
    socket.once('timeout', () => settle(false));
    socket.once('error', () => settle(false));
  });
  if (!reachable) throw new LocalStorageError(`${failure}: nothing listens at ${endpoint.origin}.`);
}

/** The Table endpoint a connection string names, or `null` when it names none that can be probed. */
function tableEndpoint(connectionString: string): URL | null {
  const parts = new Map(
    connectionString
      .split(';')
      .map((part) => part.trim())
      .filter((part) => part.includes('='))
      .map((part) => [part.slice(0, part.indexOf('=')).toLowerCase(), part.slice(part.indexOf('=') + 1)] as const),
  );
  if (parts.get('usedevelopmentstorage')?.toLowerCase() === 'true') return new URL('http://127.0.0.1:10002');
  const explicit = parts.get('tableendpoint');
  try {
    return explicit === undefined ? null : new URL(explicit);
  } catch {
    return null;
  }
}
