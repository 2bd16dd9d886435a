/**
 * Another instance of the service, in a Node process of its own, sharing the test's storage but
 * nothing in memory: for the rules that hold "on every instance" or "exact across instances" (a
 * deleted API key refused everywhere within a bound, the daily e-mail quota), where two local hosts
 * in one process would share every in-memory cache and counter. It runs no queue or timer functions
 * (the test process's own service does), unless `settings` say `TEST_SERVICE_TRIGGERS: 'true'`. A test can end it abruptly (`kill`), as a crashed or
 * scaled-in instance ends.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './service.js';

const MAIN = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serviceProcessMain.js');

export interface ServiceProcess {
  /** Base URL of its API, ending in `/api`. */
  apiUrl: string;
  api: ApiClient;
  /** Stops it and waits for the process to end. */
  close(): Promise<void>;
  /** Ends the process with SIGKILL (no clean-up runs, as in a crash) and waits for it to exit. */
  kill(): Promise<void>;
}

/**
 * Starts the service in a child process with this process's environment (storage, secrets) and
 * `settings` on top, and resolves once it listens.
 * @throws Error when the process ends, or does not listen within 60 s
 */
export async function startServiceProcess(settings: Record<string, string> = {}): Promise<ServiceProcess> {
  const child = fork(MAIN, [], { env: { ...process.env, ...settings }, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const apiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('the second service instance did not start within 60 s'));
    }, 60_000);
    child.once('message', (message: { type?: string; apiUrl?: string }) => {
      clearTimeout(timer);
      if (message.type === 'ready' && typeof message.apiUrl === 'string') resolve(message.apiUrl);
      else reject(new Error(`unexpected message from the second instance: ${JSON.stringify(message)}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the second service instance exited with ${code} before it was ready`));
    });
  });
  return {
    apiUrl,
    api: new ApiClient(apiUrl),
    async close() {
      if (child.exitCode === null) child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
