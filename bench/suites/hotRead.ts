/**
 * Hot read path: `GET /api/envelopes/{id}` with a valid token, the same with an API key of the owner
 * (`Authorization: Bearer esk_...`, docs/api.md#api-keys), and the recipient's `GET /api/signing`
 * with a signing token, against a bare `node:http` server that does only the same Table
 * point read against the same Azurite (`/`), the floor both targets name. The signing GET does two
 * point reads (the token's `signingLinks` row, then the envelope), so the same server's `/two-reads`
 * (those two reads, one after the other) is measured too and reported beside it. Each round measures
 * the five back to back, the order rotating from round to round; ratios are taken round by round.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { cpuTimeMs } from '../lib/cpu.js';
import { runLoad, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';
import { BENCH_ACCESS_CODE } from '../lib/seed.js';

interface Side {
  throughput: Summary;
  p50Ms: Summary;
  p99Ms: Summary;
  failed: number;
  /** CPU time per successful request of the server process and of Azurite, ms (Linux only). */
  serverCpuMsPerRequest?: Summary;
  azuriteCpuMsPerRequest?: Summary;
}

interface Measured extends LoadResult {
  serverCpuMs: number | undefined;
  azuriteCpuMs: number | undefined;
}

export interface HotReadLevel {
  connections: number;
  service: Side;
  baseline: Side;
  /** Service throughput / baseline throughput. */
  throughputRatio: Summary;
  /** `GET /api/envelopes/{id}` with an API key instead of the access token. */
  apiKey: Side;
  /** API key throughput / baseline throughput (the target, as for the token). */
  apiKeyRatio: Summary;
  /** `GET /api/signing` (recipient, already opened: read only). */
  signing: Side;
  /** The baseline server doing the signing GET's two point reads. */
  baselineTwoReads: Side;
  /** Signing GET throughput / the one-read baseline's (the target). */
  signingRatio: Summary;
  /** Signing GET throughput / the two-read baseline's. */
  signingTwoReadsRatio: Summary;
  /** `GET /api/signing` of a signer with an access code, authenticated (read only). */
  signingAccessCode: Side;
  /** Its throughput / the one-read baseline's (the target, as for the plain signing GET). */
  signingAccessCodeRatio: Summary;
}

