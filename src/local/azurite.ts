/**
 * Starts Azurite (Blob, Queue and Table) as a
 * child process and waits until every service listens. Used by `npm start` (data kept on disk) and by
 * the test suite (in memory, random ports).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';

/** Azurite's well-known development account (public, documented by Microsoft; not a secret). */
export const AZURITE_ACCOUNT_NAME = 'devstoreaccount1';
export const AZURITE_ACCOUNT_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

export interface AzuriteOptions {
  /** Folder for Azurite's data; omit for in-memory storage (lost on stop). */
  location?: string;
  /** Ports; 0 (the default) lets the system choose. */
  blobPort?: number;
  queuePort?: number;
  tablePort?: number;
  /** Milliseconds to wait for all services to listen. Default 120000: a few seconds on a quiet machine, far longer on a loaded one, and the wait ends as soon as they listen. */
  startTimeoutMs?: number;
  /** Further Azurite CLI options (for example `--oauth basic --cert c.pem --key k.pem` for HTTPS and OAuth). */
  extraArgs?: string[];
  /** Options for Node itself, before Azurite's script (the benchmark's `--cpu-prof --cpu-prof-dir=DIR`). */
  nodeArgs?: string[];
}

export interface RunningAzurite {
  blobEndpoint: string;
  tableEndpoint: string;
  queueEndpoint: string;
  /** Connection string for the SDK clients, with explicit endpoints. */
  connectionString: string;
  /** Stops Azurite and waits for the process to exit. */
  stop(): Promise<void>;
}

/**
 * Starts Azurite and resolves once Blob, Queue and Table listen.
 * @throws Error when Azurite exits early (for example a port in use) or does not start in time;
 *   the message carries Azurite's last output lines.
 */
export async function startAzurite(options: AzuriteOptions = {}): Promise<RunningAzurite> {
  const require = createRequire(import.meta.url);
  const azuriteMain = path.join(path.dirname(require.resolve('azurite/package.json')), 'dist/src/azurite.js');
  const args = [
    ...(options.nodeArgs ?? []),
    azuriteMain,
    '--skipApiVersionCheck',
    '--disableTelemetry',
    '--loose',
    '--blobHost', '127.0.0.1',
    '--queueHost', '127.0.0.1',
    '--tableHost', '127.0.0.1',
    '--blobPort', String(options.blobPort ?? 0),
    '--queuePort', String(options.queuePort ?? 0),
    '--tablePort', String(options.tablePort ?? 0),
    ...(options.location === undefined ? ['--inMemoryPersistence'] : ['--location', options.location]),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const endpoints: Partial<Record<'Blob' | 'Queue' | 'Table', string>> = {};

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error('Azurite did not start in time')), options.startTimeoutMs ?? 120_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`${error.message}\n${output.slice(-10).join('\n')}`));
    };
    const onLine = (line: string) => {
      output.push(line);
      const match = /Azurite (Blob|Queue|Table) service is successfully listening at (\S+)/.exec(line);
      if (match) {
        endpoints[match[1] as 'Blob' | 'Queue' | 'Table'] = match[2];
        if (endpoints.Blob && endpoints.Queue && endpoints.Table) {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve();
        }
      }
    };
    const onExit = (code: number | null) => fail(new Error(`Azurite exited with code ${code} before it was ready`));
    readline.createInterface({ input: child.stdout! }).on('line', onLine);
    readline.createInterface({ input: child.stderr! }).on('line', onLine);
    child.once('exit', onExit);
    child.once('error', (error) => fail(error));
  });

  const blobEndpoint = `${endpoints.Blob!}/${AZURITE_ACCOUNT_NAME}`;
  const tableEndpoint = `${endpoints.Table!}/${AZURITE_ACCOUNT_NAME}`;
  const queueEndpoint = `${endpoints.Queue!}/${AZURITE_ACCOUNT_NAME}`;
  return {
    blobEndpoint,
    tableEndpoint,
    queueEndpoint,
    connectionString:
      `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT_NAME};AccountKey=${AZURITE_ACCOUNT_KEY};` +
      `BlobEndpoint=${blobEndpoint};QueueEndpoint=${queueEndpoint};TableEndpoint=${tableEndpoint};`,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
