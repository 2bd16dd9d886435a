/**
 * Cold start: a fresh Node process importing every function module, against one importing only
 * `@azure/functions`, `@azure/data-tables` and `@azure/storage-blob`. Rounds alternate the two.
 * Also lists the packages the function modules load at import, to check that the heavy ones (zod,
 * jose, PDF, signing, bcrypt) wait for first use. And telemetry off (docs/api.md#telemetry): the
 * same import of every function module as built, against the same with the telemetry's front
 * replaced by a stand-in that only runs what it wraps (the service as it would be without
 * telemetry), both under the same module hooks, rounds alternating.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { PROCESSES_DIR, runChild } from '../lib/child.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';
import type { LoadedModules } from '../processes/loadedModules.js';

/**
 * Packages that must wait for first use. Those only some functions need, and only when they run: PDF
 * and signing, bcrypt, the e-mail transports (nodemailer, Communication Services), webhook
 * signing (standardwebhooks), the cron parser (croner), text shaping (harfbuzzjs), the OpenAPI
 * generator, the Queue SDK. And those every function needs but only once it runs: zod (the
 * settings and every request schema) and jose (the bearer guard), which load with the handlers.
 */
export const HEAVY_PACKAGES = [
  'zod',
  'jose',
  '@azure/storage-queue',
  '@libpdf/core',
  'nodemailer',
  '@azure/communication-email',
  'standardwebhooks',
  'croner',
  'node-forge',
  'bcryptjs',
  '@node-rs/bcrypt',
  '@azure/identity',
  'bidi-js',
  'harfbuzzjs',
  '@asteasolutions/zod-to-openapi',
  // Telemetry (docs/api.md#telemetry): the SDK loads with the first invocation, and only when a
  // setting asks for it; the function modules load none of it, not even the API.
  '@opentelemetry/api',
  '@opentelemetry/api-logs',
  '@opentelemetry/sdk-node',
  '@azure/monitor-opentelemetry',
];

interface ColdStartRun {
  mode: string;
  importMs: number;
  sinceProcessStartMs: number;
  /** In the hooked modes: whether the function modules got the stand-in of the telemetry's front. */
  standIn?: boolean;
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
  /** For each heavy package that loads: the import chain that pulled it in, from a function module down. */
  heavyImportChains: Record<string, string[]>;
  /** The function modules imported (every `dist/src/functions/*.js`: HTTP, queue and timer). */
  functionModules: string[];
  /**
   * Telemetry off (no `OTEL_*` setting reaches the children): every function module imported as built
   * (`withTelemetry`) and with the telemetry's front replaced by the stand-in (`withoutTelemetry`),
   * from process start, under the same module hooks; `ratio` is with / without, round by round.
   */
  telemetryOff: { withTelemetry: Summary; withoutTelemetry: Summary; ratio: Summary };
}