export async function benchHotRead(context: BenchContext): Promise<SuiteResult<HotReadLevel[]>> {
  const { plan, seed } = context;
  /** Runs a load and counts the CPU time the server process and Azurite spent meanwhile. */
  const measured = async (serverPid: number | undefined, run: () => Promise<LoadResult>): Promise<Measured> => {
    const server = cpuTimeMs(serverPid);
    const azurite = cpuTimeMs(context.pids.azurite);
    const result = await run();
    const serverAfter = cpuTimeMs(serverPid);
    const azuriteAfter = cpuTimeMs(context.pids.azurite);
    return {
      ...result,
      serverCpuMs: server === undefined || serverAfter === undefined ? undefined : serverAfter - server,
      azuriteCpuMs: azurite === undefined || azuriteAfter === undefined ? undefined : azuriteAfter - azurite,
    };
  };
  const serviceLoad = (connections: number, seconds: number) =>
    measured(context.pids.service, () =>
      runLoad({
        url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`,
        headers: { Authorization: `Bearer ${seed.smallOwner.token}` },
        connections,
        durationSeconds: seconds,
      }),
    );
  const apiKeyLoad = (connections: number, seconds: number) =>
    measured(context.pids.service, () =>
      runLoad({
        url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`,
        headers: { Authorization: `Bearer ${seed.smallOwnerApiKey}` },
        connections,
        durationSeconds: seconds,
      }),
    );
  const baselineLoad = (connections: number, seconds: number) =>
    measured(context.pids.baseline, () => runLoad({ url: context.baselineUrl, connections, durationSeconds: seconds }));
  const signing = seed.signing;
  if (signing === undefined) throw new Error('the seed has no sent envelope for the signing GET');
  const signingLoad = (connections: number, seconds: number) =>
    measured(context.pids.service, () =>
      runLoad({ url: `${context.apiUrl}/signing`, headers: { Authorization: `Bearer ${signing.token}` }, connections, durationSeconds: seconds }),
    );
  const withCode = seed.signingAccessCode;
  if (withCode === undefined) throw new Error('the seed has no sent envelope with an access code for the signing GET');
  const accessCodeLoad = (connections: number, seconds: number) =>
    measured(context.pids.service, () =>
      runLoad({ url: `${context.apiUrl}/signing`, headers: { Authorization: `Bearer ${withCode.token}` }, connections, durationSeconds: seconds }),
    );
  const twoReadsLoad = (connections: number, seconds: number) =>
    measured(context.pids.baseline, () => runLoad({ url: `${context.baselineUrl}two-reads`, connections, durationSeconds: seconds }));

  const probe = await fetch(`${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`, { headers: { Authorization: `Bearer ${seed.smallOwner.token}` } });
  if (probe.status !== 200) throw new Error(`hot read probe answered ${probe.status}: ${await probe.text()}`);
  const apiKeyProbe = await fetch(`${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`, { headers: { Authorization: `Bearer ${seed.smallOwnerApiKey}` } });
  if (apiKeyProbe.status !== 200) throw new Error(`hot read probe with an API key answered ${apiKeyProbe.status}: ${await apiKeyProbe.text()}`);
  // The first GET by an invited recipient marks it opened (a write); every later one only reads.
  const signingProbe = await fetch(`${context.apiUrl}/signing`, { headers: { Authorization: `Bearer ${signing.token}` } });
  const signingView = (await signingProbe.json()) as { recipient?: { status?: string } };
  if (signingProbe.status !== 200 || signingView.recipient?.status !== 'opened') throw new Error(`signing GET probe answered ${signingProbe.status}: ${JSON.stringify(signingView)}`);
  // The access-code signer enters its code once (marking it opened); then every GET is a read. The rounds
  // stay well within SIGNING_AUTH_TTL_SECONDS (an hour by default).
  const authenticated = await fetch(`${context.apiUrl}/signing/authenticate`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${withCode.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ code: BENCH_ACCESS_CODE }),
  });
  const accessCodeView = (await authenticated.json()) as { authentication?: { verified?: boolean } };
  if (authenticated.status !== 200 || accessCodeView.authentication?.verified !== true) throw new Error(`access code probe answered ${authenticated.status}: ${JSON.stringify(accessCodeView)}`);
  const twoReadsProbe = await fetch(`${context.baselineUrl}two-reads`);
  if (twoReadsProbe.status !== 200) throw new Error(`two-read baseline probe answered ${twoReadsProbe.status}`);

  const levels: HotReadLevel[] = [];
  for (const connections of plan.hotRead.connections) {
    progress(`hot read, ${connections} connections: warm-up`);
    await baselineLoad(connections, plan.hotRead.warmupSeconds);
    await serviceLoad(connections, plan.hotRead.warmupSeconds);
    await apiKeyLoad(connections, plan.hotRead.warmupSeconds);
    await signingLoad(connections, plan.hotRead.warmupSeconds);
    await accessCodeLoad(connections, plan.hotRead.warmupSeconds);
    await twoReadsLoad(connections, plan.hotRead.warmupSeconds);
    const service: Measured[] = [];
    const apiKey: Measured[] = [];
    const baseline: Measured[] = [];
    const signingRuns: Measured[] = [];
    const twoReads: Measured[] = [];
    const accessCodeRuns: Measured[] = [];
    const sides: [Measured[], (connections: number, seconds: number) => Promise<Measured>][] = [
      [baseline, baselineLoad],
      [service, serviceLoad],
      [apiKey, apiKeyLoad],
      [signingRuns, signingLoad],
      [twoReads, twoReadsLoad],
      [accessCodeRuns, accessCodeLoad],
    ];
    for (let round = 0; round < plan.hotRead.rounds; round++) {
      for (let index = 0; index < sides.length; index++) {
        const [results, load] = sides[(index + round) % sides.length]!;
        results.push(await load(connections, plan.hotRead.seconds));
      }
      progress(
        `hot read, ${connections} connections, round ${round + 1}/${plan.hotRead.rounds}: GET envelope ${Math.round(service.at(-1)!.throughput)} req/s ` +
          `(p99 ${service.at(-1)!.p99.toFixed(1)} ms), with an API key ${Math.round(apiKey.at(-1)!.throughput)} req/s, GET signing ${Math.round(signingRuns.at(-1)!.throughput)} req/s, ` +
          `baseline ${Math.round(baseline.at(-1)!.throughput)} req/s (p99 ${baseline.at(-1)!.p99.toFixed(1)} ms), two-read baseline ${Math.round(twoReads.at(-1)!.throughput)} req/s`,
      );
    }
    const perRequest = (results: Measured[], key: 'serverCpuMs' | 'azuriteCpuMs'): Summary | undefined =>
      results.every((result) => result[key] !== undefined && result.ok > 0) ? summarize(results.map((result) => result[key]! / result.ok)) : undefined;
    const describe = (results: Measured[]): Side => {
      const side: Side = {
        throughput: summarize(results.map((result) => result.throughput)),
        p50Ms: summarize(results.map((result) => result.p50)),
        p99Ms: summarize(results.map((result) => result.p99)),
        failed: results.reduce((sum, result) => sum + result.failed, 0),
      };
      const server = perRequest(results, 'serverCpuMs');
      const azurite = perRequest(results, 'azuriteCpuMs');
      if (server !== undefined) side.serverCpuMsPerRequest = server;
      if (azurite !== undefined) side.azuriteCpuMsPerRequest = azurite;
      return side;
    };
    levels.push({
      connections,
      service: describe(service),
      baseline: describe(baseline),
      throughputRatio: pairedRatio(
        service.map((result) => result.throughput),
        baseline.map((result) => result.throughput),
      ),
      apiKey: describe(apiKey),
      apiKeyRatio: pairedRatio(
        apiKey.map((result) => result.throughput),
        baseline.map((result) => result.throughput),
      ),
      signing: describe(signingRuns),
      baselineTwoReads: describe(twoReads),
      signingRatio: pairedRatio(
        signingRuns.map((result) => result.throughput),
        baseline.map((result) => result.throughput),
      ),
      signingTwoReadsRatio: pairedRatio(
        signingRuns.map((result) => result.throughput),
        twoReads.map((result) => result.throughput),
      ),
      signingAccessCode: describe(accessCodeRuns),
      signingAccessCodeRatio: pairedRatio(
        accessCodeRuns.map((result) => result.throughput),
        baseline.map((result) => result.throughput),
      ),
    });
  }
  return {
    figures: levels,
    targets: [
      ...levels.map((level) =>
        check(`hotRead.c${level.connections}`, `GET /api/envelopes/{id} at ${level.connections} connections: throughput at least 0.8 of a bare node:http server doing the same point read`, level.throughputRatio.median, '>=', 0.8),
      ),
      ...levels.map((level) =>
        check(
          `hotRead.apiKey.c${level.connections}`,
          `GET /api/envelopes/{id} with an API key at ${level.connections} connections: throughput at least 0.8 of the same bare one-point-read server`,
          level.apiKeyRatio.median,
          '>=',
          0.8,
        ),
      ),
      ...levels.map((level) =>
        check(
          `hotRead.signing.c${level.connections}`,
          `GET /api/signing at ${level.connections} connections: throughput at least 0.8 of the same bare one-point-read server as GET envelope's`,
          level.signingRatio.median,
          '>=',
          0.8,
        ),
      ),
      ...levels.map((level) =>
        check(
          `hotRead.signingAccessCode.c${level.connections}`,
          `GET /api/signing for an authenticated access-code recipient at ${level.connections} connections: throughput at least 0.8 of the same bare one-point-read server`,
          level.signingAccessCodeRatio.median,
          '>=',
          0.8,
        ),
      ),
    ],
  };
}
