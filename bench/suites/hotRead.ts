/**
 * Hot read path: `GET /api/envelopes/{id}` with a valid token, against a bare `node:http` server that
 * does only the same Table point read against the same Azurite. Rounds alternate which one goes
 * first, and the ratio is taken round by round.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

export interface HotReadLevel {
  connections: number;
  service: { throughput: Summary; p50Ms: Summary; p99Ms: Summary; failed: number };
  baseline: { throughput: Summary; p50Ms: Summary; p99Ms: Summary; failed: number };
  /** Service throughput / baseline throughput. */
  throughputRatio: Summary;
}

export async function benchHotRead(context: BenchContext): Promise<SuiteResult<HotReadLevel[]>> {
  const { plan, seed } = context;
  const serviceLoad = (connections: number, seconds: number) =>
    runLoad({
      url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`,
      headers: { Authorization: `Bearer ${seed.smallOwner.token}` },
      connections,
      durationSeconds: seconds,
    });
  const baselineLoad = (connections: number, seconds: number) => runLoad({ url: context.baselineUrl, connections, durationSeconds: seconds });

  const probe = await fetch(`${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`, { headers: { Authorization: `Bearer ${seed.smallOwner.token}` } });
  if (probe.status !== 200) throw new Error(`hot read probe answered ${probe.status}: ${await probe.text()}`);

  const levels: HotReadLevel[] = [];
  for (const connections of plan.hotRead.connections) {
    progress(`hot read, ${connections} connections: warm-up`);
    await baselineLoad(connections, plan.hotRead.warmupSeconds);
    await serviceLoad(connections, plan.hotRead.warmupSeconds);
    const service: LoadResult[] = [];
    const baseline: LoadResult[] = [];
    for (let round = 0; round < plan.hotRead.rounds; round++) {
      if (round % 2 === 0) {
        baseline.push(await baselineLoad(connections, plan.hotRead.seconds));
        service.push(await serviceLoad(connections, plan.hotRead.seconds));
      } else {
        service.push(await serviceLoad(connections, plan.hotRead.seconds));
        baseline.push(await baselineLoad(connections, plan.hotRead.seconds));
      }
      progress(
        `hot read, ${connections} connections, round ${round + 1}/${plan.hotRead.rounds}: service ${Math.round(service.at(-1)!.throughput)} req/s ` +
          `(p99 ${service.at(-1)!.p99.toFixed(1)} ms), baseline ${Math.round(baseline.at(-1)!.throughput)} req/s (p99 ${baseline.at(-1)!.p99.toFixed(1)} ms)`,
      );
    }
    const describe = (results: LoadResult[]) => ({
      throughput: summarize(results.map((result) => result.throughput)),
      p50Ms: summarize(results.map((result) => result.p50)),
      p99Ms: summarize(results.map((result) => result.p99)),
      failed: results.reduce((sum, result) => sum + result.failed, 0),
    });
    levels.push({
      connections,
      service: describe(service),
      baseline: describe(baseline),
      throughputRatio: pairedRatio(
        service.map((result) => result.throughput),
        baseline.map((result) => result.throughput),
      ),
    });
  }
  return {
    figures: levels,
    targets: levels.map((level) =>
      check(`hotRead.c${level.connections}`, `GET /api/envelopes/{id} at ${level.connections} connections: throughput at least 0.6 of the baseline's`, level.throughputRatio.median, '>=', 0.6),
    ),
  };
}
