/**
 * `npm run bench` runs outside jest (bench/README.md): every module it loads must load in plain Node.
 * A test helper that imports `@jest/globals` and is reached from a bench suite breaks the whole bench
 * at start-up (jest's globals exist only inside a jest run), and no test of the suite would notice.
 * This imports every compiled bench suite and library module in a fresh `node`, as `npm run bench`
 * does, and fails with Node's own error when one does not load.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, test } from '@jest/globals';

const benchDir = path.resolve(process.cwd(), 'dist', 'bench');

/** The compiled modules a bench run imports: its suites and its library (its processes are scripts run for their effect). */
function benchModules(): string[] {
  return ['suites', 'lib'].flatMap((folder) =>
    readdirSync(path.join(benchDir, folder))
      .filter((file) => file.endsWith('.js'))
      .map((file) => path.join(benchDir, folder, file)),
  );
}

describe('the benchmarks load outside jest', () => {
  test('every bench suite and library module imports in a plain node process', () => {
    const modules = benchModules();
    expect(modules.length).toBeGreaterThan(10);
    const importAll = `for (const file of ${JSON.stringify(modules.map((file) => pathToFileURL(file).href))}) await import(file); console.log('loaded');`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', importAll], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    expect(output.trim().split('\n').at(-1)).toBe('loaded');
  });
});
