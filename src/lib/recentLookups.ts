/**
 * A per-instance memory of storage lookups that a guard makes on every request (a token's user, an
 * API key's row): a value found is answered from memory for a fixed lifetime, so a row deleted by
 * another instance is refused there at the latest that long after the deletion. Concurrent lookups of
 * one key share one read. Only found values are remembered: a lookup that finds nothing, or fails,
 * is forgotten at once, so a row written later is found by the next lookup.
 */
export class RecentLookups<Value> {
  private readonly entries = new Map<string, { value: Promise<Value | null>; expiresAt: number }>();

  /**
   * @param lifetimeMs how long a found value is answered from memory, milliseconds
   * @param capacity most values remembered at once (the oldest go first)
   * @param now the clock, epoch milliseconds (tests move it)
   */
  constructor(
    private readonly lifetimeMs: number,
    private readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * The value of `key`: from memory when found less than the lifetime ago, else from `load`
   * (`null`: not found). Errors of `load` are thrown to every lookup that shared it.
   */
  async get(key: string, load: () => Promise<Value | null>): Promise<Value | null> {
    const now = this.now();
    const remembered = this.entries.get(key);
    if (remembered !== undefined && remembered.expiresAt > now) return await remembered.value;
    const entry = { value: load(), expiresAt: now + this.lifetimeMs };
    // A Map iterates in insertion order: deleting and setting again makes the key the newest.
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    const forget = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    try {
      const value = await entry.value;
      if (value === null) forget();
      return value;
    } catch (error) {
      forget();
      throw error;
    }
  }

  /** Forgets `key` (its row was deleted on this instance). */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
