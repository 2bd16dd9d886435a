/**
 * Which npm packages a fresh process loads when it imports every function module (not timed: the
 * hooks that observe the loading slow it down). Answers {@link LoadedModules}: the package names,
 * and for each package in `argv[2]` (JSON list of names) that loads, the chain of imports that
 * first pulled it in, from a function module down to the package (paths relative to `dist/`, with
 * the specifier each file used; the `import` lines are in the `.ts` sources at the same paths).
 */
import { register } from 'node:module';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { failToParent, finishWithResult } from '../lib/child.js';
import type { ResolvedImport } from './moduleHooks.js';

export interface LoadedModules {
  packages: string[];
  /** Package → the import chain that first loaded it, outermost first. */
  chains: Record<string, string[]>;
}

function packageOf(url: string): string | undefined {
  const inModules = url.split('/node_modules/').at(-1);
  if (inModules === undefined || inModules === url) return undefined;
  const parts = inModules.split('/');
  return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

try {
  const watched = new Set(JSON.parse(process.argv[2] ?? '[]') as string[]);
  const here = path.dirname(fileURLToPath(import.meta.url));
  const distRoot = path.resolve(here, '../..');
  const { port1, port2 } = new MessageChannel();
  const imports: ResolvedImport[] = [];
  port1.on('message', (message: ResolvedImport) => imports.push(message));
  port1.unref();
  register(pathToFileURL(path.join(here, 'moduleHooks.js')).href, { data: { port: port2 }, transferList: [port2] });

  console.warn = () => undefined;
  const dir = path.resolve(here, '../../src/functions');
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.js')).sort()) {
    await import(pathToFileURL(path.join(dir, file)).href);
  }
  // Let the last messages from the hooks thread arrive.
  await new Promise((resolve) => setTimeout(resolve, 200));

  // Who first imported each module (the first resolution seen wins).
  const importedBy = new Map<string, ResolvedImport>();
  for (const entry of imports) if (!importedBy.has(entry.url)) importedBy.set(entry.url, entry);
  const describe = (url: string): string => {
    if (url.startsWith('file:')) {
      const file = fileURLToPath(url);
      return file.startsWith(distRoot) && !file.includes('/node_modules/') ? path.relative(distRoot, file) : `node_modules/${file.split('/node_modules/').at(-1)}`;
    }
    return url;
  };
  const packages = new Set<string>();
  const chains: Record<string, string[]> = {};
  for (const entry of imports) {
    const name = packageOf(entry.url);
    if (name === undefined) continue;
    packages.add(name);
    if (!watched.has(name) || chains[name] !== undefined) continue;
    // Walk up from the package's first module to the first file outside node_modules and beyond.
    const chain: string[] = [];
    let current: ResolvedImport | undefined = entry;
    const seen = new Set<string>();
    while (current !== undefined && !seen.has(current.url)) {
      seen.add(current.url);
      chain.unshift(`${describe(current.url)} (imported as '${current.specifier}')`);
      current = current.parent === null ? undefined : importedBy.get(current.parent);
    }
    chains[name] = chain;
  }
  const result: LoadedModules = { packages: [...packages].sort(), chains };
  finishWithResult(result);
} catch (error) {
  failToParent(error);
}
