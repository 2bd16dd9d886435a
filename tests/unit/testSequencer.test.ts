/** The suite's test order (jest.config.js `testSequencer`): the longest files first when jest remembers no durations. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import type { Test } from '@jest/test-result';
import LongestFirstSequencer, { LONGEST_FILES } from '../support/testSequencer.js';

const testsDir = path.resolve('dist/tests');

/** Tests as jest hands them to a sequencer, with no cache of durations (as in a fresh clone). */
function uncached(files: string[]): Test[] {
  const context = { config: { cache: false, id: 'sequencer-test', cacheDirectory: '/nonexistent' }, hasteFS: { getSize: () => 1000 } };
  return files.map((file) => ({ path: path.join(testsDir, file), context }) as unknown as Test);
}

describe('test order', () => {
  test('every file named as one of the longest exists', () => {
    for (const file of LONGEST_FILES) expect({ file, exists: existsSync(path.join(testsDir, file)) }).toEqual({ file, exists: true });
  });

  test('without remembered durations, the longest files start first, longest first, and nothing is lost', async () => {
    const others = ['unit/config.test.js', 'e2e/flow.test.js'];
    const files = [...others, ...[...LONGEST_FILES].reverse()];
    const sequencer = new LongestFirstSequencer({ contexts: [], globalConfig: {} } as never);
    const sorted = (await sequencer.sort(uncached(files))).map((test) => path.relative(testsDir, test.path));
    expect(sorted.slice(0, LONGEST_FILES.length)).toEqual(LONGEST_FILES);
    expect([...sorted].sort()).toEqual([...files].sort());
  });
});
