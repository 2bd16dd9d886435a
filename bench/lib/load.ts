/**
 * The load generator: autocannon (keep-alive connections, closed loop), with every response's
 * latency recorded here as well, so that percentiles are exact rather than autocannon's whole-
 * millisecond histogram buckets.
 */
import autocannon from 'autocannon';
import { percentile } from './stats.js';

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
  /** Called before every request, e.g. to give each request a header of its own. */
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
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
      ...(options.setupRequest === undefined ? {} : { requests: [{ setupRequest: options.setupRequest }] }),
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
