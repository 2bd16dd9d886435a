/**
 * Password hashing with bcrypt (OWASP Password Storage Cheat Sheet). bcrypt reads at most 72 bytes,
 * so longer passwords are refused at the boundary rather than silently truncated (docs/api.md#accounts).
 *
 * Hashing runs off the event loop: @node-rs/bcrypt (Rust, its prebuilt binary shipped in the npm
 * package for Linux x64/arm64 glibc and musl, Windows, macOS and FreeBSD) computes on libuv's thread
 * pool, so the 2^cost rounds of a login (about 0.25 s at cost 12) never stall other requests, as
 * bcryptjs (pure JavaScript, main thread) did. It writes the same `$2b$` hashes and verifies the
 * `$2a$`/`$2b$` hashes bcryptjs made, so existing accounts keep working. On a platform without a
 * prebuilt binary, this module falls back to bcryptjs (same hashes) and warns once: correct, but each
 * hash then blocks the event loop.
 *
 * Both are loaded on first use, not at import, so the functions that never hash start without them.
 *
 * The service hashes through {@link PasswordHashing} (docs/api.md#rate-limits-and-quotas), which bounds the work: at most
 * `MAX_CONCURRENT_PASSWORD_HASHES` hashes run at once per instance, four times as many wait in order of
 * arrival, and a request beyond that is refused at once with 503 `password-hashing-busy`
 * (`Retry-After: 1`) instead of queueing without bound. Each running hash holds a thread of libuv's
 * pool (`UV_THREADPOOL_SIZE`, 4 by default) and a core for its whole duration, and the rest of the
 * service needs both: every request's token check (jose uses WebCrypto, which runs on that pool), file
 * and DNS work, and the event loop itself (bench/README.md "Login storm").
 *
 * A login for an address without an account costs no hash: it waits about as long as a comparison
 * takes here ({@link PasswordHashing.verifyNoAccount}) without holding a slot, so that a flood of such
 * logins neither reveals which addresses have accounts nor delays the logins of those that do.
 */
import { problem } from '../problems.js';

/** Longest password bcrypt uses in full, bytes of UTF-8. */
export const MAX_PASSWORD_BYTES = 72;

interface Backend {
  name: 'native' | 'bcryptjs';
  hash(password: string, cost: number): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

let backend: Promise<Backend> | undefined;

function loadBackend(): Promise<Backend> {
  backend ??= import('@node-rs/bcrypt').then(
    ({ default: native }): Backend => ({
      name: 'native',
      hash: (password, cost) => native.hash(password, { cost }),
      verify: (password, hash) => native.verify(password, hash),
    }),
    async (error: unknown): Promise<Backend> => {
      console.warn(
        `@node-rs/bcrypt has no binary for ${process.platform}-${process.arch} (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): ` +
          'hashing passwords with bcryptjs on the main thread, which holds up other requests while it runs.',
      );
      const { default: bcrypt } = await import('bcryptjs');
      return { name: 'bcryptjs', hash: (password, cost) => bcrypt.hash(password, cost), verify: (password, hash) => bcrypt.compare(password, hash) };
    },
  );
  return backend;
}

/** Which implementation hashes in this process: `native` (@node-rs/bcrypt, off the event loop) or the `bcryptjs` fallback. */
export async function passwordBackend(): Promise<'native' | 'bcryptjs'> {
  return (await loadBackend()).name;
}

/**
 * bcrypt hash (`$2b$`) of `password` with 2^cost rounds, outside any bound: for tools and seeds
 * (`npm run invite`, the benchmark), not for requests, which use {@link PasswordHashing}.
 */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const { hash } = await loadBackend();
  return await hash(password, cost);
}

/** Whether `password` matches the bcrypt `hash` (`$2a$`, `$2b$` or `$2y$`), outside any bound (see {@link hashPassword}). */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const { verify } = await loadBackend();
  return await verify(password, hash);
}

/** Comparisons whose durations {@link PasswordHashing.verifyNoAccount} takes the median of, per cost. */
const MEASURED_COMPARISONS = 15;

/**
 * Password hashing bounded per instance (see the module comment): `maxConcurrent` hashes or
 * comparisons at once, `maxWaiting` (4 × `maxConcurrent`) waiting in order of arrival.
 */
