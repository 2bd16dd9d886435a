/**
 * Cold start: a fresh Node process importing every function module, against one importing only
 * `@azure/functions`, `@azure/data-tables` and `@azure/storage-blob`. Rounds alternate the two.
 * Also lists the packages the function modules load at import, to check that the heavy ones (PDF,
 * signing, bcrypt) wait for first use.
 */
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

/** Packages only some functions need, and only when they run. */
export const HEAVY_PACKAGES = [
  '@libpdf/core',
  'node-forge',
  'bcryptjs',
  '@node-rs/bcrypt',
  '@azure/identity',
  'bidi-js',
  'harfbuzzjs',
  '@asteasolutions/zod-to-openapi',
];

interface ColdStartRun {
  mode: string;
  importMs: number;
  sinceProcessStartMs: number;
}

export interface ColdStartFigures {
  functions: { importMs: Summary; sinceProcessStartMs: Summary };
  baseline: { importMs: Summary; sinceProcessStartMs: Summary };
  /** Time from the process's start until every module is imported (Node's own start-up included on both sides), functions / SDKs: the target's figure. */
  sinceProcessStartRatio: Summary;
  /** The imports alone, without Node's start-up, functions / SDKs. */
  importRatio: Summary;
  packagesLoaded: string[];
  heavyPackagesLoaded: string[];
}

export async function benchColdStart(context: BenchContext): Promise<SuiteResult<ColdStartFigures>> {
  const functions: ColdStartRun[] = [];
  const baseline: ColdStartRun[] = [];
  const once = (mode: string) => runChild<ColdStartRun>('coldStart', { args: [mode], env: context.env, timeoutMs: 60_000 });
  // One of each first, unmeasured: brings the files into the page cache.
  await once('functions');
  await once('baseline');
  for (let round = 0; round < context.plan.coldStart.rounds; round++) {
    if (round % 2 === 0) {
      functions.push(await once('functions'));
      baseline.push(await once('baseline'));
    } else {
      baseline.push(await once('baseline'));
      functions.push(await once('functions'));
    }
    if ((round + 1) % 5 === 0 || round + 1 === context.plan.coldStart.rounds) {
      progress(`cold start, round ${round + 1}/${context.plan.coldStart.rounds}: functions ${Math.round(functions.at(-1)!.importMs)} ms, SDKs only ${Math.round(baseline.at(-1)!.importMs)} ms`);
    }
  }
  const packagesLoaded = await runChild<string[]>('loadedModules', { env: context.env, timeoutMs: 60_000 });
  const heavyPackagesLoaded = packagesLoaded.filter((name) => HEAVY_PACKAGES.includes(name));
  const figures: ColdStartFigures = {
    functions: { importMs: summarize(functions.map((run) => run.importMs)), sinceProcessStartMs: summarize(functions.map((run) => run.sinceProcessStartMs)) },
    baseline: { importMs: summarize(baseline.map((run) => run.importMs)), sinceProcessStartMs: summarize(baseline.map((run) => run.sinceProcessStartMs)) },
    importRatio: pairedRatio(functions.map((run) => run.importMs), baseline.map((run) => run.importMs)),
    sinceProcessStartRatio: pairedRatio(functions.map((run) => run.sinceProcessStartMs), baseline.map((run) => run.sinceProcessStartMs)),
    packagesLoaded,
    heavyPackagesLoaded,
  };
  return {
    figures,
    targets: [
      check(
        'coldStart',
        'A fresh process importing every function module: at most 1.5 times one importing the three Azure SDKs (from process start)',
        figures.sinceProcessStartRatio.median,
        '<=',
        1.5,
      ),
      check('coldStart.heavyModules', 'Heavy packages (PDF, signing, bcrypt) loaded when the function modules are imported (count)', heavyPackagesLoaded.length, '<=', 0),
    ],
  };
}
