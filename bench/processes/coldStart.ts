/**
 * One cold start: a fresh Node process imports either every function module (as the Functions host
 * does with `main: dist/src/functions/*.js`) or only the three Azure SDKs every function needs
 * (`@azure/functions`, `@azure/data-tables`, `@azure/storage-blob`), and reports how long that took.
 *
 * For the telemetry-off row, two more modes import every function module after registering the same
 * module hooks (`telemetryHooks.ts`): `functions-hooked` with the service as built, and
 * `functions-no-telemetry` with the telemetry's front replaced by `noTelemetry.ts` (the service as it
 * would be without telemetry). Each reports whether the front it got was the stand-in, checked after
 * the clock stops.
 *
 * Argv: `functions`, `baseline`, `functions-hooked` or `functions-no-telemetry`. This file imports
 * nothing statically, so that the clock starts before anything measured is loaded.
 */
const importStarted = performance.now();
const mode = process.argv[2];

async function importFunctions(): Promise<void> {
  const { readdir } = await import('node:fs/promises');
  const path = await import('node:path');
  const { fileURLToPath, pathToFileURL } = await import('node:url');
  const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/functions');
  const files = (await readdir(dir)).filter((file) => file.endsWith('.js')).sort();
  for (const file of files) await import(pathToFileURL(path.join(dir, file)).href);
}

async function importBaseline(): Promise<void> {
  await import('@azure/functions');
  await import('@azure/data-tables');
  await import('@azure/storage-blob');
}

/** Registers `telemetryHooks.ts`, replacing the telemetry's front with the stand-in when `replace`. */
async function registerTelemetryHooks(replace: boolean): Promise<void> {
  const { register } = await import('node:module');
  register('./telemetryHooks.js', { parentURL: import.meta.url, data: { replace } });
}

try {
  // Outside the Functions host, app.http only warns that it registers nothing: keep that off stderr.
  const warn = console.warn;
  console.warn = () => undefined;
  if (mode === 'functions') await importFunctions();
  else if (mode === 'baseline') await importBaseline();
  else if (mode === 'functions-hooked' || mode === 'functions-no-telemetry') {
    await registerTelemetryHooks(mode === 'functions-no-telemetry');
    await importFunctions();
  } else throw new Error(`unknown mode ${mode}`);
  console.warn = warn;
  const importMs = performance.now() - importStarted;
  // performance.now() counts from the process's time origin, i.e. includes Node's own start-up.
  const sinceProcessStartMs = performance.now();
  // Which telemetry front the function modules got (the stand-in exports EXPORTS_MATCH), once timed.
  const standIn = mode.startsWith('functions-') ? 'EXPORTS_MATCH' in (await import('../../src/lib/telemetry/index.js')) : undefined;
  process.send?.({ type: 'result', result: { mode, importMs, sinceProcessStartMs, standIn } }, () => process.exit(0));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.send?.({ type: 'error', error: String(error) }, () => process.exit(1));
}
