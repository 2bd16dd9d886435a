/**
 * List: the first page of 100 (`GET /api/envelopes?limit=100`) for an owner with 100 envelopes and
 * for one with 10,000 (other owners' envelopes in the same table). One connection, so the latency
 * is the cost of one page; rounds alternate the two owners.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { alternatingRounds, loadRatio, runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { summarize, type Summary } from '../lib/stats.js';
import type { SeededUser } from '../lib/seed.js';

export interface ListFigures {
  pageSize: number;
  small: { envelopes: number; p50Ms: Summary; p99Ms: Summary; throughput: Summary };
  large: { envelopes: number; p50Ms: Summary; p99Ms: Summary; throughput: Summary };
  /** Large owner's median latency / small owner's. */
  latencyRatio: Summary;
}

export async function benchList(context: BenchContext): Promise<SuiteResult<ListFigures>> {
  const { plan, seed } = context;
  const url = `${context.apiUrl}/envelopes?limit=${plan.list.pageSize}`;
  const load = (owner: SeededUser, seconds: number) =>
    runLoad({ url, headers: { Authorization: `Bearer ${owner.token}` }, connections: 1, durationSeconds: seconds });

  for (const [owner, morePages] of [[seed.smallOwner, false], [seed.largeOwner, true]] as const) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${owner.token}` } });
    const page = (await response.json()) as unknown[];
    if (response.status !== 200 || page.length !== plan.list.pageSize || (response.headers.get('link') !== null) !== morePages) {
      throw new Error(`list probe: status ${response.status}, ${page.length} envelopes, Link ${response.headers.get('link')}`);
    }
  }

  progress('list: warm-up');
  await load(seed.smallOwner, 1);
  await load(seed.largeOwner, 1);
  const [small, large] = await alternatingRounds(
    plan.list.rounds,
    () => load(seed.smallOwner, plan.list.seconds),
    () => load(seed.largeOwner, plan.list.seconds),
    (round, smallResult, largeResult) => progress(`list, round ${round + 1}/${plan.list.rounds}: 100-owner p50 ${smallResult.p50.toFixed(1)} ms, 10,000-owner p50 ${largeResult.p50.toFixed(1)} ms`),
  );
  const describe = (results: LoadResult[], envelopes: number) => ({
    envelopes,
    p50Ms: summarize(results.map((result) => result.p50)),
    p99Ms: summarize(results.map((result) => result.p99)),
    throughput: summarize(results.map((result) => result.throughput)),
  });
  const figures: ListFigures = {
    pageSize: plan.list.pageSize,
    small: describe(small, plan.seed.smallOwnerEnvelopes),
    large: describe(large, plan.seed.largeOwnerEnvelopes),
    latencyRatio: loadRatio(large, small, 'p50'),
  };
  return {
    figures,
    targets: [
      check('list', `First page of ${plan.list.pageSize}: owner with ${plan.seed.largeOwnerEnvelopes} at most 2 times the owner with ${plan.seed.smallOwnerEnvelopes} (p50 latency)`, figures.latencyRatio.median, '<=', 2),
    ],
  };
}
