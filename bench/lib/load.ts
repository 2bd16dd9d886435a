/**
 * The load generator: autocannon (keep-alive connections, closed loop), with every response's
 * latency recorded here as well, so that percentiles are exact rather than autocannon's whole-
 * millisecond histogram buckets.
 */
import autocannon from 'autocannon';
import { pairedRatio, percentile, summarize, type Summary } from './stats.js';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  /** Seconds to run (at most, with {@link LoadOptions.stopWhen}). */
  durationSeconds: number;
  /** Stops the load early once this settles (e.g. when a burst of background work is over). */
  stopWhen?: Promise<unknown>;
  /** Called once per connection, e.g. to give each connection its own body. */
  setupClient?: (client: autocannon.Client, index: number) => void;
  /** Called before every request: its own headers and body (e.g. a new address and login each time). */
  setupRequest?: (request: { headers: Record<string, string>; body: string }) => { headers: Record<string, string>; body: string };
}

export interface LoadResult {
  /** Successful (2xx) responses per second. */
  throughput: number;
  /** Latency percentiles of the successful responses, milliseconds. */
  p50: number;
  p99: number;
  /** Successful responses. */
  ok: number;
  /** Responses with another status, and connection errors or timeouts. */
  failed: number;
  /** Status codes other than 2xx, with counts. */
  otherStatuses: Record<string, number>;
  durationSeconds: number;
}

/** Runs one closed-loop load against `options.url` and resolves when it is over. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const otherStatuses: Record<string, number> = {};
  let clients = 0;
  const started = performance.now();
  let finished: (error: unknown, result: autocannon.Result) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finished = (error, result) => (error ? reject(error) : resolve(result));
  });
  const instance = autocannon(
    {
      url: options.url,
      method: options.method ?? 'GET',
      headers: options.headers ?? {},
      ...(options.body === undefined ? {} : { body: options.body }),
      connections: options.connections,
      duration: options.durationSeconds,
      timeout: 30,
      ...(options.setupClient === undefined ? {} : { setupClient: (client: autocannon.Client) => options.setupClient!(client, clients++) }),
      ...(options.setupRequest === undefined
        ? {}
        : {
            requests: [
              {
                setupRequest: (request: autocannon.Request) => {
                  const next = options.setupRequest!({ headers: { ...(request.headers as Record<string, string>) }, body: String(request.body ?? '') });
                  return { ...request, headers: next.headers, body: next.body };
                },
              },
            ],
          }),
    },
    (error, result) => finished(error, result),
  );
  options.stopWhen?.then(
    () => instance.stop(),
    () => instance.stop(),
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
    else otherStatuses[String(statusCode)] = (otherStatuses[String(statusCode)] ?? 0) + 1;
  });
  const result = await done;
  const elapsed = result.duration > 0 ? result.duration : (performance.now() - started) / 1000;
  const failedStatuses = Object.values(otherStatuses).reduce((sum, count) => sum + count, 0);
  return {
    throughput: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ok: latencies.length,
    failed: failedStatuses + result.errors + result.timeouts,
    otherStatuses,
    durationSeconds: elapsed,
  };
}

/** The rounds of one side of a load benchmark: each figure the median of its rounds. */
export interface LoadSummary {
  /** Successful responses per second. */
  throughput: Summary;
  p50Ms: Summary;
  p99Ms: Summary;
  /** Failed responses over every round. */
  failed: number;
}

/** Summarizes the rounds of one side (each a {@link runLoad} result). */
export function summarizeLoads(results: readonly LoadResult[]): LoadSummary {
  return {
    throughput: summarize(results.map((result) => result.throughput)),
    p50Ms: summarize(results.map((result) => result.p50)),
    p99Ms: summarize(results.map((result) => result.p99)),
    failed: results.reduce((sum, result) => sum + result.failed, 0),
  };
}

/**
 * Measures two sides in the same rounds, back to back, the order alternating (even rounds `a` first,
 * odd rounds `b` first), so that a drift within a round favours neither; calls `onRound` after each.
 * @returns each side's results, in round order
 */
export async function alternatingRounds(
  rounds: number,
  a: () => Promise<LoadResult>,
  b: () => Promise<LoadResult>,
  onRound: (round: number, a: LoadResult, b: LoadResult) => void,
): Promise<[LoadResult[], LoadResult[]]> {
  const aResults: LoadResult[] = [];
  const bResults: LoadResult[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      aResults.push(await a());
      bResults.push(await b());
    } else {
      bResults.push(await b());
      aResults.push(await a());
    }
    onRound(round, aResults.at(-1)!, bResults.at(-1)!);
  }
  return [aResults, bResults];
}

/** The ratio of one figure (`p50` latency, `throughput`) of two sides measured in the same rounds, round by round ({@link pairedRatio}). */
export function loadRatio(numerators: readonly LoadResult[], denominators: readonly LoadResult[], figure: 'p50' | 'throughput'): Summary {
  return pairedRatio(
    numerators.map((result) => result[figure]),
    denominators.map((result) => result[figure]),
  );
}
