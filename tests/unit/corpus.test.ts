/** The vendored corpus copy (tests/corpus) stays identical to the team's shared corpus when both exist. */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { SHARED_CORPUS_DIR, VENDORED_CORPUS_DIR } from '../support/corpus.js';

async function digests(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir)).sort();
  const entries = await Promise.all(files.map(async (file) => [file, createHash('sha256').update(await readFile(path.join(dir, file))).digest('hex')] as const));
  return Object.fromEntries(entries);
}

describe('vendored corpus', () => {
  test('holds the same files, byte for byte, as ../shared/corpus/pdf', async () => {
    expect(existsSync(VENDORED_CORPUS_DIR)).toBe(true);
    // On a clone without the shared folder there is nothing to compare against: the copy is the corpus.
    const reference = existsSync(SHARED_CORPUS_DIR) ? SHARED_CORPUS_DIR : VENDORED_CORPUS_DIR;
    expect(await digests(VENDORED_CORPUS_DIR)).toEqual(await digests(reference));
    expect(Object.keys(await digests(VENDORED_CORPUS_DIR)).length).toBeGreaterThanOrEqual(27);
  });
});
