/**
 * `mapConcurrently` (src/lib/concurrency.ts): at most `limit` at a time, results in order of the
 * items, and after a failure no item is started; the failure reported is that of the first item
 * (in order) that failed.
 */
import { describe, expect, test } from '@jest/globals';
import { mapConcurrently } from '../../src/lib/concurrency.js';

/** A promise and the functions that settle it. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets every pending promise callback run. */
const settle = async (): Promise<void> => {
  for (let turn = 0; turn < 10; turn++) await Promise.resolve();
};

describe('mapConcurrently', () => {
  test('runs at most `limit` at a time, starts the items in order, returns their results in order', async () => {
    const gates = [0, 1, 2, 3].map(() => deferred<string>());
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const mapping = mapConcurrently([0, 1, 2, 3], 2, async (item) => {
      started.push(item);
      running++;
      most = Math.max(most, running);
      const result = await gates[item]!.promise;
      running--;
      return result;
    });
    await settle();
    expect(started).toEqual([0, 1]);
    // The second ends first: the third starts in its place; results stay in order of the items.
    gates[1]!.resolve('b');
    await settle();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve('a');
    gates[2]!.resolve('c');
    await settle();
    gates[3]!.resolve('d');
    expect(await mapping).toEqual(['a', 'b', 'c', 'd']);
    expect(most).toBe(2);
  });

  test('after a failure starts nothing more, lets what started end, and throws the first failing item\'s error in order of the items', async () => {
    const gates = [0, 1, 2, 3].map(() => deferred<string>());
    const started: number[] = [];
    const ended: number[] = [];
    const mapping = mapConcurrently([0, 1, 2, 3], 2, async (item) => {
      started.push(item);
      try {
        return await gates[item]!.promise;
      } finally {
        ended.push(item);
      }
    });
    const outcome = mapping.then(() => 'resolved', (error: unknown) => error);
    await settle();
    // The second fails first; the first, already started, still runs, and fails too.
    gates[1]!.reject(new Error('second'));
    await settle();
    expect(started).toEqual([0, 1]);
    gates[0]!.reject(new Error('first'));
    expect(((await outcome) as Error).message).toBe('first');
    expect(started).toEqual([0, 1]);
    expect(ended.sort()).toEqual([0, 1]);
  });

  test('no items: no work, no results', async () => {
    expect(await mapConcurrently([], 2, async () => 1)).toEqual([]);
  });
});
