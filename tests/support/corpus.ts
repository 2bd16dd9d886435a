/**
 * Where the corpus of real PDFs is (../shared/corpus/README.md): `CORPUS_DIR` when set, else the team's
 * shared copy beside the repository (`../shared/corpus/pdf`, the canonical one), else the copy vendored
 * in `tests/corpus/pdf` for clones that have no shared folder (GitHub Actions, contributors).
 * tests/unit/corpus.test.ts checks both against the SHA-256 hashes recorded in tests/corpus/SHA256SUMS.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export const SHARED_CORPUS_DIR = path.resolve(process.cwd(), '../shared/corpus/pdf');
export const VENDORED_CORPUS_DIR = path.resolve(process.cwd(), 'tests/corpus/pdf');

export const CORPUS_DIR = process.env.CORPUS_DIR ?? (existsSync(SHARED_CORPUS_DIR) ? SHARED_CORPUS_DIR : VENDORED_CORPUS_DIR);
