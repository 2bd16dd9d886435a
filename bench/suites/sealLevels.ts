/**
 * Seal levels: completion at PAdES B-LTA against the same completion at B-T plus one timestamp
 * round trip, with revocation data cached (`processes/sealLevels.ts`), in a fresh process.
 */
import path from 'node:path';
import { check, type BenchContext, type SuiteResult, type TargetCheck } from '../lib/context.js';
import { runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, round, summarize, type Summary } from '../lib/stats.js';
import type { SealLevelsProcessResult } from '../processes/sealLevels.js';
import { CORPUS_DIR } from './completion.js';

/** B-LTA / (B-T + one timestamp round trip), median of the rounds' ratios. */
export const SEAL_LEVEL_LIMIT = 1.3;

export interface SealLevelsFigures {
  document: string;
  ltaMs: Summary;
  btMs: Summary;
  timestampMs: Summary;
  /** B-LTA / (B-T + timestamp), round by round. */
  ratio: Summary;
  /** OCSP and CRL requests during the measured rounds (0: served from the cache). */
  revocationRequests: number;
  timestampRequestsPerLta: number;
  /** Median time of each step B-LTA adds to B-T, replayed on its own (attribution only, `lib/ltaPhases.ts`), ms. */
  ltaPhasesMs?: Record<string, number>;
}

export async function benchSealLevels(context: BenchContext): Promise<SuiteResult<SealLevelsFigures>> {
  const rounds = context.plan.completion.rounds + 1;
  progress(`seal levels: normal.pdf at B-LTA and B-T against a loopback PKI (${rounds} rounds, fresh process)`);
  const result = await runChild<SealLevelsProcessResult>('sealLevels', {
    args: [JSON.stringify({ documentPath: path.join(CORPUS_DIR, 'normal.pdf'), rounds })],
    env: context.env,
    timeoutMs: 600_000,
  });
  const figures: SealLevelsFigures = {
    document: 'normal',
    ltaMs: summarize(result.ltaMs),
    btMs: summarize(result.btMs),
    timestampMs: summarize(result.timestampMs),
    ratio: pairedRatio(result.ltaMs, result.btMs.map((bt, index) => bt + result.timestampMs[index]!)),
    revocationRequests: result.revocationRequests,
    timestampRequestsPerLta: result.timestampRequestsPerLta,
    ltaPhasesMs: Object.fromEntries(Object.entries(result.ltaPhasesMs).map(([phase, ms]) => [phase, round(ms, 1)])),
  };
  progress(
    `seal levels: B-LTA ${figures.ltaMs.median} ms vs B-T ${figures.btMs.median} ms + timestamp ${figures.timestampMs.median} ms (x${figures.ratio.median}); ` +
      `${figures.revocationRequests} revocation requests while measuring`,
  );
  const targets: TargetCheck[] = [
    check(
      'sealLevels.lta',
      `complete normal at B-LTA: at most ${SEAL_LEVEL_LIMIT} times the same completion at B-T plus one timestamp round trip (loopback TSA and OCSP responder, revocation data cached)`,
      figures.ratio.median,
      '<=',
      SEAL_LEVEL_LIMIT,
    ),
    check('sealLevels.cached', 'B-LTA completions while revocation data is cached: no OCSP or CRL request', figures.revocationRequests, '<=', 0),
  ];
  return { figures, targets };
}
