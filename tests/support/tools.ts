/**
 * The independent PDF tools of the checks (poppler's pdfsig, pdftotext, pdfinfo; qpdf), run on files.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `command` and returns its exit code and output; never throws for a non-zero exit. */
export async function tool(command: string, args: string[], cwd?: string, env?: NodeJS.ProcessEnv): Promise<ToolResult> {
  try {
    const { stdout, stderr } = await run(command, args, { maxBuffer: 64 * 1024 * 1024, ...(cwd === undefined ? {} : { cwd }), ...(env === undefined ? {} : { env }) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Writes `bytes` to a new temporary file and returns its path. */
export async function tempFile(bytes: Uint8Array, name = 'document.pdf'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'envelope-test-'));
  const file = path.join(dir, name);
  await writeFile(file, bytes);
  return file;
}
