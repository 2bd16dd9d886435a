/**
 * SharedReads: concurrent callers share a read only when it started after they did, so none sees
 * state older than a read of its own would have shown; nothing is kept after the read settles.
 */
import { describe, expect, test } from '@jest/globals';
import { SharedReads } from '../../src/lib/storage/sharedReads.js';

/** A read that resolves when told to, counting how often it ran. */
function controlledRead() {
  const state = { runs: 0, resolvers: [] as ((value: number) => void)[] };
  const read = () => {
    state.runs++;
    return new Promise<number>((resolve) => state.resolvers.push(resolve));
  };
  return { state, read };
}

describe('SharedReads', () => {
  test('callers that started before a read in flight began share it', async () => {
    const reads = new SharedReads<number>();
    const source = {};
    const { state, read } = controlledRead();
    const since = performance.now();
    const first = reads.read(source, 'k', since, read);
    const second = reads.read(source, 'k', since, read);
    expect(state.runs).toBe(1);
    state.resolvers[0]!(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
  });

  test('a caller that started after the read in flight began reads again; other keys and sources never share', async () => {
    const reads = new SharedReads<number>();
    const source = {};
    const { state, read } = controlledRead();
    const early = reads.read(source, 'k', performance.now(), read);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const late = reads.read(source, 'k', performance.now(), read);
    const otherKey = reads.read(source, 'other', 0, read);
    const otherSource = reads.read({}, 'k', 0, read);
    expect(state.runs).toBe(4);
    state.resolvers.forEach((resolve, index) => resolve(index));
    expect(await Promise.all([early, late, otherKey, otherSource])).toEqual([0, 1, 2, 3]);
  });

  test('nothing is kept once a read settles, and a failure reaches every caller sharing it', async () => {
    const reads = new SharedReads<number>();
    const source = {};
    let runs = 0;
    const failing = () => {
      runs++;
      return Promise.reject(new Error('storage down'));
    };
    const since = performance.now();
    await expect(Promise.all([reads.read(source, 'k', since, failing), reads.read(source, 'k', since, failing)])).rejects.toThrow('storage down');
    expect(runs).toBe(1);
    await expect(reads.read(source, 'k', 0, async () => 5)).resolves.toBe(5);
  });
});
