/**
 * Timer trigger on `SWEEP_SCHEDULE` (CONTRACT §12.3): runs the sweeper's steps
 * (`src/lib/notifications/sweep.ts`). The schedule is read when the module loads, as the host
 * registers it then.
 */
import type { InvocationContext, Timer } from '@azure/functions';
import { loadSweepSchedule } from '../lib/config.js';
import { runSweep } from '../lib/notifications/sweep.js';
import { getServices } from '../lib/services.js';
import { timerFunction } from '../lib/triggers/register.js';

export async function sweep(_timer: Timer, context: InvocationContext): Promise<void> {
  const report = await runSweep({ services: getServices(), log: (message) => context.log(message) });
  const handled = Object.entries(report).filter(([, count]) => count > 0);
  if (handled.length > 0) context.log(`Sweep handled ${handled.map(([step, count]) => `${count} ${step}`).join(', ')}.`);
}

timerFunction('Sweep', {
  schedule: loadSweepSchedule(),
  handler: sweep,
});
