/**
 * The vendored corpus copy (tests/corpus/pdf) holds exactly the files `tests/corpus/SHA256SUMS`
 * records, byte for byte; so does the team's shared corpus where a clone has one beside it. The
 * manifest is the reference a clone cannot change by accident: a file edited, added or lost in the
 * copy fails here.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { SHARED_CORPUS_DIR, VENDORED_CORPUS_DIR } from '../support/corpus.js';

const MANIFEST = path.join(VENDORED_CORPUS_DIR, '..', 'SHA256SUMS');

async function digests(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  const entries = await Promise.all(files.map(async (file) => [file, createHash('sha256').update(await readFile(path.join(dir, file))).digest('hex')] as const));
  return Object.fromEntries(entries);
}

/** The manifest's lines, `<hex SHA-256>  <file>` as `sha256sum` writes them. */
async function recorded(): Promise<Record<string, string>> {
  const lines = (await readFile(MANIFEST, 'utf8')).split('\n').filter((line) => line !== '');
  return Object.fromEntries(
    lines.map((line) => {
      const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sha256sum line in ${MANIFEST}: ${JSON.stringify(line)}`);
      return [match[2]!, match[1]!];
    }),
  );
}

describe('vendored corpus', () => {
  test('holds the files tests/corpus/SHA256SUMS records, byte for byte, and nothing else; so does the shared corpus where there is one', async () => {
    const expected = await recorded();
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(27);
    expect(await digests(VENDORED_CORPUS_DIR)).toEqual(expected);
    // A clone without ../shared (GitHub Actions, contributors) has only the vendored copy.
    if (existsSync(SHARED_CORPUS_DIR)) expect(await digests(SHARED_CORPUS_DIR)).toEqual(expected);
  });
});
