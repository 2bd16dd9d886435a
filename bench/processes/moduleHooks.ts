/**
 * Module customization hooks (`module.register`) that report every resolved module URL to the main
 * thread, so the cold-start benchmark can tell which packages importing the functions loads.
 */
import type { MessagePort } from 'node:worker_threads';

let port: MessagePort | undefined;

export function initialize(data: { port: MessagePort }): void {
  port = data.port;
}

type NextResolve = (specifier: string, context: unknown) => Promise<{ url: string }>;

export async function resolve(specifier: string, context: unknown, nextResolve: NextResolve): Promise<{ url: string }> {
  const resolved = await nextResolve(specifier, context);
  port?.postMessage(resolved.url);
  return resolved;
}
