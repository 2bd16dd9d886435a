/**
 * The one optimistic-concurrency loop: read, decide, write conditional on what was read (an ETag, a
 * row that must not exist yet), and when a concurrent writer won, wait a little and go again. Every
 * read-modify-write of the service runs through it: envelopes (`envelopes/mutate.ts`, and the quota
 * row of `envelopes/change.ts`), templates (`templates/mutate.ts`), the storage-level counters (the
 * owner's counted rows, invitation uses, the login throttle's window) and claims (outbox messages,
 * webhook deliveries, verification e-mails, idempotency keys). Each round one contender wins, so a bounded number of
 * rounds ends every race; what the caller answers when it does not is its own (a 409 `…-contended`,
 * a 429, a `false`). See docs/architecture.md#etags-and-optimistic-concurrency.
 */

/** Rounds tried before giving up: each round one contending writer wins. */
export const CONFLICT_ATTEMPTS = 30;

/**
 * Thrown by an attempt whose conditional write answered that a concurrent writer won (a write that
 * returns `false` rather than throwing): {@link retryOnConflict} tries again.
 */
export class LostRaceError extends Error {
  constructor(what: string) {
    super(`${what} changed since it was read`);
    this.name = 'LostRaceError';
  }
}

export interface RetryOnConflictOptions<T> {
  /**
   * Whether `error` says a concurrent writer won (the condition failed); anything else is thrown at
   * once. Default: a {@link LostRaceError}.
   */
  isConflict?: (error: unknown) => boolean;
  /** The answer once every round lost (throw the caller's contended problem, or return a value). */
  exhausted: () => T;
  /**
   * Rounds tried: {@link CONFLICT_ATTEMPTS}, unless the caller's rounds are costly (each seals or
   * reads a document); `Infinity` where the contenders are known to be few enough to end the race.
   */
  attempts?: number;
  /**
   * How long to wait after a lost round, as the round {@link backoff} is given (default: the round
   * itself). A caller that knows the winner is slow (a seal in progress) waits longer.
   */
  backoffRound?: (round: number, error: unknown) => number;
}

/**
 * Runs `attempt(round)` (round 0, 1, …) until it returns, waiting {@link backoff} after each round
 * lost to a concurrent writer; the attempt reads afresh itself (or is handed what was read, see
 * `envelopes/mutate.ts`).
 * @returns what the first attempt that is not a conflict returns; `options.exhausted()` when every round lost
 * @throws whatever an attempt throws that `options.isConflict` does not recognise; what `exhausted` throws
 */
export async function retryOnConflict<T>(attempt: (round: number) => Promise<T>, options: RetryOnConflictOptions<T>): Promise<T> {
  const attempts = options.attempts ?? CONFLICT_ATTEMPTS;
  for (let round = 0; round < attempts; round++) {
    try {
      return await attempt(round);
    } catch (error) {
      if (!(options.isConflict ?? isLostRace)(error)) throw error;
      await backoff(options.backoffRound?.(round, error) ?? round);
    }
  }
  return options.exhausted();
}

function isLostRace(error: unknown): boolean {
  return error instanceof LostRaceError;
}

/**
 * Random delay growing with the round, 0 to min(200, 10 × (round + 1)) milliseconds: spreads the
 * retries of contending writers, so that they do not collide again in step.
 */
async function backoff(round: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * (round + 1))));
}
