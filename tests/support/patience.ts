/**
 * How long a test waits for a service, a process or a page before it gives up. Tests wait for a
 * condition, never for a fixed time, so these are deadlines, not delays: generous enough for a machine
 * that many other processes share (load averages above 15 were seen on 2 cores), and multiplied by
 * `TEST_TIME_SCALE` (a positive number, default 1) where even that is not enough. jest.config.js
 * scales each test's own timeout by the same factor.
 */

/** `TEST_TIME_SCALE`: 1 unless set to a positive number. @throws Error for any other value */
export function timeScale(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.TEST_TIME_SCALE?.trim();
  if (text === undefined || text === '') return 1;
  const scale = Number(text);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`TEST_TIME_SCALE must be a positive number, got "${text}"`);
  return scale;
}

/** A deadline of `ms` milliseconds on a quiet machine, scaled by `TEST_TIME_SCALE`. */
export function patience(ms: number): number {
  return Math.round(ms * timeScale());
}

export interface WaitOptions {
  /** How often to look, ms (default 50). */
  everyMs?: number;
  /** A probe that throws is asked again (a service restarting); the last error is named if time runs out. */
  retryErrors?: boolean;
}

/**
 * Polls `probe` until it gives something other than `undefined` or `false`, and returns that.
 * @param timeoutMs the deadline on a quiet machine, scaled by {@link patience}
 * @param what what is waited for, named in the error
 * @throws Error once the deadline has passed
 */
export async function waitUntil<T>(probe: () => T | Promise<T>, timeoutMs = 20_000, what = 'the condition', options: WaitOptions = {}): Promise<Exclude<Awaited<T>, undefined | false>> {
  const { everyMs = 50, retryErrors = false } = options;
  const scaledMs = patience(timeoutMs);
  const deadline = Date.now() + scaledMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value as Exclude<Awaited<T>, undefined | false>;
    } catch (error) {
      if (!retryErrors) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (${scaledMs} ms)${lastError === undefined ? '' : `; last error: ${String(lastError)}`}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
