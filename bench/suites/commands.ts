/**
 * The commands a newcomer runs, on a built checkout: `npm run --silent invite` (its pre-script's
 * check that `dist/` is up to date, then an invitation in the benchmark's Azurite) and a second
 * `npm start` (the same check, then Azurite with its data on disk, the mail catcher and the API,
 * until it prints its invitation code), each against a bare `node -e ""` (Node's own start-up).
 * Their targets are absolute: invite under 5 s, a second start under 15 s, on this machine.
 *
 * The start runs in a folder of its own (with `node dist/src/local/start.js` after the pre-script's
 * `node scripts/build.mjs --if-changed`, as `npm start` runs them), so that it never touches the
 * `.local/` of an `npm start` a developer runs in the checkout. An unmeasured first start generates
 * its local secrets; the measured ones are second starts.
 */
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { progress } from '../lib/progress.js';
import { summarize, type Summary } from '../lib/stats.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface CommandsFigures {
  /** `npm run --silent invite`, from spawn to exit, ms. */
  inviteMs: Summary;
  /** A second start: the build check plus `start.js` until it prints its invitation code, ms. */
  secondStartMs: Summary;
  /** `node -e ""`, ms. */
  nodeStartMs: Summary;
}

/** A clean environment with only what a newcomer has, plus `extra`. */
function newcomerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...extra };
}

/** Runs a command to its end; resolves with the milliseconds it took. @throws Error when it fails */
export async function timed(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${code}: ${stderr.trim()}`);
  return performance.now() - started;
}

/** Starts the service in `folder` as `npm start` does; resolves with the ms until its invitation code, once it has stopped again. */
async function timedStart(folder: string): Promise<number> {
  const env = newcomerEnv({ AZURITE_BLOB_PORT: '0', AZURITE_QUEUE_PORT: '0', AZURITE_TABLE_PORT: '0', MAIL_CATCHER_SMTP_PORT: '0', MAIL_CATCHER_WEB_PORT: '0', SMS_CATCHER_PORT: '0', PORT: '0', BCRYPT_COST: '10' });
  const started = performance.now();
  await timed(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build.mjs'), '--if-changed'], REPO_ROOT, env);
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'src', 'local', 'start.js')], { cwd: folder, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (line) => output.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const elapsed = await new Promise<number>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      output.push(line);
      if (/^Invitation code .*: inv_/.test(line)) resolve(performance.now() - started);
    });
    void exited.then((code) => reject(new Error(`npm start exited with ${code} before printing its invitation code:\n${output.join('\n')}`)));
  });
  child.kill('SIGINT');
  await exited;
  return elapsed;
}

export async function benchCommands(context: BenchContext): Promise<SuiteResult<CommandsFigures>> {
  const rounds = context.plan.commands.rounds;
  const folder = await mkdtemp(path.join(context.tmpDir, 'npm-start-'));
  const storage = { STORAGE_CONNECTION_STRING: String(context.env.STORAGE_CONNECTION_STRING) };
  const invite = () => timed('npm', ['run', '--silent', 'invite'], REPO_ROOT, newcomerEnv(storage));
  const node = () => timed(process.execPath, ['-e', ''], REPO_ROOT, newcomerEnv({}));
  // Unmeasured: the first start (local secrets, Azurite's files) and one of each, for the page cache.
  await timedStart(folder);
  await invite();
  await node();
  const inviteMs: number[] = [];
  const secondStartMs: number[] = [];
  const nodeStartMs: number[] = [];
  for (let round = 0; round < rounds; round++) {
    nodeStartMs.push(await node());
    inviteMs.push(await invite());
    secondStartMs.push(await timedStart(folder));
    progress(`commands, round ${round + 1}/${rounds}: invite ${Math.round(inviteMs.at(-1)!)} ms, second start ${Math.round(secondStartMs.at(-1)!)} ms, node -e "" ${Math.round(nodeStartMs.at(-1)!)} ms`);
  }
  const figures: CommandsFigures = { inviteMs: summarize(inviteMs), secondStartMs: summarize(secondStartMs), nodeStartMs: summarize(nodeStartMs) };
  return {
    figures,
    targets: [
      check('commands.invite', 'npm run --silent invite on a built checkout, seconds', figures.inviteMs.median / 1000, '<=', 5),
      check('commands.secondStart', 'a second npm start until its invitation code, seconds', figures.secondStartMs.median / 1000, '<=', 15),
    ],
  };
}
