/**
 * Raw password-hashing throughput at a bcrypt cost: the implementation the service's password module
 * uses (`passwordBackend()`: @node-rs/bcrypt, or bcryptjs where that has no binary), called directly
 * (without the module's limit on concurrent hashes), `concurrency` verifications in flight for
 * `seconds`, nothing else in the process. Also watches this process's event loop meanwhile: a hash
 * that runs on the main thread shows up as event-loop delay.
 *
 * Argv: JSON {cost, concurrency, seconds}.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as password from '../../src/lib/auth/password.js';
import { failToParent, finishWithResult } from '../lib/child.js';

export interface HashRateResult {
  cost: number;
  /** Which implementation hashed: `native` (@node-rs/bcrypt, off the event loop) or `bcryptjs`. */
  backend: string;
  verificationsPerSecond: number;
  /** Largest event-loop delay seen while hashing, ms. */
  eventLoopDelayMaxMs: number;
  eventLoopDelayP99Ms: number;
}

try {
  const { cost, concurrency, seconds } = JSON.parse(process.argv[2] ?? '{}') as { cost: number; concurrency: number; seconds: number };
  const secret = 'bench-password-1';
  const backendOf = (password as { passwordBackend?: () => Promise<string> }).passwordBackend;
  const backend = backendOf === undefined ? 'bcryptjs' : await backendOf();
  const verify: (plain: string, hash: string) => Promise<boolean> =
    backend === 'native'
      ? (await import('@node-rs/bcrypt')).default.verify
      : (await import('bcryptjs')).default.compare;
  const hash = await password.hashPassword(secret, cost);
  await verify(secret, hash);

  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        if (!(await verify(secret, hash))) throw new Error('verification failed');
        done++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  delay.disable();
  const result: HashRateResult = {
    cost,
    backend,
    verificationsPerSecond: done / elapsed,
    eventLoopDelayMaxMs: delay.max / 1e6,
    eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
  };
  finishWithResult(result);
} catch (error) {
  failToParent(error);
}
