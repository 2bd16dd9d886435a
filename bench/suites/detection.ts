/**
 * Field detection (target: at most 1.5 times the text engine's own extraction of the same document's
 * text with positions, on a 200-page corpus document): `processes/detection.ts` times the service's
 * `detectDocumentFields` and PDF.js's `getTextContent()` of every page, in one fresh process, rounds
 * alternating.
 */
import path from 'node:path';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';
import { CORPUS_DIR } from './completion.js';

/** The corpus document of about 200 pages (206). */
export const DETECTION_DOCUMENT = 'linearized_with_object_streams.pdf';

export interface DetectionFigures {
  document: string;
  pageCount: number;
  detectionMs: Summary;
  floorMs: Summary;
  /** detection / floor, round by round. */
  ratio: Summary;
}

interface DetectionRun {
  pageCount: number;
  detectionMs: number[];
  floorMs: number[];
}

export async function benchDetection(context: BenchContext): Promise<SuiteResult<DetectionFigures>> {
  const rounds = context.plan.quick ? 3 : 7;
  const run = await runChild<DetectionRun>('detection', { args: [path.join(CORPUS_DIR, DETECTION_DOCUMENT), String(rounds)], env: context.env, timeoutMs: 300_000 });
  const figures: DetectionFigures = {
    document: DETECTION_DOCUMENT,
    pageCount: run.pageCount,
    detectionMs: summarize(run.detectionMs),
    floorMs: summarize(run.floorMs),
    ratio: pairedRatio(run.detectionMs, run.floorMs),
  };
  progress(`detection of ${run.pageCount} pages: ${Math.round(figures.detectionMs.median)} ms, PDF.js text content alone ${Math.round(figures.floorMs.median)} ms (× ${figures.ratio.median})`);
  return { figures, targets: [check('detection', `detection of a ${run.pageCount}-page document at most 1.5 × PDF.js's own text extraction`, figures.ratio.median, '<=', 1.5)] };
}
