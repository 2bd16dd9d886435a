/**
 * Completion: wall time and peak resident-set growth of `complete` for four corpus documents and a
 * generated 1,000-page one, against the completion floor: what sealing the same bytes cannot avoid
 * (parse, an incremental save with one new signature field, the PAdES signature; same library, same
 * certificate, same digest), in the same process, measured the same way, rounds alternating. One
 * fresh process per document (`processes/completion.ts`).
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { check, type BenchContext, type SuiteResult, type TargetCheck } from '../lib/context.js';
import { runChild } from '../lib/child.js';
import { generateLongPdf } from '../lib/generatePdf.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, round, summarize, type Summary } from '../lib/stats.js';
import type { CompletionProcessResult } from '../processes/completion.js';

/**
 * The corpus of real PDFs, found as the tests find it: `CORPUS_DIR` when set, else the team's shared
 * copy beside the repository, else the copy vendored in `tests/corpus/pdf`.
 */
const SHARED_CORPUS_DIR = path.resolve(process.cwd(), '../shared/corpus/pdf');
export const CORPUS_DIR = process.env.CORPUS_DIR ?? (existsSync(SHARED_CORPUS_DIR) ? SHARED_CORPUS_DIR : path.resolve(process.cwd(), 'tests/corpus/pdf'));
export const CORPUS_DOCUMENTS = ['normal', 'fill_form', 'us_constitution', 'linearized_with_object_streams'];

/**
 * Targets: complete / (PDF floor + storage floor) for the corpus documents (median of the rounds'
 * ratios; it replaced "2 times the PDF floor" alone, which no completion can reach since storing
 * the sealed PDF and the envelope costs what the PDF floor leaves out), and complete's peak RSS
 * growth / the PDF floor's.
 */
export const COMPLETION_LIMITS = { timeWithStorage: 1.5, memory: 1.5 } as const;

export interface CompletionFigures {
  document: string;
  bytes: number;
  pages: number;
  completeMs: Summary;
  /** The floor: load + sign (see `processes/completion.ts`), ms. */
  floorMs: Summary;
  /** complete / floor, round by round. */
  timeRatio: Summary;
  /** The storage floor: the completion's storage reads and writes done bare (see `processes/completion.ts`), ms. */
  storageFloorMs: Summary;
  /** complete / (floor + storage floor), round by round. */
  timeWithStorageRatio: Summary;
  /** Largest peak resident-set growth of the measured completions, bytes. */
  peakRssGrowthBytes: number;
  /** Largest peak resident-set growth of the floors, bytes. */
  floorPeakRssGrowthBytes: number;
  /** Complete's peak growth / the floor's (at least 1 MiB). */
  rssGrowthRatio: number;
  /** Complete's peak growth / the document's size. */
  rssGrowthPerByte: number;
  /** Growth of the warm-up completion in the same process, which also started the seal worker, bytes. */
  workerStartRssGrowthBytes: number;
  /**
   * Largest growth of the warm-up completions of this document in that process (unmeasured; the
   * floor gets as many), bytes: code compiled and the seal worker's heap grown to the document.
   */
  documentWarmupRssGrowthBytes: number;
  maxRssBytes: number;
  /** Median time of each step of the seal replayed on its own (attribution only), ms. */
  sealPhasesMs: Record<string, number>;
}

export async function benchCompletion(context: BenchContext): Promise<SuiteResult<CompletionFigures[]>> {
  const { plan } = context;
  progress(`completion: generating a ${plan.completion.generatedPages}-page document`);
  const generatedPath = path.join(context.tmpDir, `generated_${plan.completion.generatedPages}_pages.pdf`);
  await writeFile(generatedPath, await generateLongPdf(plan.completion.generatedPages));
  const documents = [
    ...CORPUS_DOCUMENTS.map((name) => ({ name, path: path.join(CORPUS_DIR, `${name}.pdf`) })),
    { name: `generated_${plan.completion.generatedPages}_pages`, path: generatedPath },
  ];

  const figures: CompletionFigures[] = [];
  const targets: TargetCheck[] = [];
  for (const document of documents) {
    progress(`completion: ${document.name} (${plan.completion.rounds} rounds, fresh process)`);
    const result = await runChild<CompletionProcessResult>('completion', {
      args: [JSON.stringify({ ...document, rounds: plan.completion.rounds, warmupPath: path.join(CORPUS_DIR, 'normal.pdf') })],
      env: context.env,
      // BENCH_COMPLETION_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles the completion processes.
      execArgv: ['--expose-gc', ...(process.env.BENCH_COMPLETION_NODE_ARGS?.split(' ').filter((arg) => arg !== '') ?? [])],
      timeoutMs: 600_000,
    });
    const peak = Math.max(...result.rssGrowth);
    const floorPeak = Math.max(...result.floorRssGrowth);
    const entry: CompletionFigures = {
      document: document.name,
      bytes: result.bytes,
      pages: result.pages,
      completeMs: summarize(result.completeMs),
      floorMs: summarize(result.floorMs),
      timeRatio: pairedRatio(result.completeMs, result.floorMs),
      storageFloorMs: summarize(result.storageFloorMs),
      timeWithStorageRatio: pairedRatio(result.completeMs, result.floorMs.map((floor, round) => floor + result.storageFloorMs[round]!)),
      peakRssGrowthBytes: peak,
      floorPeakRssGrowthBytes: floorPeak,
      // Under 1 MiB the floor's growth is below what RSS sampling resolves: it counts as 1 MiB.
      rssGrowthRatio: round(peak / Math.max(floorPeak, 1048576), 2),
      rssGrowthPerByte: round(peak / result.bytes, 1),
      workerStartRssGrowthBytes: result.warmupRssGrowth,
      documentWarmupRssGrowthBytes: result.documentWarmupRssGrowth,
      maxRssBytes: result.maxRss,
      sealPhasesMs: Object.fromEntries(Object.entries(result.sealPhasesMs).map(([phase, ms]) => [phase, round(ms, 1)])),
    };
    figures.push(entry);
    progress(
      `completion: ${document.name}: ${entry.completeMs.median} ms vs floor ${entry.floorMs.median} ms (x${entry.timeRatio.median}) + storage floor ${entry.storageFloorMs.median} ms (x${entry.timeWithStorageRatio.median}), ` +
        `RSS +${round(peak / 1048576, 1)} MiB vs floor +${round(floorPeak / 1048576, 1)} MiB (x${entry.rssGrowthRatio})`,
    );
    if (CORPUS_DOCUMENTS.includes(document.name)) {
      targets.push(
        check(
          `completion.timeWithStorage.${document.name}`,
          `complete ${document.name}: at most ${COMPLETION_LIMITS.timeWithStorage} times (the PDF floor + the storage floor: the completion's storage reads and writes done bare with the SDK)`,
          entry.timeWithStorageRatio.median,
          '<=',
          COMPLETION_LIMITS.timeWithStorage,
        ),
      );
    }
    targets.push(
      check(
        `completion.memory.${document.name}`,
        `complete ${document.name}: peak RSS growth at most ${COMPLETION_LIMITS.memory} times the floor's`,
        entry.rssGrowthRatio,
        '<=',
        COMPLETION_LIMITS.memory,
      ),
    );
  }
  return { figures, targets };
}
