/**
 * Module customization hooks (`module.register`) that report every resolved module URL, with the URL
 * of the module that imported it, to the main thread, so the cold-start benchmark can tell which
 * packages importing the functions loads, and through which chain of imports.
 */
import type { MessagePort } from 'node:worker_threads';

let port: MessagePort | undefined;

export function initialize(data: { port: MessagePort }): void {
  port = data.port;
}

type NextResolve = (specifier: string, context: { parentURL?: string }) => Promise<{ url: string }>;

/** What the main thread gets for each import: the module, who imported it, and with which specifier. */
export interface ResolvedImport {
  url: string;
  parent: string | null;
  specifier: string;
}

export async function resolve(specifier: string, context: { parentURL?: string }, nextResolve: NextResolve): Promise<{ url: string }> {
  const resolved = await nextResolve(specifier, context);
  const message: ResolvedImport = { url: resolved.url, parent: context.parentURL ?? null, specifier };
  port?.postMessage(message);
  return resolved;
}
