/**
 * `SWEEP_SCHEDULE` (docs/api.md#the-sweeper), read on its own and without zod: the timer function
 * (`src/functions/Sweep.ts`) registers its schedule when its module loads, before the rest of the
 * settings (`src/lib/config.ts`, which checks the same setting with these same rules) load on first use.
 */
import { ConfigError } from './errors.js';

/** Every five minutes, on the minute. */
export const DEFAULT_SWEEP_SCHEDULE = '0 */5 * * * *';

/** NCRONTAB with six fields, seconds first; the fields themselves are checked by the scheduler. */
export const SWEEP_SCHEDULE_FORMAT = /^\S+( \S+){5}$/;

export const SWEEP_SCHEDULE_PROBLEM = 'must be an NCRONTAB expression with six fields, seconds first';

/**
 * The sweeper's schedule from `env`: trimmed, {@link DEFAULT_SWEEP_SCHEDULE} when unset or blank.
 * @throws ConfigError naming SWEEP_SCHEDULE when it is not six-field NCRONTAB
 */
export function loadSweepSchedule(env: NodeJS.ProcessEnv = process.env): string {
  const value = env.SWEEP_SCHEDULE?.trim() || DEFAULT_SWEEP_SCHEDULE;
  if (!SWEEP_SCHEDULE_FORMAT.test(value)) throw new ConfigError('SWEEP_SCHEDULE', SWEEP_SCHEDULE_PROBLEM);
  return value;
}
