#!/usr/bin/env node
/**
 * Builds `dist/`: compiles the TypeScript with `tsc` (incremental: `dist/tsconfig.tsbuildinfo`
 * remembers the last build, so only what changed is compiled and written again), type-checks the
 * pages' scripts, copies the pages (`src/web/`) and the message catalogues (`src/locales/`) to
 * `dist/src/`, and stamps `dist/.built` with the time the build started.
 *
 * The pages are `// @ts-check` JavaScript whose JSDoc types come from the API's own schemas: the build
 * writes the OpenAPI document the service serves (src/lib/openapi/document.ts, compiled a moment
 * before) through `openapi-typescript` into `src/web/shared/api-types.d.ts` (generated, not
 * committed), and each page's elements by id from its `index.html` into `src/web/<page>/<page>Elements.d.ts`
 * (generated too), then runs `tsc -p tsconfig.web.json` (checkJs, noEmit, the DOM's types).
 *
 * Usage:
 *   node scripts/build.mjs                npm run build: always builds
 *   node scripts/build.mjs --if-changed   npm start, npm run invite: builds only when a source
 *                                         (src/, tests/, bench/, tsconfig*.json) changed after the
 *                                         last build's start, and never while an npm start runs in
 *                                         this folder (it would rewrite the files that process
 *                                         serves): then it says so and leaves dist/ as it is.
 * Exits non-zero when tsc reports an error, in the TypeScript or in the pages' scripts.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = path.join(root, 'dist', '.built');
const SOURCES = ['src', 'tests', 'bench', 'tsconfig.json', 'tsconfig.web.json'];
/** Folders of `src/` that are not TypeScript and are copied as they are: the pages and the message catalogues. */
const COPIED_FOLDERS = ['web', 'locales'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'corpus', 'fixtures']);

/**
 * Files the build itself writes into `src/web/` (the pages' types, below), and their folders: a
 * build writes them after it starts, so they (and a folder's time, when one is first created there)
 * would make every build after a fresh clone look stale to --if-changed. Not sources.
 */
const GENERATED = new Set([path.join(root, 'src', 'web', 'shared', 'api-types.d.ts'), ...['console', 'sign'].map((page) => path.join(root, 'src', 'web', page, `${page}Elements.d.ts`))]);
const GENERATED_FOLDERS = new Set([...GENERATED].map((file) => path.dirname(file)));

/** The newest modification time (ms) of a source file or of any source file under a folder. */
function newestChange(target) {
  if (!existsSync(target) || GENERATED.has(target)) return 0;
  const stat = statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // A file removed or renamed changes its folder; not counted where the build writes files itself.
  let newest = GENERATED_FOLDERS.has(target) ? 0 : stat.mtimeMs;
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

/** The pages' types generated from the OpenAPI document (see the top of this file). */
const API_TYPES = path.join(root, 'src', 'web', 'shared', 'api-types.d.ts');

/** Runs the TypeScript compiler on a project file; throws (tsc printed why) when it reports an error. */
function tsc(project) {
  execFileSync(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(root, project)], { cwd: root, stdio: 'inherit' });
}

/**
 * Writes `src/web/shared/api-types.d.ts` from the OpenAPI document the compiled service serves; only
 * when its text changes, so that an unchanged build leaves `src/` as it was (see `staleness`).
 */
async function writeApiTypes() {
  const { serializeOpenApiDocument } = await import(pathToFileURL(path.join(root, 'dist', 'src', 'lib', 'openapi', 'document.js')).href);
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const generated = [
    '// Generated by scripts/build.mjs from the OpenAPI document the service serves (`GET /api/openapi.json`)',
    '// with openapi-typescript: do not edit. The pages\' JSDoc imports the schemas\' types from here.',
    astToString(await openapiTS(JSON.parse(serializeOpenApiDocument()))),
  ].join('\n');
  if (!existsSync(API_TYPES) || readFileSync(API_TYPES, 'utf8') !== generated) writeFileSync(API_TYPES, generated);
}

