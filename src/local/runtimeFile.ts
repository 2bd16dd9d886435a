/**
 * `.local/runtime.json`: what a running `npm start` uses, written once it serves and removed when it
 * stops, so that commands run beside it (`npm run invite`) find its storage without any setting. A
 * file left by a process that was killed is recognised by its process id no longer running.
 *
 * It holds the storage connection string (the public Azurite key, or the one from your settings), so
 * it is written with mode 0600 in the git-ignored `.local/`, like the local secrets.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../lib/config.js';

/** Where the file lives, relative to the project folder. */
export const RUNTIME_FILE = path.join('.local', 'runtime.json');

export interface LocalRuntime {
  /** Process id of `npm start`'s Node process. */
  pid: number;
  /** ISO 8601. */
  startedAt: string;
  /** Base URL of the API, ending in `/api`. */
  apiUrl: string;
  /** The mail catcher's web page, or `null` when SMTP_URL was set. */
  mailCatcherUrl: string | null;
  storage: Config['storage'];
}

/** Writes the file for this process (mode 0600). */
export async function writeRuntimeFile(root: string, runtime: LocalRuntime): Promise<void> {
  await mkdir(path.join(root, '.local'), { recursive: true });
  await writeFile(path.join(root, RUNTIME_FILE), `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the file if this process (`pid`) wrote it; synchronous, so it also works in an `exit` handler. */
export function removeRuntimeFile(root: string, pid: number): void {
  const file = path.join(root, RUNTIME_FILE);
  try {
    if (!existsSync(file) || (JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalRuntime>).pid !== pid) return;
  } catch {
    // An unreadable file is nobody's: remove it.
  }
  rmSync(file, { force: true });
}

/**
 * The file of a running or dead `npm start` in `root`, or `null` when there is none.
 * @throws Error when the file exists but is not what `npm start` writes
 */
export async function readRuntimeFile(root: string): Promise<LocalRuntime | null> {
  const file = path.join(root, RUNTIME_FILE);
  if (!existsSync(file)) return null;
  const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<LocalRuntime>;
  const storage = parsed.storage as Partial<Config['storage']> | undefined;
  const storageOk =
    (storage?.kind === 'connectionString' && typeof storage.connectionString === 'string') ||
    (storage?.kind === 'managedIdentity' && typeof storage.accountName === 'string');
  if (typeof parsed.pid !== 'number' || typeof parsed.apiUrl !== 'string' || !storageOk) throw new Error(`${RUNTIME_FILE} is not what npm start writes`);
  return parsed as LocalRuntime;
}

/** Whether a process with this id runs (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
