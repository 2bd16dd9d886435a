/**
 * Benchmark processes: the service, the baseline server and the one-shot measurements each run in a
 * Node process of their own (started with `fork`, talking over the IPC channel), so that the load
 * generator never shares an event loop with what it measures.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folder of the compiled process scripts (`dist/bench/processes`). */
export const PROCESSES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../processes');

export function processScript(name: string): string {
  return path.join(PROCESSES_DIR, `${name}.js`);
}

/** What a process sends its parent. */
export type ChildMessage =
  | { type: 'ready'; [key: string]: unknown }
  | { type: 'result'; result: unknown }
  | { type: 'reply'; id: number; result?: unknown; error?: string }
  | { type: 'error'; error: string };

export interface RunningChild<Ready> {
  child: ChildProcess;
  ready: Ready;
  /** Sends `message` and resolves with the child's reply to it. */
  request<T>(message: Record<string, unknown>): Promise<T>;
  /** Asks the child to stop, and kills it if it has not within 5 s. */
  stop(): Promise<void>;
}

export interface ChildOptions {
  args?: string[];
  env: NodeJS.ProcessEnv;
  /** Node options, e.g. `--expose-gc`. */
  execArgv?: string[];
  /** Milliseconds to wait for `ready` (or `result`). */
  timeoutMs?: number;
}

function spawnChild(name: string, options: ChildOptions): ChildProcess {
  return fork(processScript(name), options.args ?? [], {
    env: options.env,
    execArgv: options.execArgv ?? [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
}

/** Starts a long-running process and resolves once it says it is ready. */
export async function startChild<Ready>(name: string, options: ChildOptions): Promise<RunningChild<Ready>> {
  const child = spawnChild(name, options);
  let nextId = 1;
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  const ready = await new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in time`));
    }, options.timeoutMs ?? 60_000);
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message as Ready);
      } else if (message.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`${name}: ${message.error}`));
      } else if (message.type === 'reply') {
        const waiting = pending.get(message.id);
        pending.delete(message.id);
        if (message.error !== undefined) waiting?.reject(new Error(`${name}: ${message.error}`));
        else waiting?.resolve(message.result);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with code ${code} before it was ready`));
      for (const waiting of pending.values()) waiting.reject(new Error(`${name} exited with code ${code}`));
    });
  });
  return {
    child,
    ready,
    request<T>(message: Record<string, unknown>): Promise<T> {
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ ...message, id });
      });
    },
    async stop(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a one-shot process to completion and resolves with the result it sent. */
export async function runChild<T>(name: string, options: ChildOptions): Promise<T> {
  const child = spawnChild(name, options);
  return await new Promise<T>((resolve, reject) => {
    let result: { value: T } | undefined;
    let failure: string | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not finish in time`));
    }, options.timeoutMs ?? 300_000);
    child.on('message', (message: ChildMessage) => {
      if (message.type === 'result') result = { value: message.result as T };
      else if (message.type === 'error') failure = message.error;
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (result !== undefined && code === 0) resolve(result.value);
      else reject(new Error(`${name} failed (exit code ${code})${failure === undefined ? '' : `: ${failure}`}`));
    });
  });
}

/** For process scripts: sends a message to the parent. */
export function tellParent(message: ChildMessage): void {
  process.send?.(message);
}

/** For process scripts: sends `message`, then exits with `code` once it is on its way. */
export function finish(message: ChildMessage, code = 0): void {
  if (process.send === undefined) process.exit(code);
  process.send(message, () => process.exit(code));
}

/** For process scripts: sends the result and exits. */
export function finishWithResult(result: unknown): void {
  finish({ type: 'result', result });
}

/** For process scripts: reports `error` to the parent and exits with code 1. */
export function failToParent(error: unknown): void {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  finish({ type: 'error', error: error instanceof Error ? error.message : String(error) }, 1);
}
