/** LruCache: the memo behind the per-thread font subsets and text layouts of the certificate. */
import { describe, expect, test } from '@jest/globals';
import { LruCache } from '../../src/lib/lruCache.js';

describe('LruCache', () => {
  test('makes a value once and returns the same one while it is kept', () => {
    const cache = new LruCache<string, { n: number }>(2);
    let made = 0;
    const first = cache.get('a', () => ({ n: ++made }));
    expect(cache.get('a', () => ({ n: ++made }))).toBe(first);
    expect(made).toBe(1);
  });

  test('when full, drops the entry used least recently, not the oldest made', () => {
    const cache = new LruCache<string, string>(2);
    const made: string[] = [];
    const get = (key: string) => cache.get(key, () => (made.push(key), key));
    get('a');
    get('b');
    get('a'); // a is now the most recently used
    get('c'); // drops b
    get('a');
    get('b'); // made again; drops c
    expect(made).toEqual(['a', 'b', 'c', 'b']);
  });

  test('find, set and delete keep the same order: find makes an entry the most recently used', () => {
    const cache = new LruCache<string, number>(2);
    expect(cache.find('a')).toBeUndefined();
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.find('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3); // drops b
    expect([cache.find('a'), cache.find('b'), cache.find('c')]).toEqual([1, undefined, 3]);
    cache.set('c', 4); // replaces, drops nothing
    expect([cache.find('a'), cache.find('c')]).toEqual([1, 4]);
    cache.delete('a');
    expect(cache.find('a')).toBeUndefined();
  });
});