/**
 * Writes `src/web/<page>/<page>Elements.d.ts`: the type of each element of the page's `index.html` by
 * its id (`HTMLElementTagNameMap[tag]`), so a module's `$('consent')` is an HTMLInputElement and an id
 * the page does not have is a type error. Only when its text changes, as {@link writeApiTypes}.
 */
function writeElementTypes(page) {
  const html = readFileSync(path.join(root, 'src', 'web', page, 'index.html'), 'utf8');
  const entries = [...html.matchAll(/<([a-z][a-z0-9-]*)\b[^>]*?\sid="([^"]+)"/g)].map(([, tag, id]) => `  ${JSON.stringify(id)}: HTMLElementTagNameMap[${JSON.stringify(tag)}];`);
  const generated = [
    `// Generated by scripts/build.mjs from src/web/${page}/index.html: do not edit.`,
    '/** The elements of the page, by id. */',
    'export interface Elements {',
    ...entries,
    '}',
    '/** `document.getElementById` for the page: an id of index.html gives its element\'s type; any other (an element the page made), HTMLElement. */',
    'export interface ById {',
    '  <K extends keyof Elements>(id: K): Elements[K];',
    '  (id: string): HTMLElement;',
    '}',
    '',
  ].join('\n');
  const target = path.join(root, 'src', 'web', page, `${page}Elements.d.ts`);
  if (!existsSync(target) || readFileSync(target, 'utf8') !== generated) writeFileSync(target, generated);
}

/**
 * Checks the pages' scripts as the browser and the asset routes see them: every `.js` file under
 * `src/web/` starts with `// @ts-check`, and no module of a page's folder shares its name with one of
 * `src/web/shared/` (both are served side by side below the page's route, src/lib/web/pages.ts).
 * @throws Error naming the first file that does not
 */
function checkPageScripts() {
  const web = path.join(root, 'src', 'web');
  const scripts = (folder) => readdirSync(path.join(web, folder)).filter((name) => name.endsWith('.js'));
  for (const folder of readdirSync(web, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name)) {
    for (const name of scripts(folder)) {
      if (!readFileSync(path.join(web, folder, name), 'utf8').startsWith('// @ts-check\n')) throw new Error(`src/web/${folder}/${name} does not start with // @ts-check`);
    }
  }
  const shared = new Set(scripts('shared'));
  for (const page of ['console', 'sign']) {
    const clash = scripts(page).find((name) => shared.has(name));
    if (clash !== undefined) throw new Error(`src/web/${page}/${clash} has the name of src/web/shared/${clash}: a page's modules and the shared ones are served side by side`);
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

async function build() {
  const startedAt = new Date();
  tsc('tsconfig.json');
  removeOrphanedTests();
  // The pages and catalogues first: the OpenAPI document that writeApiTypes loads lists the pages' files.
  for (const folder of COPIED_FOLDERS) {
    rmSync(path.join(root, 'dist', 'src', folder), { recursive: true, force: true });
    // The pages' type declarations serve only the type check: the browser never loads them.
    const filter = (source) => !source.endsWith('.d.ts') && source !== path.join(root, 'src', 'web', 'types');
    if (existsSync(path.join(root, 'src', folder))) cpSync(path.join(root, 'src', folder), path.join(root, 'dist', 'src', folder), { recursive: true, filter });
  }
  await writeApiTypes();
  for (const page of ['console', 'sign']) writeElementTypes(page);
  checkPageScripts();
  tsc('tsconfig.web.json');
  mkdirSync(path.dirname(STAMP), { recursive: true });
  writeFileSync(STAMP, `${startedAt.toISOString()}\n`);
  // Sources saved while tsc ran are newer than this, so the next --if-changed builds them.
  utimesSync(STAMP, startedAt, startedAt);
}

try {
  if (!process.argv.includes('--if-changed')) {
    await build();
  } else {
    const reason = staleness();
    if (reason !== null) {
      const pid = runningStart();
      if (pid === null) {
        console.error(`Building (${reason})...`);
        await build();
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