export class PasswordHashing {
  readonly maxWaiting: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];
  /** Durations of recent comparisons, milliseconds, by cost. */
  readonly #durations = new Map<number, number[]>();
  /** The comparison under way that measures the first duration at a cost, shared by those who wait for it. */
  readonly #measurements = new Map<number, Promise<void>>();

  constructor(readonly maxConcurrent: number) {
    this.maxWaiting = 4 * maxConcurrent;
  }

  /** Hashes running and waiting now. */
  get load(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#waiting.length };
  }

  /**
   * Throws now if a hash asked for now would be refused; takes nothing. Login calls it before it
   * counts an attempt, so that a refused login is not counted.
   * @throws AppError 503 `password-hashing-busy`, `Retry-After: 1`
   */
  assertAdmissible(): void {
    if (this.#running >= this.maxConcurrent && this.#waiting.length >= this.maxWaiting) {
      throw problem('passwordHashingBusy', { retryAfterSeconds: 1 });
    }
  }

  /** bcrypt hash (`$2b$`) of `password` with 2^cost rounds. @throws AppError 503 `password-hashing-busy` */
  async hash(password: string, cost: number): Promise<string> {
    const { hash } = await loadBackend();
    return await this.#inTurn(() => hash(password, cost));
  }

  /** Whether `password` matches the bcrypt `hash`. @throws AppError 503 `password-hashing-busy` */
  async verify(password: string, hash: string): Promise<boolean> {
    const { verify } = await loadBackend();
    const cost = Number(/^\$2[aby]\$(\d{2})\$/.exec(hash)?.[1] ?? Number.NaN);
    return await this.#inTurn(async () => {
      const started = performance.now();
      const matches = await verify(password, hash);
      if (Number.isInteger(cost)) this.#measured(cost, performance.now() - started);
      return matches;
    });
  }

  /**
   * What a login for an address without an account does instead of comparing (docs/api.md#accounts, docs/api.md#rate-limits-and-quotas):
   * refuses as {@link verify} would when the queue is full, else waits the median duration of this
   * instance's recent comparisons at `cost`. While none is known, the first such login hashes a random
   * password and compares against it, through the bound, to measure one, and the others that arrive
   * meanwhile wait for that measurement instead of hashing too (so a flood at start-up costs one
   * hash and one comparison, not one each).
   * @returns `false`, always
   * @throws AppError 503 `password-hashing-busy`
   */
  async verifyNoAccount(cost: number): Promise<false> {
    this.assertAdmissible();
    const durations = this.#durations.get(cost);
    if (durations === undefined || durations.length === 0) {
      let measurement = this.#measurements.get(cost);
      if (measurement === undefined) {
        measurement = (async () => {
          await this.verify('not the password', await this.hash(`no-account-${Math.random()}-${Date.now()}`, cost));
        })();
        this.#measurements.set(cost, measurement);
        const forget = () => this.#measurements.delete(cost);
        void measurement.then(forget, forget);
      }
      await measurement;
      return false;
    }
    const sorted = [...durations].sort((a, b) => a - b);
    await new Promise((resolve) => setTimeout(resolve, sorted[Math.floor(sorted.length / 2)]));
    return false;
  }

  #measured(cost: number, milliseconds: number): void {
    let durations = this.#durations.get(cost);
    if (durations === undefined) {
      durations = [];
      this.#durations.set(cost, durations);
    }
    durations.push(milliseconds);
    if (durations.length > MEASURED_COMPARISONS) durations.shift();
  }

  /** Runs `task` when fewer than `maxConcurrent` run, in order of arrival; refuses when `maxWaiting` already wait. */
  async #inTurn<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running < this.maxConcurrent) this.#running++;
    else {
      this.assertAdmissible();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next in line, or give it back.
      const next = this.#waiting.shift();
      if (next === undefined) this.#running--;
      else next();
    }
  }
}

let shared: PasswordHashing | undefined;

/** This instance's {@link PasswordHashing} for `maxConcurrent` (`MAX_CONCURRENT_PASSWORD_HASHES`); a new one when the setting changes. */
export function passwordHashing(maxConcurrent: number): PasswordHashing {
  if (shared?.maxConcurrent !== maxConcurrent) shared = new PasswordHashing(maxConcurrent);
  return shared;
}
