/**
 * Password hashing with bcrypt (OWASP Password Storage Cheat Sheet). bcrypt reads at most 72 bytes,
 * so longer passwords are refused at the boundary rather than silently truncated (CONTRACT §2).
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
 * At most {@link MAX_CONCURRENT_HASHES} hashes run at once, the others wait their turn: each one
 * holds a thread of libuv's pool (4 by default) and a core for its whole duration, and the rest of
 * the service needs both: every request's token check (jose uses WebCrypto, which runs on that pool),
 * file and DNS work, and the event loop itself. Measured here (bench/README.md): with 20 logins
 * hashing on all four threads, readers waited seconds for their token checks.
 */
import { availableParallelism } from 'node:os';

/** Longest password bcrypt uses in full, bytes of UTF-8. */
export const MAX_PASSWORD_BYTES = 72;

interface Backend {
  name: 'native' | 'bcryptjs';
  hash(password: string, cost: number): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

/** Size of libuv's thread pool, which runs native hashes, WebCrypto, file and DNS work. */
const THREAD_POOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE) || 4;

/** Hashes computed at once: one core fewer than the machine has, at most half the thread pool, at least one. */
export const MAX_CONCURRENT_HASHES = Math.max(1, Math.min(availableParallelism() - 1, Math.floor(THREAD_POOL_SIZE / 2)));

let running = 0;
const waiting: (() => void)[] = [];

/** Runs `task` when fewer than {@link MAX_CONCURRENT_HASHES} hashes are running, in order of arrival. */
async function inTurn<T>(task: () => Promise<T>): Promise<T> {
  if (running < MAX_CONCURRENT_HASHES) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await task();
  } finally {
    // Hand the slot straight to the next in line, or give it back.
    const next = waiting.shift();
    if (next === undefined) running--;
    else next();
  }
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

/** bcrypt hash (`$2b$`) of `password` with 2^cost rounds. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const { hash } = await loadBackend();
  return await inTurn(() => hash(password, cost));
}

/** Whether `password` matches the bcrypt `hash` (`$2a$`, `$2b$` or `$2y$`). */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const { verify } = await loadBackend();
  return await inTurn(() => verify(password, hash));
}

const dummyHashes = new Map<number, Promise<string>>();

/**
 * A hash of a random password at `cost`, computed once: compared against when the e-mail address is
 * unknown, so that unknown-user and wrong-password logins take about the same time (CONTRACT §2).
 */
export async function dummyHash(cost: number): Promise<string> {
  let hash = dummyHashes.get(cost);
  if (hash === undefined) {
    hash = hashPassword(`dummy-${Math.random()}-${Date.now()}`, cost);
    dummyHashes.set(cost, hash);
  }
  return await hash;
}
