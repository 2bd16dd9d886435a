/**
 * Raw password-hashing throughput at a bcrypt cost, with the service's own password module and
 * nothing else: `concurrency` verifications in flight for `seconds`. Also watches this process's
 * event loop meanwhile: a hash that runs on the main thread shows up as event-loop delay.
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
  const hash = await password.hashPassword(secret, cost);
  const backendOf = (password as { passwordBackend?: () => Promise<string> }).passwordBackend;
  const backend = backendOf === undefined ? 'bcryptjs' : await backendOf();
  await password.verifyPassword(secret, hash);

  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let done = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        if (!(await password.verifyPassword(secret, hash))) throw new Error('verification failed');
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
