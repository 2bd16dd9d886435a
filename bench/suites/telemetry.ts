/**
 * Telemetry's cost on the hot read (docs/api.md#telemetry): `GET /api/envelopes/{id}` with a token on
 * the run's service (telemetry off, as every other suite measures it) and on a second service process
 * started with `OTEL_EXPORTER_OTLP_ENDPOINT` naming a loopback OTLP/HTTP sink (a `node:http` server in
 * this process that reads each export and answers 200), so that every request makes its server span
 * and its storage call's span, exported in batches, and its metrics. Each round measures the two back
 * to back, the order alternating; the ratio is taken round by round. The sink's count of exports
 * shows that telemetry was on. Beside it, each service process's CPU time per request (from /proc,
 * the batches' exports included), which a machine shared with other work moves less than throughput.
 *
 * `BENCH_SERVICE_NODE_ARGS` (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) applies to this suite's
 * service process too, so that the two can be profiled side by side.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startChild } from '../lib/child.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { cpuTimeMs } from '../lib/cpu.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

interface Side {
  throughput: Summary;
  p50Ms: Summary;
  p99Ms: Summary;
  failed: number;
}

export interface TelemetryFigures {
  connections: number;
  /** Telemetry off: the run's own service. */
  off: Side;
  /** Telemetry exporting over OTLP/HTTP to the loopback sink. */
  exporting: Side;
  /** Exporting / off throughput, round by round (the target). */
  throughputRatio: Summary;
  /** Exports the sink received while the loads ran: traces, metrics, logs. */
  exports: { traces: number; metrics: number; logs: number; bytes: number };
  /** CPU time of each service process per successful request, ms (Linux only), and exporting / off round by round. */
  serverCpuMsPerRequest?: { off: Summary; exporting: Summary; ratio: Summary };
}

/** A loopback OTLP/HTTP receiver that reads every export, counts it and answers 200 (an empty protobuf answer). */
async function startSink(): Promise<{ url: string; counts: TelemetryFigures['exports']; close: () => Promise<void> }> {
  const counts = { traces: 0, metrics: 0, logs: 0, bytes: 0 };
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => {
      counts.bytes += chunk.length;
    });
    request.on('end', () => {
      if (request.url === '/v1/traces') counts.traces++;
      else if (request.url === '/v1/metrics') counts.metrics++;
      else if (request.url === '/v1/logs') counts.logs++;
      response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export async function benchTelemetry(context: BenchContext): Promise<SuiteResult<TelemetryFigures>> {
  const { plan, seed } = context;
  const sink = await startSink();
  const traced = await startChild<{ apiUrl: string }>('serviceHost', {
    env: { ...context.env, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_SERVICE_NAME: 'envelope-signing-service-bench' },
    execArgv: process.env.BENCH_SERVICE_NODE_ARGS?.split(' ').filter((arg) => arg !== '') ?? [],
  });
  /** A load on one side, with the CPU time its service process spent meanwhile per successful request. */
  const measured = async (pid: number | undefined, run: () => Promise<LoadResult>): Promise<LoadResult & { cpuMsPerRequest?: number }> => {
    const before = cpuTimeMs(pid);
    const result = await run();
    const after = cpuTimeMs(pid);
    return before === undefined || after === undefined || result.ok === 0 ? result : { ...result, cpuMsPerRequest: (after - before) / result.ok };
  };
  try {
    const path = `/envelopes/${seed.hotEnvelopeId}`;
    const headers = { Authorization: `Bearer ${seed.smallOwner.token}` };
    const load = (apiUrl: string, connections: number, seconds: number) => runLoad({ url: `${apiUrl}${path}`, headers, connections, durationSeconds: seconds });
    for (const apiUrl of [context.apiUrl, traced.ready.apiUrl]) {
      const probe = await fetch(`${apiUrl}${path}`, { headers });
      if (probe.status !== 200) throw new Error(`telemetry hot read probe answered ${probe.status}: ${await probe.text()}`);
    }
    const connections = plan.hotRead.connections[0] ?? 10;
    progress(`telemetry, ${connections} connections: warm-up`);
    await load(context.apiUrl, connections, plan.hotRead.warmupSeconds);
    await load(traced.ready.apiUrl, connections, plan.hotRead.warmupSeconds);
    const before = { ...sink.counts };
    const off: (LoadResult & { cpuMsPerRequest?: number })[] = [];
    const exporting: (LoadResult & { cpuMsPerRequest?: number })[] = [];
    for (let round = 0; round < plan.hotRead.rounds; round++) {
      const sides: [LoadResult[], string, number | undefined][] = [
        [off, context.apiUrl, context.pids.service],
        [exporting, traced.ready.apiUrl, traced.child.pid],
      ];
      for (let index = 0; index < sides.length; index++) {
        const [results, apiUrl, pid] = sides[(index + round) % sides.length]!;
        results.push(await measured(pid, () => load(apiUrl, connections, plan.hotRead.seconds)));
      }
      progress(`telemetry, round ${round + 1}/${plan.hotRead.rounds}: off ${Math.round(off.at(-1)!.throughput)} req/s, exporting ${Math.round(exporting.at(-1)!.throughput)} req/s (${sink.counts.traces} trace exports so far); CPU per request off ${off.at(-1)!.cpuMsPerRequest?.toFixed(3) ?? '?'} ms, exporting ${exporting.at(-1)!.cpuMsPerRequest?.toFixed(3) ?? '?'} ms`);
    }
    const describe = (results: LoadResult[]): Side => ({
      throughput: summarize(results.map((result) => result.throughput)),
      p50Ms: summarize(results.map((result) => result.p50)),
      p99Ms: summarize(results.map((result) => result.p99)),
      failed: results.reduce((sum, result) => sum + result.failed, 0),
    });
    const figures: TelemetryFigures = {
      connections,
      off: describe(off),
      exporting: describe(exporting),
      throughputRatio: pairedRatio(
        exporting.map((result) => result.throughput),
        off.map((result) => result.throughput),
      ),
      exports: { traces: sink.counts.traces - before.traces, metrics: sink.counts.metrics - before.metrics, logs: sink.counts.logs - before.logs, bytes: sink.counts.bytes - before.bytes },
    };
    const offCpu = off.map((result) => result.cpuMsPerRequest);
    const exportingCpu = exporting.map((result) => result.cpuMsPerRequest);
    if ([...offCpu, ...exportingCpu].every((value) => value !== undefined)) {
      figures.serverCpuMsPerRequest = {
        off: summarize(offCpu as number[]),
        exporting: summarize(exportingCpu as number[]),
        ratio: pairedRatio(exportingCpu as number[], offCpu as number[]),
      };
    }
    if (figures.exports.traces === 0) throw new Error('the service with telemetry exported no trace while it was measured');
    return {
      figures,
      targets: [
        check(
          'telemetry.hotRead',
          `GET /api/envelopes/{id} at ${connections} connections with telemetry exporting over OTLP/HTTP to a loopback collector: throughput at least 0.9 of the same without telemetry`,
          figures.throughputRatio.median,
          '>=',
          0.9,
        ),
      ],
    };
  } finally {
    await traced.stop();
    await sink.close();
  }
}
