/**
 * Runs timer-triggered functions on their NCRONTAB schedules (six fields, seconds first, UTC) as the
 * Functions host does (docs/api.md#the-sweeper), with `croner`: a run that is still going when the next
 * occurrence comes makes that occurrence skip (the host never overlaps runs of one timer either); a
 * run that throws is logged and the schedule goes on.
 */
import { randomUUID } from 'node:crypto';
import functions, { type LogHandler, type Timer } from '@azure/functions';
import { Cron } from 'croner';
import type { RegisteredTimerFunction } from '../lib/triggers/register.js';

const { InvocationContext } = functions;

export interface TimerRunnerOptions {
  /** Where `context.log` and the runner's own lines go; default the console. */
  logHandler?: LogHandler;
}

/**
 * Parses a six-field NCRONTAB expression (seconds first) as the runner reads it.
 * @throws TypeError naming the expression when it is not six fields or croner cannot parse it
 */
export function parseSchedule(schedule: string): Cron {
  if (!/^\S+( \S+){5}$/.test(schedule.trim())) throw new TypeError(`"${schedule}" is not an NCRONTAB expression with six fields, seconds first`);
  try {
    return new Cron(schedule.trim(), { mode: '6-part', timezone: 'UTC', paused: true });
  } catch (error) {
    throw new TypeError(`"${schedule}" is not a valid NCRONTAB expression: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Schedules every registered timer function until {@link TimerTriggerRunner.close}. */
export class TimerTriggerRunner {
  private jobs: Cron[] = [];
  private readonly running = new Set<Promise<void>>();

  constructor(
    private readonly functions: readonly RegisteredTimerFunction[],
    private readonly options: TimerRunnerOptions = {},
  ) {}

  /**
   * Schedules the functions; returns at once.
   * @throws TypeError for a schedule that is not six-field NCRONTAB
   */
  start(): void {
    for (const fn of this.functions) parseSchedule(fn.schedule);
    this.jobs = this.functions.map((fn) => {
      let last: Date | null = null;
      const job: Cron = new Cron(fn.schedule.trim(), { mode: '6-part', timezone: 'UTC', protect: true }, async () => {
        const now = new Date();
        const run = this.invoke(fn, { last: last ?? now, next: job.nextRun() ?? now, now });
        last = now;
        this.running.add(run);
        try {
          await run;
        } finally {
          this.running.delete(run);
        }
      });
      return job;
    });
  }

  /** Stops the schedules and waits for runs in progress. */
  async close(): Promise<void> {
    for (const job of this.jobs) job.stop();
    await Promise.all([...this.running]);
  }

  private async invoke(fn: RegisteredTimerFunction, times: { last: Date; next: Date; now: Date }): Promise<void> {
    const invocationId = randomUUID();
    const context = new InvocationContext({
      invocationId,
      functionName: fn.name,
      ...(this.options.logHandler === undefined ? {} : { logHandler: this.options.logHandler }),
      options: { trigger: { type: 'timerTrigger', name: 'myTimer', schedule: fn.schedule } },
    });
    const timer: Timer = {
      isPastDue: false,
      schedule: { adjustForDST: false },
      scheduleStatus: { last: times.last.toISOString(), next: times.next.toISOString(), lastUpdated: times.now.toISOString() },
    };
    const started = Date.now();
    try {
      await fn.handler(timer, context);
    } catch (error) {
      const message = `Executed 'Functions.${fn.name}' (Failed, Id=${invocationId}, Duration=${Date.now() - started}ms): ${error instanceof Error ? error.message : String(error)}`;
      if (this.options.logHandler !== undefined) this.options.logHandler('error', message);
      else console.error(message);
    }
  }
}
