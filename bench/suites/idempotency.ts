/**
 * Idempotency keys (docs/api.md#idempotency): `POST /api/GetUploadUrl` with a new `Idempotency-Key` on every request
 * against the same request without one (the key's row, written in the envelope's own transaction with
 * the kept answer, is what it adds), and the replay of a kept answer (one key sent again and again)
 * against the hot read (`GET /api/envelopes/{id}`), measured in the same rounds, in an order balanced
 * over the rounds (`balancedOrder`). Same body and connections on every side; ratios of p50
 * latencies, taken round by round.
 *
 * Each load that creates envelopes (without a key, with a new key) runs as an owner of its own whose
 * partition is empty when the load starts (the seed's spare owners): Azurite scans a partition for
 * the row key on every insert, so its inserts slow down as the partition grows (real Table Storage's
 * do not), and loads sharing one owner would each pay for the rows of every load before them. Within
 * a load the key's partition still grows by four rows a request against three without a key; that
 * part of Azurite's cost stays in the figure.
 */
import { randomUUID } from 'node:crypto';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runLoad, summarizeLoads, type LoadOptions, type LoadResult, type LoadSummary } from '../lib/load.js';
import type { SeededUser } from '../lib/seed.js';
import { progress } from '../lib/progress.js';
import { balancedOrder, pairedRatio, type Summary } from '../lib/stats.js';

type Side = LoadSummary;

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
  // The replay's owner: the login storm's first user, who owns nothing; its one envelope is the replayed answer's.
  const replayOwner = seed.loginUsers[0]!;
  const spareOwners = [...seed.spareOwners];
  const nextOwner = (): SeededUser => {
    const owner = spareOwners.shift();
    if (owner === undefined) throw new Error('idempotency: the seed has too few spare owners (plan.seed.spareOwners)');
    return owner;
  };
  const uploadAs = (owner: SeededUser): Omit<LoadOptions, 'durationSeconds'> => ({
    url: `${context.apiUrl}/GetUploadUrl`,
    method: 'POST',
    headers: { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ filename: 'contract.pdf', mimetype: 'application/pdf' }),
    connections,
  });
  const replayUpload = uploadAs(replayOwner);
  const replayKey = `bench-replay-${randomUUID()}`;
  const first = await fetch(replayUpload.url, { method: 'POST', headers: { ...replayUpload.headers, 'Idempotency-Key': replayKey }, body: replayUpload.body! });
  await first.text();
  if (first.status !== 201) throw new Error(`idempotency probe: GetUploadUrl answered ${first.status}`);

  const loads: Record<SideName, (durationSeconds: number) => Promise<LoadResult>> = {
    withoutKey: (durationSeconds) => runLoad({ ...uploadAs(nextOwner()), durationSeconds }),
    newKey: (durationSeconds) =>
      runLoad({ ...uploadAs(nextOwner()), durationSeconds, setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': randomUUID() } }) }),
    replay: (durationSeconds) => runLoad({ ...replayUpload, headers: { ...replayUpload.headers, 'Idempotency-Key': replayKey }, durationSeconds }),
    hotRead: (durationSeconds) =>
      runLoad({ url: `${context.apiUrl}/envelopes/${seed.hotEnvelopeId}`, headers: { Authorization: `Bearer ${seed.smallOwner.token}` }, connections, durationSeconds }),
  };

  progress('idempotency: warm-up');
  for (const side of SIDES) await loads[side](plan.idempotency.warmupSeconds);
  const measured: Record<SideName, LoadResult[]> = { withoutKey: [], newKey: [], replay: [], hotRead: [] };
  for (let round = 0; round < rounds; round++) {
    const order = balancedOrder(SIDES, round);
    for (const side of order) measured[side].push(await loads[side](seconds));
    const p50 = (side: SideName) => measured[side].at(-1)!.p50.toFixed(2);
    progress(`idempotency, round ${round + 1}/${rounds}: p50 without key ${p50('withoutKey')} ms, new key ${p50('newKey')} ms, replay ${p50('replay')} ms, hot read ${p50('hotRead')} ms`);
  }
  const p50s = (side: SideName) => measured[side].map((result) => result.p50);
  const figures: IdempotencyFigures = {
    connections,
    withoutKey: summarizeLoads(measured.withoutKey),
    newKey: summarizeLoads(measured.newKey),
    replay: summarizeLoads(measured.replay),
    hotRead: summarizeLoads(measured.hotRead),
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
