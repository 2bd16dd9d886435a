/**
 * Jest `testSequencer`: jest's own order (files that failed last time first, then the longest by the
 * durations it remembers in its cache), except that the files known to take longest start first when
 * jest remembers no duration for them. Without its cache (a fresh clone, as in CI) jest orders files by
 * size, which puts a short file with a long run (the corpus sweep renders 206 pages in three engines)
 * near the end, where it ran alone while the other worker had nothing left to do.
 */
import { createRequire } from 'node:module';
import type { Test } from '@jest/test-result';
import type * as sequencerModule from '@jest/test-sequencer';

// Jest's own sequencer, as its documentation extends it (a CommonJS module whose class is `default`).
const TestSequencer = (createRequire(import.meta.url)('@jest/test-sequencer') as typeof sequencerModule.default).default;

/**
 * The test files (below `dist/tests/`) that take a minute or more on a quiet two-core machine, longest
 * first. Only an order: a file missing here merely starts where jest puts it.
 */
export const LONGEST_FILES = [
  'pdf/corpus.test.js',
  'browser/signing.test.js',
  'integration/crashRecovery.test.js',
  'browser/signingLocales.test.js',
  'e2e/sealLevelOcspOutages.test.js',
  'e2e/sealLevels.test.js',
];

export default class LongestFirstSequencer extends TestSequencer {
  override async sort(tests: Test[]): Promise<Test[]> {
    // Jest's sort sets each test's remembered `duration` (undefined when its cache has none).
    const sorted = await super.sort(tests);
    const rank = (test: Test): number => {
      if (test.duration !== undefined) return -1;
      const relative = test.path.split(/[\\/]dist[\\/]tests[\\/]/).at(-1)?.replaceAll('\\', '/');
      return LONGEST_FILES.indexOf(relative ?? '');
    };
    const first = sorted.filter((test) => rank(test) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...first, ...sorted.filter((test) => rank(test) < 0)];
  }
}
