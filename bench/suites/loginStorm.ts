/**
 * Login flood: 40 connections logging in for addresses that have no account, each request from a
 * client address of its own (`X-Forwarded-For` behind `TRUST_PROXY=1`, as a botnet would: no per-address
 * limit ever trips, and no address is tried twice, so the per-address login throttle never trips
 * either), while a second client reads envelopes and a third logs in to a real account, one login
 * after the other. Against the same readers and the same real logins with no flood. Rounds alternate
 * idle and flood.
 *
 * What it shows: logins for unknown addresses cost no hash (`src/lib/auth/password.ts`), so they take
 * nothing from the readers nor from the real accounts' logins.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, percentile, summarize, type Summary } from '../lib/stats.js';

export interface LoginStormFigures {
  bcryptCost: number;
  /** Connections of the flood. */
  concurrentLogins: number;
  readerConnections: number;
  flood: { requestsPerSecond: Summary; statuses: Record<string, number>; errors: number };
  readersIdle: { throughput: Summary; p99Ms: Summary };
  readersDuringStorm: { throughput: Summary; p99Ms: Summary; failed: number };
  /** Readers' p99 during the flood / their idle p99, round by round. */
  readerP99Ratio: Summary;
  /** A real account's login, one after the other: median milliseconds per round, idle and during the flood. */
  realLoginIdleMs: Summary;
  realLoginDuringStormMs: Summary;
  /** Real login during the flood / idle, round by round. */
  realLoginRatio: Summary;
  realLoginFailures: number;
}

export async function benchLoginStorm(context: BenchContext): Promise<SuiteResult<LoginStormFigures>> {
  const { plan, seed } = context;
  const { logins: floodConnections, readers: readerConnections, seconds } = plan.loginStorm;
  // Every request of the flood and every real login comes from an address of its own.
  let addresses = 0;
  const nextAddress = () => {
    addresses++;
    return `10.${(addresses >> 16) & 255}.${(addresses >> 8) & 255}.${addresses & 255}`;
  };
  const readers = () =>
    runLoad({
      url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`,
      headers: { Authorization: `Bearer ${seed.smallOwner.token}` },
      connections: readerConnections,
      durationSeconds: seconds,
    });
  const flood = () =>
    runLoad({
      url: `${context.apiUrl}/Login`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      connections: floodConnections,
      durationSeconds: seconds,
      setupRequest: (request) => {
        const address = nextAddress();
        return {
          headers: { ...request.headers, 'X-Forwarded-For': address },
          body: JSON.stringify({ email: `nobody-${address}-${addresses}@bench.invalid`, password: 'not anyone\'s password' }),
        };
      },
    });

  let failures = 0;
  const realLogin = async (index: number): Promise<number> => {
    const user = seed.loginUsers[index % seed.loginUsers.length]!;
    const started = performance.now();
    const response = await fetch(`${context.apiUrl}/Login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': nextAddress() },
      body: JSON.stringify({ email: user.email, password: user.password }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) failures++;
    return performance.now() - started;
  };
  /** Real logins one after the other until `done` settles; their durations, milliseconds. */
  const realLogins = async (done: Promise<unknown>): Promise<number[]> => {
    let over = false;
    void done.finally(() => (over = true));
    const durations: number[] = [];
    while (!over) durations.push(await realLogin(durations.length));
    return durations;
  };
  // Warm-up: the first login loads bcrypt and measures a comparison at this cost.
  await realLogin(0);

  const idle: LoadResult[] = [];
  const stormReaders: LoadResult[] = [];
  const floods: LoadResult[] = [];
  const realIdle: number[] = [];
  const realStorm: number[] = [];
  const phase = async (withFlood: boolean) => {
    const load = Promise.all([readers(), withFlood ? flood() : Promise.resolve(undefined)]);
    const [[readerResult, floodResult], logins] = await Promise.all([load, realLogins(load)]);
    (withFlood ? stormReaders : idle).push(readerResult);
    if (floodResult !== undefined) floods.push(floodResult);
    (withFlood ? realStorm : realIdle).push(percentile(logins, 50));
  };
  for (let round = 0; round < plan.loginStorm.rounds; round++) {
    if (round % 2 === 0) {
      await phase(false);
      await phase(true);
    } else {
      await phase(true);
      await phase(false);
    }
    const lastFlood = floods.at(-1)!;
    progress(
      `login flood, round ${round + 1}/${plan.loginStorm.rounds}: ${(sumStatuses(lastFlood) / lastFlood.durationSeconds).toFixed(0)} unknown-address logins/s, ` +
        `readers p99 ${stormReaders.at(-1)!.p99.toFixed(1)} ms vs idle ${idle.at(-1)!.p99.toFixed(1)} ms, ` +
        `real login ${realStorm.at(-1)!.toFixed(0)} ms vs idle ${realIdle.at(-1)!.toFixed(0)} ms`,
    );
  }
  const statuses: Record<string, number> = {};
  for (const result of floods) {
    for (const [status, count] of Object.entries(result.otherStatuses)) statuses[status] = (statuses[status] ?? 0) + count;
  }
  const figures: LoginStormFigures = {
    bcryptCost: context.bcryptCost,
    concurrentLogins: floodConnections,
    readerConnections,
    flood: {
      requestsPerSecond: summarize(floods.map((result) => sumStatuses(result) / result.durationSeconds)),
      statuses,
      errors: floods.reduce((sum, result) => sum + result.failed - sumStatuses(result), 0),
    },
    readersIdle: { throughput: summarize(idle.map((result) => result.throughput)), p99Ms: summarize(idle.map((result) => result.p99)) },
    readersDuringStorm: {
      throughput: summarize(stormReaders.map((result) => result.throughput)),
      p99Ms: summarize(stormReaders.map((result) => result.p99)),
      failed: stormReaders.reduce((sum, result) => sum + result.failed, 0),
    },
    readerP99Ratio: pairedRatio(
      stormReaders.map((result) => result.p99),
      idle.map((result) => result.p99),
    ),
    realLoginIdleMs: summarize(realIdle),
    realLoginDuringStormMs: summarize(realStorm),
    realLoginRatio: pairedRatio(realStorm, realIdle),
    realLoginFailures: failures,
  };
  return {
    figures,
    targets: [
      check('loginStorm.readers', `Readers' p99 during the ${floodConnections}-login flood at most 2 times their idle p99`, figures.readerP99Ratio.median, '<=', 2),
      check('loginStorm.realLogin', `A real account's login during the ${floodConnections}-login flood at most 3 times its idle time`, figures.realLoginRatio.median, '<=', 3),
    ],
  };
}

/** Answers of a load that were not 2xx (the flood's are 401 by design), in all. */
function sumStatuses(result: LoadResult): number {
  return Object.values(result.otherStatuses).reduce((sum, count) => sum + count, 0);
}
