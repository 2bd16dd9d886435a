/**
 * Bounded concurrency for work over many items (the sweeper's steps, bulk table writes, the
 * documents of an envelope frozen and sealed).
 */

/**
 * Runs `work` on every item, at most `limit` at a time, in order of the items. A failure does not
 * stop the other items.
 * @throws the first failure, once every item's work has settled
 */
export async function forEachConcurrently<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}

/**
 * Runs `work` on every item, at most `limit` at a time, starting them in order of the items, and
 * starts none after one failed: the others already started run to their end.
 * @returns each item's result, in order of the items
 * @throws the failure of the first item (in order of the items) that failed, once the work started has settled
 */
export async function mapConcurrently<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  const failures = new Map<number, unknown>();
  let next = 0;
  const worker = async () => {
    while (next < items.length && failures.size === 0) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index);
      } catch (error) {
        failures.set(index, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()));
  return results;
}
