/**
 * Wall time and peak resident-set growth of one piece of work, in the process that runs it (the
 * completion and packet benchmarks): the resident set is sampled every 2 ms while it runs; growth is
 * the peak minus the resident set just before it, after a full GC when the process runs with `--expose-gc`.
 */

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

export interface Measured<T> {
  ms: number;
  /** Peak resident-set growth, bytes. */
  growth: number;
  value: T;
}

/** Times `work` and samples the resident set every 2 ms while it runs. */
export async function measured<T>(work: () => Promise<T>): Promise<Measured<T>> {
  gc();
  const before = process.memoryUsage.rss();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 2);
  const started = performance.now();
  let value: T;
  try {
    value = await work();
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - started;
  peak = Math.max(peak, process.memoryUsage.rss());
  return { ms, growth: peak - before, value };
}
