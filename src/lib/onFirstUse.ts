/**
 * Loading on first use, for the function files (`src/functions`): the Functions host imports every one
 * of them at start-up, so each imports only `@azure/functions` and its registration, and its handler
 * (with zod, jose, the storage SDKs and the service's modules) loads when the function first runs.
 */

/**
 * Wraps `load` (typically `() => import(...)`) so that it runs once: every call returns the same
 * promise, so concurrent first calls share one import. A rejected load is forgotten, so the next call
 * tries again (a module whose evaluation threw stays failed in Node's module map and rejects again).
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
