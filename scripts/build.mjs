#!/usr/bin/env node
/**
 * Builds `dist/`: compiles the TypeScript with `tsc` (incremental: `dist/tsconfig.tsbuildinfo`
 * remembers the last build, so only what changed is compiled and written again), copies the pages
 * (`src/web/`) and the message catalogues (`src/locales/`) to `dist/src/`, and stamps `dist/.built` with the time the build started.
 *
 * Usage:
 *   node scripts/build.mjs                npm run build: always builds
 *   node scripts/build.mjs --if-changed   npm start, npm run invite: builds only when a source
 *                                         (src/, tests/, bench/, tsconfig.json) changed after the
 *                                         last build's start, and never while an npm start runs in
 *                                         this folder (it would rewrite the files that process
 *                                         serves): then it says so and leaves dist/ as it is.
 * Exits non-zero when tsc reports an error.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = path.join(root, 'dist', '.built');
const SOURCES = ['src', 'tests', 'bench', 'tsconfig.json'];
/** Folders of `src/` that are not TypeScript and are copied as they are: the pages and the message catalogues. */
const COPIED_FOLDERS = ['web', 'locales'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'corpus', 'fixtures']);

/** The newest modification time (ms) of a file or of any file under a folder. */
function newestChange(target) {
  if (!existsSync(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a file removed or renamed changes its folder
  for (const entry of readdirSync(target, { withFileTypes: true })) {
    if (entry.isDirectory() && SKIPPED_FOLDERS.has(entry.name)) continue;
    newest = Math.max(newest, newestChange(path.join(target, entry.name)));
  }
  return newest;
}

/** Why `dist/` must be built again, or `null` when it is up to date. */
function staleness() {
  if (!existsSync(STAMP)) return 'dist/ was never built here';
  const built = statSync(STAMP).mtimeMs;
  const changed = SOURCES.filter((source) => newestChange(path.join(root, source)) > built);
  return changed.length === 0 ? null : `${changed.join(', ')} changed since the last build`;
}

/** The process id of an `npm start` running in this folder (from `.local/runtime.json`), or `null`. */
function runningStart() {
  let pid;
  try {
    ({ pid } = JSON.parse(readFileSync(path.join(root, '.local', 'runtime.json'), 'utf8')));
  } catch {
    return null; // no npm start wrote one, or it is unreadable: nothing serves from dist/ that we know of
  }
  if (typeof pid !== 'number') return null;
  try {
    process.kill(pid, 0); // signal 0 only checks that the process exists
    return pid;
  } catch (error) {
    return error?.code === 'EPERM' ? pid : null; // EPERM: it runs, as another user
  }
}

/**
 * Removes what tsc wrote for test files that are gone from `tests/` (moved or deleted): jest runs
 * every `*.test.js` under `dist/tests/`, and tsc never deletes an output.
 */
function removeOrphanedTests(folder = path.join(root, 'dist', 'tests')) {
  if (!existsSync(folder)) return;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const output = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      removeOrphanedTests(output);
      continue;
    }
    const match = /^(.*)\.(?:js|js\.map|d\.ts|d\.ts\.map)$/.exec(entry.name);
    if (match === null) continue;
    const source = path.join(root, path.relative(path.join(root, 'dist'), folder), `${match[1]}.ts`);
    if (!existsSync(source)) rmSync(output);
  }
}

function build() {
  const startedAt = new Date();
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, 'tsconfig.json')], { cwd: root, stdio: 'inherit' });
  removeOrphanedTests();
  for (const folder of COPIED_FOLDERS) {
    rmSync(path.join(root, 'dist', 'src', folder), { recursive: true, force: true });
    if (existsSync(path.join(root, 'src', folder))) cpSync(path.join(root, 'src', folder), path.join(root, 'dist', 'src', folder), { recursive: true });
  }
  mkdirSync(path.dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${startedAt.toISOString()}\n`);
  // Sources saved while tsc ran are newer than this, so the next --if-changed builds them.
  utimesSync(STAMP, startedAt, startedAt);
}

try {
  if (!process.argv.includes('--if-changed')) {
    build();
  } else {
    const reason = staleness();
    if (reason !== null) {
      const pid = runningStart();
      if (pid === null) {
        console.error(`Building (${reason})...`);
        build();
      } else {
        console.error(`Not rebuilding (${reason}): the npm start running in this folder (process ${pid}) serves dist/. Stop it and run npm start again to use the changes.`);
      }
    }
  }
} catch (error) {
  // tsc printed its errors already.
  if (error?.status === undefined) console.error(error instanceof Error ? error.message : String(error));
  process.exit(typeof error?.status === 'number' ? error.status : 1);
}