export async function benchColdStart(context: BenchContext): Promise<SuiteResult<ColdStartFigures>> {
  const functions: ColdStartRun[] = [];
  const baseline: ColdStartRun[] = [];
  const withTelemetry: ColdStartRun[] = [];
  const withoutTelemetry: ColdStartRun[] = [];
  const once = (mode: string) => runChild<ColdStartRun>('coldStart', { args: [mode], env: context.env, timeoutMs: 60_000 });
  /** One hooked run; throws when the hooks did not give the front they were asked for. */
  const hooked = async (mode: 'functions-hooked' | 'functions-no-telemetry') => {
    const run = await once(mode);
    if (run.standIn !== (mode === 'functions-no-telemetry')) throw new Error(`cold start ${mode}: the function modules got ${run.standIn === true ? 'the stand-in' : 'the real'} telemetry front`);
    return run;
  };
  // One of each first, unmeasured: brings the files into the page cache.
  await once('functions');
  await once('baseline');
  await hooked('functions-hooked');
  await hooked('functions-no-telemetry');
  for (let round = 0; round < context.plan.coldStart.rounds; round++) {
    if (round % 2 === 0) {
      functions.push(await once('functions'));
      baseline.push(await once('baseline'));
      withTelemetry.push(await hooked('functions-hooked'));
      withoutTelemetry.push(await hooked('functions-no-telemetry'));
    } else {
      withoutTelemetry.push(await hooked('functions-no-telemetry'));
      withTelemetry.push(await hooked('functions-hooked'));
      baseline.push(await once('baseline'));
      functions.push(await once('functions'));
    }
    if ((round + 1) % 5 === 0 || round + 1 === context.plan.coldStart.rounds) {
      progress(
        `cold start, round ${round + 1}/${context.plan.coldStart.rounds}: functions ${Math.round(functions.at(-1)!.importMs)} ms, SDKs only ${Math.round(baseline.at(-1)!.importMs)} ms; ` +
          `from process start, with telemetry's code ${Math.round(withTelemetry.at(-1)!.sinceProcessStartMs)} ms, without ${Math.round(withoutTelemetry.at(-1)!.sinceProcessStartMs)} ms`,
      );
    }
  }
  const loaded = await runChild<LoadedModules>('loadedModules', { args: [JSON.stringify(HEAVY_PACKAGES)], env: context.env, timeoutMs: 60_000 });
  const packagesLoaded = loaded.packages;
  const heavyPackagesLoaded = packagesLoaded.filter((name) => HEAVY_PACKAGES.includes(name));
  for (const name of heavyPackagesLoaded) progress(`cold start: ${name} loads at import: ${loaded.chains[name]?.join(' → ') ?? '(chain unknown)'}`);
  // The same folder the cold-start process imports (processes/coldStart.ts).
  const functionModules = (await readdir(path.resolve(PROCESSES_DIR, '../../src/functions'))).filter((file) => file.endsWith('.js')).sort();
  const figures: ColdStartFigures = {
    functions: { importMs: summarize(functions.map((run) => run.importMs)), sinceProcessStartMs: summarize(functions.map((run) => run.sinceProcessStartMs)) },
    baseline: { importMs: summarize(baseline.map((run) => run.importMs)), sinceProcessStartMs: summarize(baseline.map((run) => run.sinceProcessStartMs)) },
    importRatio: pairedRatio(functions.map((run) => run.importMs), baseline.map((run) => run.importMs)),
    sinceProcessStartRatio: pairedRatio(functions.map((run) => run.sinceProcessStartMs), baseline.map((run) => run.sinceProcessStartMs)),
    packagesLoaded,
    heavyPackagesLoaded,
    heavyImportChains: Object.fromEntries(heavyPackagesLoaded.map((name) => [name, loaded.chains[name] ?? []])),
    functionModules,
    telemetryOff: {
      withTelemetry: summarize(withTelemetry.map((run) => run.sinceProcessStartMs)),
      withoutTelemetry: summarize(withoutTelemetry.map((run) => run.sinceProcessStartMs)),
      ratio: pairedRatio(withTelemetry.map((run) => run.sinceProcessStartMs), withoutTelemetry.map((run) => run.sinceProcessStartMs)),
    },
  };
  const telemetryPackages = heavyPackagesLoaded.filter((name) => name.includes('opentelemetry'));
  return {
    figures,
    targets: [
      check(
        'coldStart',
        'A fresh process importing every function module: at most 1.2 times one importing the three Azure SDKs (from process start)',
        figures.sinceProcessStartRatio.median,
        '<=',
        1.2,
      ),
      check(
        'coldStart.heavyModules',
        `Heavy packages loaded when the ${functionModules.length} function modules (HTTP, queue, timer) are imported (count; watched: ${HEAVY_PACKAGES.join(', ')})`,
        heavyPackagesLoaded.length,
        '<=',
        0,
      ),
      check('coldStart.telemetryPackages', 'OpenTelemetry packages (API, SDK, Azure Monitor distro) loaded when the function modules are imported with telemetry off (count)', telemetryPackages.length, '<=', 0),
      check(
        'coldStart.telemetryOff',
        'Cold start with telemetry off: every function module as built, at most 1.1 times the same with the telemetry\'s front replaced by a stand-in that only runs what it wraps (from process start, same module hooks on both, rounds alternating)',
        figures.telemetryOff.ratio.median,
        '<=',
        1.1,
      ),
    ],
  };
}
