/**
 * Timer trigger on `SWEEP_SCHEDULE` (docs/api.md#the-sweeper): runs the sweeper's steps
 * (`src/lib/sweeper/sweep.ts`). The schedule is read when the module loads, as the host
 * registers it then.
 *
 * Its handler, with all it needs, loads on the function's first invocation: `src/handlers/Sweep.ts`.
 */
import { loadSweepSchedule } from '../lib/sweepSchedule.js';
import { timerFunction } from '../lib/triggers/register.js';

timerFunction('Sweep', {
  schedule: loadSweepSchedule(),
  loadHandler: async () => (await import('../handlers/Sweep.js')).sweep,
});
