/**
 * `npm start` as a newcomer runs it (CONTRACT §9, README): on an empty folder it generates local
 * secrets, starts Azurite with data on disk, serves the API, prints its address and an invitation
 * code; the README's curl session works as written against it; Ctrl-C stops everything; a restart
 * keeps data and secrets. A bad setting stops it with one line naming the setting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { tool } from '../support/tools.js';

const START = path.resolve('dist/src/local/start.js');
let root: string;

/** A clean environment: nothing of the test suite's settings leaks into the started service. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, AZURITE_BLOB_PORT: '0', AZURITE_QUEUE_PORT: '0', AZURITE_TABLE_PORT: '0', PORT: '0', BCRYPT_COST: '10', ...extra };
}

interface Started {
  child: ChildProcess;
  apiUrl: string;
  code: string;
  output: string[];
}

async function start(): Promise<Started> {
  const child = spawn(process.execPath, [START], { cwd: root, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  return await new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not started within 30 s:\n${output.join('\n')}`)), 30_000);
    let apiUrl = '';
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      apiUrl = /API listening at (\S+)/.exec(line)?.[1] ?? apiUrl;
      const code = /Invitation code .*: (inv_\S+)/.exec(line)?.[1];
      if (code !== undefined) {
        clearTimeout(timer);
        resolve({ child, apiUrl, code, output });
      }
    });
    child.once('exit', (exitCode) => reject(new Error(`exited with ${exitCode}:\n${output.join('\n')}`)));
  });
}

async function stop(started: Started): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
  started.child.kill('SIGINT');
  return await exited;
}

/** The shell block of the README's "A session with curl", without its two placeholder lines. */
async function readmeSession(): Promise<string> {
  const readme = await readFile('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('## A session with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README has no curl session');
  return block
    .split('\n')
    .filter((line) => !/^(API|CODE)=/.test(line))
    .join('\n');
}

beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'npm-start-'));
  // The README's session uploads tests/corpus/pdf/fill_form.pdf, relative to the project folder.
  await symlink(path.resolve('tests'), path.join(root, 'tests'));
});

describe('npm start on an empty folder', () => {
  let first: Started;

  afterAll(async () => {
    if (first?.child.exitCode === null) await stop(first);
  });

  test('generates secrets, starts Azurite and the API, prints the address and an invitation code', async () => {
    first = await start();
    expect(first.apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect((await fetch(`${first.apiUrl}/health`)).status).toBe(200);
    const secrets = path.join(root, '.local/secrets.json');
    expect(existsSync(secrets)).toBe(true);
    expect(statSync(secrets).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(await readFile(secrets, 'utf8')) as object).sort()).toEqual(['JWT_SECRET', 'SEAL_P12_BASE64', 'SEAL_P12_PASSPHRASE']);
    expect(existsSync(path.join(root, '.azurite'))).toBe(true);
    // CONTRACT §2: without a Turnstile secret, captcha tokens are ignored and a warning says so at start.
    expect(first.output.some((line) => line.includes('TURNSTILE_SECRET_KEY is not set'))).toBe(true);
  });

  test("the README's curl session works as written", async () => {
    const result = await tool('bash', ['-e', '-c', await readmeSession()], root, { ...process.env, API: first.apiUrl, CODE: first.code });
    expect(result.code).toBe(0);
    const completion = JSON.parse(await readFile(path.join(root, 'complete.json'), 'utf8')) as { hash: string; signedUrl: string };
    expect(result.stdout).toContain(`${completion.hash}  sealed.pdf`);
    expect(result.stdout).toContain('Signature is Valid.');
    expect(result.stdout).toContain('Total document signed');
    expect(result.stdout).toContain('"envelopeId"');
    expect(result.stdout).toContain('envelope.completed');
  });

  test('Ctrl-C stops the API and Azurite; a restart keeps the data and the secrets', async () => {
    const token = JSON.parse(
      await (await fetch(`${first.apiUrl}/Login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'ada@example.com', password: 'correct horse battery' }) })).text(),
    ).token as string;
    expect(await stop(first)).toBe(0);
    await expect(fetch(`${first.apiUrl}/health`)).rejects.toThrow();

    const second = await start();
    try {
      const list = await fetch(`${second.apiUrl}/envelopes`, { headers: { Authorization: `Bearer ${token}` } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as { status: string }[]).map((envelope) => envelope.status)).toEqual(['completed']);
      expect(second.code).not.toBe(first.code);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  });
});

describe('a bad setting', () => {
  test.each([
    [{ JWT_SECRET: 'too-short' }, 'JWT_SECRET'],
    [{ BCRYPT_COST: '4' }, 'BCRYPT_COST'],
    [{ AZURITE_BLOB_PORT: 'ten' }, 'AZURITE_BLOB_PORT'],
  ])('%j stops start-up with one line naming %s', async (settings, name) => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'npm-start-bad-'));
    const child = spawn(process.execPath, [START], { cwd: dir, env: cleanEnv(settings), stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    readline.createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr.filter((line) => line.includes(name))).toEqual([expect.stringMatching(new RegExp(`^Invalid setting ${name}: `))]);
  });
});
