/**
 * Bounded concurrency for work over many items (the sweeper's steps, bulk table writes).
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
