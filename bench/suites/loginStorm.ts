/**
 * Login storm: 20 concurrent logins (each connection its own account, so the per-account throttle
 * never trips) at the configured bcrypt cost while a second client reads envelopes; against the
 * same readers with no logins, and against raw hashing throughput at that cost in a process of its
 * own. Rounds alternate idle and storm.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runChild } from '../lib/child.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';
import type { HashRateResult } from '../processes/hashRate.js';

export interface LoginStormFigures {
  bcryptCost: number;
  passwordBackend: string;
  concurrentLogins: number;
  readerConnections: number;
  logins: { throughput: Summary; p50Ms: Summary; p99Ms: Summary; failed: number; otherStatuses: Record<string, number> };
  rawHashing: { verificationsPerSecond: Summary; eventLoopDelayMaxMs: Summary };
  /** Login throughput / raw verification throughput. */
  loginThroughputRatio: Summary;
  readersIdle: { throughput: Summary; p99Ms: Summary };
  readersDuringStorm: { throughput: Summary; p99Ms: Summary; failed: number };
  /** Readers' p99 during the storm / their idle p99, round by round. */
  readerP99Ratio: Summary;
}

export async function benchLoginStorm(context: BenchContext): Promise<SuiteResult<LoginStormFigures>> {
  const { plan, seed } = context;
  const { logins: loginConnections, readers: readerConnections, seconds } = plan.loginStorm;
  const readers = () =>
    runLoad({
      url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`,
      headers: { Authorization: `Bearer ${seed.smallOwner.token}` },
      connections: readerConnections,
      durationSeconds: seconds,
    });
  const storm = () =>
    runLoad({
      url: `${context.apiUrl}/Login`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
      connections: loginConnections,
      durationSeconds: seconds,
      setupClient: (client, index) => {
        const user = seed.loginUsers[index % seed.loginUsers.length]!;
        client.setBody(JSON.stringify({ email: user.email, password: user.password }));
      },
    });
  const raw = () =>
    runChild<HashRateResult>('hashRate', {
      args: [JSON.stringify({ cost: context.bcryptCost, concurrency: loginConnections, seconds: plan.loginStorm.rawSeconds })],
      env: context.env,
      timeoutMs: 120_000,
    });

  const login = async () => {
    const user = seed.loginUsers[0]!;
    const response = await fetch(`${context.apiUrl}/Login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: user.email, password: user.password }) });
    if (response.status !== 200) throw new Error(`login probe answered ${response.status}: ${await response.text()}`);
  };
  await login();

  const idle: LoadResult[] = [];
  const stormReaders: LoadResult[] = [];
  const stormLogins: LoadResult[] = [];
  const rawRuns: HashRateResult[] = [];
  for (let round = 0; round < plan.loginStorm.rounds; round++) {
    rawRuns.push(await raw());
    const during = async () => {
      const [loginResult, readerResult] = await Promise.all([storm(), readers()]);
      stormLogins.push(loginResult);
      stormReaders.push(readerResult);
      // The logins still queued when the load generator stopped keep the service hashing for a while:
      // one more login, which queues behind them, answers once they are done.
      await login();
    };
    if (round % 2 === 0) {
      idle.push(await readers());
      await during();
    } else {
      await during();
      idle.push(await readers());
    }
    progress(
      `login storm, round ${round + 1}/${plan.loginStorm.rounds}: ${stormLogins.at(-1)!.throughput.toFixed(1)} logins/s ` +
        `(raw ${rawRuns.at(-1)!.verificationsPerSecond.toFixed(1)}/s, ${rawRuns.at(-1)!.backend}), readers p99 ${stormReaders.at(-1)!.p99.toFixed(1)} ms vs idle ${idle.at(-1)!.p99.toFixed(1)} ms`,
    );
  }
  const otherStatuses: Record<string, number> = {};
  for (const result of stormLogins) {
    for (const [status, count] of Object.entries(result.otherStatuses)) otherStatuses[status] = (otherStatuses[status] ?? 0) + count;
  }
  const figures: LoginStormFigures = {
    bcryptCost: context.bcryptCost,
    passwordBackend: rawRuns[0]!.backend,
    concurrentLogins: loginConnections,
    readerConnections,
    logins: {
      throughput: summarize(stormLogins.map((result) => result.throughput)),
      p50Ms: summarize(stormLogins.map((result) => result.p50)),
      p99Ms: summarize(stormLogins.map((result) => result.p99)),
      failed: stormLogins.reduce((sum, result) => sum + result.failed, 0),
      otherStatuses,
    },
    rawHashing: {
      verificationsPerSecond: summarize(rawRuns.map((run) => run.verificationsPerSecond)),
      eventLoopDelayMaxMs: summarize(rawRuns.map((run) => run.eventLoopDelayMaxMs)),
    },
    loginThroughputRatio: pairedRatio(
      stormLogins.map((result) => result.throughput),
      rawRuns.map((run) => run.verificationsPerSecond),
    ),
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
  };
  return {
    figures,
    targets: [check('loginStorm.readers', `Readers' p99 during ${loginConnections} concurrent logins at most 3 times their idle p99`, figures.readerP99Ratio.median, '<=', 3)],
  };
}
