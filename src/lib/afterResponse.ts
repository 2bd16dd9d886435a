/**
 * Work a request starts but does not wait for: what follows a committed change (the outbox
 * dispatch, signing-link rows, finished due entries; `envelopes/change.ts`), which the request's
 * answer does not depend on and which the e-mail sender or the sweeper redo if it never finishes
 * (docs/api.md#e-mail: outbox rows still undispatched after 1 minute are dispatched again).
 *
 * The work is remembered until it settles, so that a host that stops (the Functions host's
 * `appTerminate` hook, `npm start` on Ctrl-C) or a benchmark that times requests can wait for it
 * with {@link AfterResponseWork.idle}.
 */

export class AfterResponseWork {
  private readonly pending = new Set<Promise<void>>();

  /**
   * Runs `work` without the caller waiting for it. `work` handles its own faults; one it lets
   * through is logged with `label` here and goes no further.
   */
  start(label: string, work: () => Promise<void>): void {
    const running = work()
      .catch((error: unknown) => {
        console.warn(`${label} failed after the response: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        this.pending.delete(running);
      });
    this.pending.add(running);
  }

  /** How many started pieces of work have not settled yet. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Resolves once every piece of work started before or during the wait has settled, or after
   * `timeoutMs` milliseconds (when given), whichever comes first.
   * @returns whether everything settled (false: the timeout came first)
   */
  async idle(timeoutMs?: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      if (timeoutMs !== undefined) timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      while (this.pending.size > 0) {
        const settled = await Promise.race([Promise.allSettled([...this.pending]).then(() => true as const), timedOut]);
        if (!settled) return false;
      }
      return true;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The process's work after responses. */
export const afterResponse = new AfterResponseWork();
