/**
 * A second instance of the service, in a process of its own, against the suite's storage: for the rules
 * that must hold across instances (CONTRACT §14), where two local hosts in one process would share
 * every in-memory cache and counter.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** `dist/src/local/service.js`, beside these compiled tests. */
const SERVICE_MODULE = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/local/service.js')).href;

// Starts the service without queue and timer functions (this test process's own service runs them),
// prints its URL, and closes when its stdin ends. Run from a file, not with --eval: worker threads
// (the document checks) inherit the process's options, and --input-type is refused there.
const SCRIPT = `
const { startService } = await import(${JSON.stringify(SERVICE_MODULE)});
const service = await startService({ port: 0, triggers: false, logHandler: (level, ...args) => { if (level === 'error' || level === 'critical') console.error(...args); } });
process.stdout.write(JSON.stringify({ apiUrl: service.apiUrl }) + '\\n');
process.stdin.resume();
process.stdin.on('end', () => service.close().then(() => process.exit(0), () => process.exit(1)));
`;

export interface ServiceProcess {
  /** Base URL of its API, ending in `/api`. */
  apiUrl: string;
  /** Stops it and waits for the process to end. */
  close(): Promise<void>;
}

/**
 * Starts the service in a child process with this process's environment and `settings` on top.
 * @throws Error when the process ends or writes nothing within 60 s instead of telling its URL
 */
export async function startServiceProcess(settings: Record<string, string> = {}): Promise<ServiceProcess> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'service-process-'));
  const script = path.join(folder, 'service.mjs');
  await writeFile(script, SCRIPT);
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...settings },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve())).then(async () => await rm(folder, { recursive: true, force: true }));
  try {
    const apiUrl = await firstLine(child);
    return {
      apiUrl,
      async close() {
        child.stdin!.end();
        await exited;
      },
    };
  } catch (error) {
    child.kill();
    await exited;
    throw error;
  }
}

async function firstLine(child: ChildProcess): Promise<string> {
  const lines = createInterface({ input: child.stdout! });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      new Promise<string>((resolve, reject) => {
        lines.once('line', (line) => resolve((JSON.parse(line) as { apiUrl: string }).apiUrl));
        child.once('exit', (code) => reject(new Error(`the service process ended (code ${code}) before telling its URL`)));
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the service process did not tell its URL within 60 s')), 60_000);
      }),
    ]);
  } finally {
    clearTimeout(timer);
    lines.close();
  }
}
