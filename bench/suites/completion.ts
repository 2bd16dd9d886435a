/**
 * Completion: wall time of `complete` for four corpus documents and a generated 1,000-page one,
 * against the floor of loading and saving the same bytes with @libpdf/core in the same process, and
 * the peak resident-set growth against the document's size. One fresh process per document
 * (`processes/completion.ts`).
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

export interface CompletionFigures {
  document: string;
  bytes: number;
  pages: number;
  completeMs: Summary;
  floorMs: Summary;
  /** complete / (load + save), round by round. */
  timeRatio: Summary;
  /** Largest peak resident-set growth of the measured completions, bytes. */
  peakRssGrowthBytes: number;
  /** That growth / the document's size. */
  rssGrowthRatio: number;
  /** Growth of the warm-up completion in the same process, which also started the seal worker, bytes. */
  workerStartRssGrowthBytes: number;
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
      execArgv: ['--expose-gc'],
      timeoutMs: 600_000,
    });
    const peak = Math.max(...result.rssGrowth);
    const entry: CompletionFigures = {
      document: document.name,
      bytes: result.bytes,
      pages: result.pages,
      completeMs: summarize(result.completeMs),
      floorMs: summarize(result.floorMs),
      timeRatio: pairedRatio(result.completeMs, result.floorMs),
      peakRssGrowthBytes: peak,
      rssGrowthRatio: round(peak / result.bytes, 1),
      workerStartRssGrowthBytes: result.warmupRssGrowth,
      maxRssBytes: result.maxRss,
      sealPhasesMs: Object.fromEntries(Object.entries(result.sealPhasesMs).map(([phase, ms]) => [phase, round(ms, 1)])),
    };
    figures.push(entry);
    progress(`completion: ${document.name}: ${entry.completeMs.median} ms vs floor ${entry.floorMs.median} ms (x${entry.timeRatio.median}), RSS +${round(peak / 1048576, 1)} MiB (x${entry.rssGrowthRatio} the size)`);
    targets.push(check(`completion.time.${document.name}`, `complete ${document.name}: at most 3 times load+save`, entry.timeRatio.median, '<=', 3));
    targets.push(check(`completion.memory.${document.name}`, `complete ${document.name}: peak RSS growth at most 10 times the document's size`, entry.rssGrowthRatio, '<=', 10));
  }
  return { figures, targets };
}
