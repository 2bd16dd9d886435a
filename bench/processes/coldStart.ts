/**
 * One cold start: a fresh Node process imports either every function module (as the Functions host
 * does with `main: dist/src/functions/*.js`) or only the three Azure SDKs every function needs
 * (`@azure/functions`, `@azure/data-tables`, `@azure/storage-blob`), and reports how long that took.
 *
 * Argv: `functions` or `baseline`. This file imports nothing statically, so that the clock starts
 * before anything measured is loaded.
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

try {
  // Outside the Functions host, app.http only warns that it registers nothing: keep that off stderr.
  const warn = console.warn;
  console.warn = () => undefined;
  if (mode === 'functions') await importFunctions();
  else if (mode === 'baseline') await importBaseline();
  else throw new Error(`unknown mode ${mode}`);
  console.warn = warn;
  const importMs = performance.now() - importStarted;
  // performance.now() counts from the process's time origin, i.e. includes Node's own start-up.
  const sinceProcessStartMs = performance.now();
  process.send?.({ type: 'result', result: { mode, importMs, sinceProcessStartMs } }, () => process.exit(0));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.send?.({ type: 'error', error: String(error) }, () => process.exit(1));
}
