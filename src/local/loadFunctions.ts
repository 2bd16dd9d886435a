/**
 * Imports every compiled function module, as the Functions host does with `main: dist/src/functions/*.js`,
 * and returns the routes they registered.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { disableFunctionsHostRegistration, registeredRoutes, type RegisteredRoute } from '../lib/http/register.js';

/** Folder of the compiled function files (`dist/src/functions`). */
export const FUNCTIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../functions');

/** Imports all `*.js` files of {@link FUNCTIONS_DIR} (once per process) and returns the registered routes. */
export async function loadFunctions(): Promise<readonly RegisteredRoute[]> {
  disableFunctionsHostRegistration();
  const files = (await readdir(FUNCTIONS_DIR)).filter((file) => file.endsWith('.js')).sort();
  for (const file of files) await import(pathToFileURL(path.join(FUNCTIONS_DIR, file)).href);
  return registeredRoutes;
}
