/**
 * A bounded cache that keeps the entries used most recently: for per-thread memos of pure work (font
 * subsets, text layouts) and for copies of stored values that never change once written (kept
 * idempotent answers).
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();

  /** @param capacity most entries kept (at least 1) */
  constructor(private readonly capacity: number) {}

  /**
   * The value of `key`, made by `make` the first time (and again after it was dropped). When the
   * cache is full, the entry used least recently goes. The value returned is shared: never change it.
   */
  get(key: K, make: () => V): V {
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make();
      if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    } else {
      // A Map iterates in insertion order: putting the key last makes it the most recently used.
      this.entries.delete(key);
    }
    this.entries.set(key, value);
    return value;
  }

  /** The value of `key` (now the most recently used), or `undefined` when it is not kept. */
  find(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  /** Keeps `value` for `key`, dropping the entry used least recently when the cache is full. */
  set(key: K, value: V): void {
    if (!this.entries.delete(key) && this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, value);
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.entries.delete(key);
  }
}
