/**
 * Another instance of the service, in a child process sharing the test's storage (the settings of
 * this process's environment, plus any given): what two Function App instances behind one storage
 * account are. A test can end it abruptly (`kill`), as a crashed or scaled-in instance ends.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { ApiClient } from './service.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'serviceChild.js');

export interface ServiceProcess {
  api: ApiClient;
  apiUrl: string;
  /** Ends the process with SIGKILL (no clean-up runs, as in a crash) and waits for it to exit. */
  kill(): Promise<void>;
}

/**
 * Starts an instance and resolves once it listens.
 * @param settings environment variables to set in the child (besides this process's)
 * @throws when it does not start within 30 s, with its output
 */
export async function startServiceProcess(settings: Record<string, string> = {}): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, [CHILD], { env: { ...process.env, ...settings }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const apiUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the second instance did not start within 30 s:\n${output.join('\n')}`)), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the second instance exited with ${code}:\n${output.join('\n')}`));
    });
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      const url = /^API listening at (\S+)$/.exec(line)?.[1];
      if (url !== undefined) {
        clearTimeout(timer);
        resolve(url);
      }
    });
  });
  return {
    api: new ApiClient(apiUrl),
    apiUrl,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
