/**
 * The handler of `Sweep` (timer trigger on `SWEEP_SCHEDULE`).
 * Registered in `src/functions/Sweep.ts`, which loads this module on the function's first invocation.
 */
import type { InvocationContext, Timer } from '@azure/functions';
import { runSweep } from '../lib/sweeper/sweep.js';
import { getBackgroundServices } from '../lib/services.js';

export async function sweep(_timer: Timer, context: InvocationContext): Promise<void> {
  const report = await runSweep({ services: getBackgroundServices(), log: (message) => context.log(message) });
  const handled = Object.entries(report).filter(([, count]) => count > 0);
  if (handled.length > 0) context.log(`Sweep handled ${handled.map(([step, count]) => `${count} ${step}`).join(', ')}.`);
}
