/**
 * One storage read shared by concurrent callers that can all use its answer: the queue functions
 * working on the messages of one burst of webhook events read the same outbox row, the same owner's
 * webhooks and the same webhook at the same moment.
 *
 * A caller passes the moment it started (`performance.now()` when its invocation began) and gets a
 * read of its key that is still in flight and started at or after that moment, else a read of its
 * own. So what it sees is never older than what a read of its own, made at its start, would have
 * seen: whatever happened before the caller began (the change that queued its message) is in it.
 * Nothing is kept once the read settles: this shares reads, it caches nothing.
 */
export class SharedReads<T> {
  /** Per source (a repository, so that two storage accounts never share), reads in flight by key. */
  private readonly inFlight = new WeakMap<object, Map<string, { startedAt: number; answer: Promise<T> }>>();

  /**
   * @param source what is read from (the repository); reads of different sources are never shared
   * @param key what is read (callers with the same key want the same answer)
   * @param since the caller's start, `performance.now()` milliseconds
   * @param read the storage read, run when no read of `key` that started at or after `since` is in flight
   * @returns the read's answer (the same object for every caller sharing it: do not change it)
   * @throws what the read throws, to every caller sharing it
   */
  async read(source: object, key: string, since: number, read: () => Promise<T>): Promise<T> {
    let reads = this.inFlight.get(source);
    if (reads === undefined) {
      reads = new Map();
      this.inFlight.set(source, reads);
    }
    const current = reads.get(key);
    if (current !== undefined && current.startedAt >= since) return await current.answer;
    const entry = { startedAt: performance.now(), answer: read() };
    reads.set(key, entry);
    try {
      return await entry.answer;
    } finally {
      if (reads.get(key) === entry) reads.delete(key);
    }
  }
}
