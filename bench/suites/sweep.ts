/**
 * Sweep with nothing due (bench/README.md#sweep-azurites-scans): one `runSweep` (every real step) when nothing has fallen due,
 * with 100 `sent` envelopes against with 10,000, each with its expiry and reminder entries in the due
 * index, all in the future. Each side has an in-memory Azurite and a sweeper process of its own
 * (`processes/sweeper.ts`), so both are measured in the same rounds; rounds alternate which side
 * goes first, and a round's figure per side is the median of several sweeps.
 */
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { startChild, type RunningChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { median, pairedRatio, summarize, type Summary } from '../lib/stats.js';
import type { SweepTiming } from '../processes/sweeper.js';

export interface SweepFigures {
  sweepsPerRound: number;
  small: { envelopes: number; dueEntries: number; sweepMs: Summary };
  large: { envelopes: number; dueEntries: number; sweepMs: Summary };
  /** Large / small, round by round. */
  ratio: Summary;
  /** Seconds the large side took to seed. */
  seedSeconds: number;
}

export async function benchSweep(context: BenchContext): Promise<SuiteResult<SweepFigures>> {
  const { sweep: plan } = context.plan;
  const azurites: RunningAzurite[] = [];
  const sweepers: RunningChild<unknown>[] = [];
  try {
    const side = async (): Promise<RunningChild<unknown>> => {
      const azurite = await startAzurite();
      azurites.push(azurite);
      const sweeper = await startChild<unknown>('sweeper', { env: { ...context.env, STORAGE_CONNECTION_STRING: azurite.connectionString } });
      sweepers.push(sweeper);
      return sweeper;
    };
    const small = await side();
    const large = await side();
    progress(`sweep: seeding ${plan.smallEnvelopes} and ${plan.largeEnvelopes} sent envelopes (two Azurites, in parallel)`);
    const seedStarted = performance.now();
    await Promise.all([small.request({ type: 'seed', envelopes: plan.smallEnvelopes }), large.request({ type: 'seed', envelopes: plan.largeEnvelopes })]);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    progress(`sweep: seeded in ${Math.round(seedSeconds)} s`);

    const sweepOnce = async (sweeper: RunningChild<unknown>): Promise<number> => {
      const timing = await sweeper.request<SweepTiming>({ type: 'sweep' });
      const handled = Object.values(timing.report).reduce((sum, count) => sum + count, 0);
      if (handled !== 0) throw new Error(`a sweep with nothing due handled ${handled} item(s): ${JSON.stringify(timing.report)}`);
      return timing.ms;
    };
    const roundOf = async (sweeper: RunningChild<unknown>): Promise<number> => {
      const times: number[] = [];
      for (let sweep = 0; sweep < plan.sweepsPerRound; sweep++) times.push(await sweepOnce(sweeper));
      return median(times);
    };
    // Warm-up: the first sweep of a process builds its clients and connections.
    await roundOf(small);
    await roundOf(large);
    const smallMs: number[] = [];
    const largeMs: number[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      if (round % 2 === 0) {
        smallMs.push(await roundOf(small));
        largeMs.push(await roundOf(large));
      } else {
        largeMs.push(await roundOf(large));
        smallMs.push(await roundOf(small));
      }
      progress(`sweep, round ${round + 1}/${plan.rounds}: ${plan.largeEnvelopes} envelopes ${largeMs.at(-1)!.toFixed(1)} ms, ${plan.smallEnvelopes} envelopes ${smallMs.at(-1)!.toFixed(1)} ms`);
    }
    const figures: SweepFigures = {
      sweepsPerRound: plan.sweepsPerRound,
      small: { envelopes: plan.smallEnvelopes, dueEntries: 2 * plan.smallEnvelopes, sweepMs: summarize(smallMs) },
      large: { envelopes: plan.largeEnvelopes, dueEntries: 2 * plan.largeEnvelopes, sweepMs: summarize(largeMs) },
      ratio: pairedRatio(largeMs, smallMs),
      seedSeconds: Math.round(seedSeconds),
    };
    return {
      figures,
      targets: [
        check(
          'sweep.nothingDue',
          `One sweep with nothing due (every step): ${plan.largeEnvelopes.toLocaleString('en')} sent envelopes at most 1.5 times ${plan.smallEnvelopes} (expiry and reminder entries all in the future)`,
          figures.ratio.median,
          '<=',
          1.5,
        ),
      ],
    };
  } finally {
    await Promise.all(sweepers.map((sweeper) => sweeper.stop().catch(() => undefined)));
    await Promise.all(azurites.map((azurite) => azurite.stop().catch(() => undefined)));
  }
}
