/**
 * `npm ci` refuses a lock file that lacks an optional dependency of a locked package, and `npm install`
 * on a machine whose registry mirror misses some platform binaries leaves those out. This keeps the
 * lock file installable everywhere (fix: `node scripts/complete-lockfile.mjs`).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';

interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

describe('package-lock.json', () => {
  test('records every optional dependency of every locked package', async () => {
    const lock = JSON.parse(await readFile('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
    const missing: string[] = [];
    for (const [location, entry] of Object.entries(lock.packages)) {
      for (const name of Object.keys(entry.optionalDependencies ?? {})) {
        const nested = `${location === '' ? '' : `${location}/`}node_modules/${name}`;
        if (lock.packages[nested] === undefined && lock.packages[`node_modules/${name}`] === undefined) missing.push(`${name} (of ${location || 'the project'})`);
      }
    }
    expect(missing).toEqual([]);
  });
});
