/**
 * Idempotency keys (issue 20): `POST /api/GetUploadUrl` with a new `Idempotency-Key` on every request
 * against the same request without one (the key's claim row, written in the envelope's own
 * transaction, and its kept answer, written after the answer, are what it adds), and the replay of a kept answer (one key sent again and again) against
 * the hot read (`GET /api/envelopes/{id}`), measured in the same rounds, the order rotating from
 * round to round. Same owner, same body, same connections on every side; ratios of p50 latencies,
 * taken round by round.
 */
import { randomUUID } from 'node:crypto';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runLoad, type LoadOptions, type LoadResult } from '../lib/load.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

interface Side {
  p50Ms: Summary;
  p99Ms: Summary;
  throughput: Summary;
  failed: number;
}

export interface IdempotencyFigures {
  connections: number;
  /** GetUploadUrl without a key. */
  withoutKey: Side;
  /** GetUploadUrl with a new key on every request. */
  newKey: Side;
  /** GetUploadUrl with one key already used: every answer a replay. */
  replay: Side;
  /** GET /api/envelopes/{id} (the hot read). */
  hotRead: Side;
  /** New key p50 / without key p50. */
  newKeyRatio: Summary;
  /** Replay p50 / hot read p50. */
  replayRatio: Summary;
}

const SIDES = ['withoutKey', 'newKey', 'replay', 'hotRead'] as const;
type SideName = (typeof SIDES)[number];

export async function benchIdempotency(context: BenchContext): Promise<SuiteResult<IdempotencyFigures>> {
  const { plan, seed } = context;
  const { connections, rounds, seconds } = plan.idempotency;
  // An owner of its own (the login storm's first user, who owns nothing): the envelopes these loads
  // create stay out of the other suites' owners.
  const owner = seed.loginUsers[0]!;
  const upload: Omit<LoadOptions, 'durationSeconds'> = {
    url: `${context.apiUrl}/GetUploadUrl`,
    method: 'POST',
    headers: { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ filename: 'contract.pdf', mimetype: 'application/pdf' }),
    connections,
  };
  const replayKey = `bench-replay-${randomUUID()}`;
  const first = await fetch(upload.url, { method: 'POST', headers: { ...upload.headers, 'Idempotency-Key': replayKey }, body: upload.body! });
  await first.text();
  if (first.status !== 201) throw new Error(`idempotency probe: GetUploadUrl answered ${first.status}`);

  const loads: Record<SideName, (durationSeconds: number) => Promise<LoadResult>> = {
    withoutKey: (durationSeconds) => runLoad({ ...upload, durationSeconds }),
    newKey: (durationSeconds) =>
      runLoad({ ...upload, durationSeconds, setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': randomUUID() } }) }),
    replay: (durationSeconds) => runLoad({ ...upload, headers: { ...upload.headers, 'Idempotency-Key': replayKey }, durationSeconds }),
    hotRead: (durationSeconds) =>
      runLoad({ url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`, headers: { Authorization: `Bearer ${seed.smallOwner.token}` }, connections, durationSeconds }),
  };

  progress('idempotency: warm-up');
  for (const side of SIDES) await loads[side](plan.idempotency.warmupSeconds);
  const measured: Record<SideName, LoadResult[]> = { withoutKey: [], newKey: [], replay: [], hotRead: [] };
  for (let round = 0; round < rounds; round++) {
    const order = [...SIDES.slice(round % SIDES.length), ...SIDES.slice(0, round % SIDES.length)];
    for (const side of order) measured[side].push(await loads[side](seconds));
    const p50 = (side: SideName) => measured[side].at(-1)!.p50.toFixed(2);
    progress(`idempotency, round ${round + 1}/${rounds}: p50 without key ${p50('withoutKey')} ms, new key ${p50('newKey')} ms, replay ${p50('replay')} ms, hot read ${p50('hotRead')} ms`);
  }
  const describe = (results: LoadResult[]): Side => ({
    p50Ms: summarize(results.map((result) => result.p50)),
    p99Ms: summarize(results.map((result) => result.p99)),
    throughput: summarize(results.map((result) => result.throughput)),
    failed: results.reduce((sum, result) => sum + result.failed, 0),
  });
  const p50s = (side: SideName) => measured[side].map((result) => result.p50);
  const figures: IdempotencyFigures = {
    connections,
    withoutKey: describe(measured.withoutKey),
    newKey: describe(measured.newKey),
    replay: describe(measured.replay),
    hotRead: describe(measured.hotRead),
    newKeyRatio: pairedRatio(p50s('newKey'), p50s('withoutKey')),
    replayRatio: pairedRatio(p50s('replay'), p50s('hotRead')),
  };
  const failed = SIDES.filter((side) => figures[side].failed > 0);
  if (failed.length > 0) throw new Error(`idempotency: non-2xx answers on ${failed.join(', ')}: ${failed.map((side) => JSON.stringify(measured[side].map((result) => result.otherStatuses))).join('; ')}`);
  return {
    figures,
    targets: [
      check('idempotency', `POST /api/GetUploadUrl with a new Idempotency-Key at most 1.3 times the same request without one (p50, ${connections} connections)`, figures.newKeyRatio.median, '<=', 1.3),
      check('idempotency', `A replayed POST /api/GetUploadUrl at least as fast as the hot read's p50 (replay p50 / hot read p50, ${connections} connections)`, figures.replayRatio.median, '<=', 1),
    ],
  };
}
