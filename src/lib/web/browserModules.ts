/**
 * ES modules of Node packages (and of the service's own compiled code) served to a browser as they
 * are, without a bundler: starting from entry files, every `import`/`export ... from` specifier is
 * followed (a package's `browser`, `import` or `module` build first, as bundlers pick), each module
 * found gets a flat name, and its specifiers are rewritten to `./<that name>` when it is served, so
 * the modules load side by side below one asset route. Used for the verify page's verifier (pkijs,
 * asn1js, canonicalize and `src/lib/verification`, docs/evidence.md#the-verify-page).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A module served from bytes made once per process. */
export interface BrowserModule {
  build: () => Promise<Buffer>;
  contentType: string;
}

/** `from '...'`, `import '...'`, `import('...')`: the specifiers a module names. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"\n]+)\2/g;

/** The folder of package `name` as Node would find it from `from` (the nearest `node_modules`). */
function packageFolder(name: string, from: string): string | null {
  for (let folder = path.dirname(from); ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(folder) === folder) return null;
  }
}

type Exports = string | { [condition: string]: Exports } | undefined;

/** The file an `exports` entry names for a browser's ES module import. */
function browserTarget(entry: Exports): string | undefined {
  if (typeof entry === 'string' || entry === undefined) return entry;
  return browserTarget(entry.browser) ?? browserTarget(entry.import) ?? browserTarget(entry.module) ?? browserTarget(entry.default);
}

/**
 * The file a specifier names from module `from`, or `null` when it names none this can serve.
 */
function resolveSpecifier(specifier: string, from: string): string | null {
  if (specifier.startsWith('.')) {
    const file = path.resolve(path.dirname(from), specifier);
    if (existsSync(file)) return file;
    return existsSync(`${file}.js`) ? `${file}.js` : null;
  }
  const parts = specifier.split('/');
  const nameLength = specifier.startsWith('@') ? 2 : 1;
  const folder = packageFolder(parts.slice(0, nameLength).join('/'), from);
  if (folder === null) return null;
  const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { exports?: Exports | Record<string, Exports>; module?: string; main?: string };
  const subpath = parts.slice(nameLength).join('/');
  const exportsMap = typeof manifest.exports === 'object' && manifest.exports !== null ? (manifest.exports as Record<string, Exports>) : undefined;
  let target: string | undefined;
  if (subpath === '') target = browserTarget(exportsMap?.['.'] ?? (typeof manifest.exports === 'string' ? manifest.exports : undefined)) ?? manifest.module ?? manifest.main;
  else target = browserTarget(exportsMap?.[`./${subpath}`]) ?? (existsSync(path.join(folder, subpath)) ? subpath : `${subpath}.js`);
  if (target === undefined) return null;
  const file = path.join(folder, target);
  return existsSync(file) ? file : null;
}

/** A flat name for a module file: after the outermost `node_modules/`, or after `under`, with `/` as `_`. */
function flatName(file: string, under: string): string {
  const marker = `${path.sep}node_modules${path.sep}`;
  const inPackages = file.indexOf(marker);
  const relative = inPackages === -1 ? path.relative(under, file) : file.slice(inPackages + marker.length);
  return `m_${relative.split(path.sep).join('_').replace(/@/g, '').replace(/[^A-Za-z0-9._-]/g, '-')}`;
}

/**
 * The modules reached from `entries` (served name → absolute file), each under its flat name (an
 * entry under its own), their specifiers rewritten to those names.
 * @param under names of files outside `node_modules` are made relative to this folder
 * @throws Error when two files would be served under one name
 */
export function browserModules(entries: Record<string, string>, under: string): Record<string, BrowserModule> {
  const names = new Map<string, string>();
  const dependencies = new Map<string, Map<string, string>>();
  for (const [name, file] of Object.entries(entries)) names.set(file, name);
  const pending = Object.values(entries);
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (dependencies.has(file)) continue;
    const resolved = new Map<string, string>();
    for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const target = resolveSpecifier(match[3]!, file);
      if (target === null) continue;
      resolved.set(match[3]!, target);
      if (!names.has(target)) names.set(target, flatName(target, under));
      pending.push(target);
    }
    dependencies.set(file, resolved);
  }
  const modules: Record<string, BrowserModule> = {};
  for (const [file, name] of names) {
    if (Object.hasOwn(modules, name)) throw new Error(`Two modules would be served as ${name}`);
    const resolved = dependencies.get(file)!;
    modules[name] = {
      contentType: 'text/javascript; charset=utf-8',
      build: async () =>
        Buffer.from(
          readFileSync(file, 'utf8')
            .replace(SPECIFIER, (whole, keyword: string, quote: string, specifier: string) => {
              const target = resolved.get(specifier);
              return target === undefined ? whole : `${keyword}${quote}./${names.get(target)!}${quote}`;
            })
            // The compiled code's source maps are not served.
            .replace(/^\/\/# sourceMappingURL=.*$/m, ''),
        ),
    };
  }
  return modules;
}
