/**
 * Which npm packages a fresh process loads when it imports every function module (not timed: the
 * hooks that observe the loading slow it down). Answers the list of package names.
 */
import { register } from 'node:module';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { failToParent, finishWithResult } from '../lib/child.js';

try {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const { port1, port2 } = new MessageChannel();
  const urls = new Set<string>();
  port1.on('message', (url: string) => urls.add(url));
  port1.unref();
  register(pathToFileURL(path.join(here, 'moduleHooks.js')).href, { data: { port: port2 }, transferList: [port2] });

  console.warn = () => undefined;
  const dir = path.resolve(here, '../../src/functions');
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.js')).sort()) {
    await import(pathToFileURL(path.join(dir, file)).href);
  }
  // Let the last messages from the hooks thread arrive.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const packages = new Set<string>();
  for (const url of urls) {
    const inModules = url.split('/node_modules/').at(-1);
    if (inModules === undefined || inModules === url) continue;
    const parts = inModules.split('/');
    packages.add(parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  finishWithResult([...packages].sort());
} catch (error) {
  failToParent(error);
}
