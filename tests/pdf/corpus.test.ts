/**
 * Sweeps every file of the shared corpus through sealDocument: each one is either sealed, and then
 * passes every independent check of docs/api.md#what-completion-does (original pages rendering as before in poppler,
 * MuPDF and Ghostscript included), or refused with a 4xx AppError; nothing else.
 * Writes the outcome table to docs/corpus.md.
 */
import { readdirSync } from 'node:fs';
import { afterAll, describe, expect, test } from '@jest/globals';
import { isAppError } from '../../src/lib/errors.js';
import { sealDocument } from '../../src/lib/pdf/index.js';
import type { SealResult } from '../../src/lib/pdf/index.js';
import {
  certificateFor,
  collapse,
  corpusDir,
  corpusFile,
  expectSameRendering,
  expectValidSeal,
  pdfinfo,
  pdfsig,
  plainFieldValues,
  startsWith,
  writeCorpusDocBlock,
  sealingForFile,
} from './pdfTools.js';
import type { Scratch, Sealer } from './pdfTools.js';
import { patience } from '../support/patience.js';

interface Outcome {
  file: string;
  sealed: boolean;
  summary: string;
  rendering: string;
  reason: string;
}

const files = readdirSync(corpusDir).filter((name) => name.toLowerCase().endsWith('.pdf')).sort();
const outcomes = new Map<string, Outcome>();
let sealer: Sealer;
let scratch: Scratch;

sealingForFile((started) => ({ sealer, scratch } = started));

afterAll(async () => {
  if (outcomes.size !== files.length) return; // a partial run (-t filter) does not rewrite the table
  writeCorpusTable([...outcomes.values()].sort((a, b) => a.file.localeCompare(b.file)));
});

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s+/g, ' ').trim();

function writeCorpusTable(rows: Outcome[]): void {
  const sealedCount = rows.filter((row) => row.sealed).length;
  writeCorpusDocBlock('corpus', [
    '# Corpus sweep',
    '',
    'Written by `tests/pdf/corpus.test.ts` (`npm test`), which runs every file of the corpus (`tests/corpus/pdf`) through',
    '`sealDocument` and checks each result with independent tools: `pdfsig` (every signature valid, the seal',
    'covering the whole document, `ETSI.CAdES.detached`, SHA-256), `qpdf --check` (no errors, no warning the',
    'original did not have), `pdftotext`/`pdfinfo` (no complaint the original did not have, pages = original +',
    'certificate, the certificate text extractable, every single-line field value of the original extractable),',
    '`qpdf --json` (no form field left but signatures), and rendering: every original page drawn at 72 dpi by',
    'poppler (`pdftoppm`), MuPDF (`mutool draw`) and Ghostscript (`gs`, as on screen) must equal the same page',
    'of the original drawn by the same engine, pixel for pixel, or differ only by edges placed up to two pixels',
    'apart (anti-aliasing within 16 levels), and no engine may complain on stderr about the sealed file in a way',
    'it did not about the original. Where they differ, it is because a flattened field is drawn as page content',
    'instead of as an annotation: the same transformation reaches the rasterizer through another chain of',
    'floating-point operations, which rounds an edge or a glyph position to the neighbouring pixel.',
    'A file that is not sealed must be refused with a 4xx problem; any other outcome fails the test.',
    '',
    `${sealedCount} of ${rows.length} files are sealed, ${rows.length - sealedCount} refused.`,
    '',
    '"Incremental update" means the original bytes are kept unchanged at the start of the sealed file (earlier',
    'signatures stay valid); "rewritten" means the engine had to write the document anew: it was encrypted',
    '(the protection is removed) or had to be repaired (damaged cross-reference data), which is',
    'allowed because the sealed file is valid and complete.',
    '',
    '| file | outcome | details | rendering | why |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row.file} | ${row.sealed ? 'sealed' : 'refused'} | ${cell(row.summary)} | ${cell(row.rendering)} | ${cell(row.reason)} |`),
  ]);
}

/** Why a refusal happened, from the error and the engine's own words (kept as the cause). */
function explain(type: string, cause: unknown): string {
  const engine = cause instanceof Error ? ` Engine: "${cause.message}".` : '';
  switch (type) {
    case 'urn:problem:document-encrypted':
      return 'Encrypted with a user password: the empty password does not open it, and the service never asks for passwords.';
    case 'urn:problem:document-damaged':
      return `The structure cannot be read or repaired into a complete document.${engine}`;
    default:
      return `${type}.${engine}`;
  }
}

describe('corpus sweep: every corpus PDF is sealed and verifies, or is refused with a 4xx problem', () => {
  // Seals run one at a time in the seal worker, and rendering 3 engines x 2 files takes its time: a generous timeout.
  test.concurrent.each(files)('%s', async (name) => {
    const document = await corpusFile(name);
    const certificate = certificateFor(document);
    let result: SealResult;
    try {
      result = await sealDocument({ document, certificate, ...sealer });
    } catch (error) {
      if (!isAppError(error)) throw error;
      expect(error.status).toBeGreaterThanOrEqual(400);
      expect(error.status).toBeLessThan(500);
      outcomes.set(name, { file: name, sealed: false, summary: `${error.status} ${error.type}: ${error.detail}`, rendering: '', reason: explain(error.type, error.cause) });
      return;
    }
    const original = await scratch.write(`original-${name}`, document);
    const sealed = await scratch.write(`sealed-${name}`, result.sealed);
    const [earlier, originalInfo] = await Promise.all([pdfsig(original), pdfinfo(original)]);
    const sealedText = await expectValidSeal({ ...result, original, sealed, certificate, earlierSignatures: earlier.length });
    if (Number.isFinite(originalInfo.pages)) expect(result.originalPageCount).toBe(originalInfo.pages);
    const incremental = startsWith(result.sealed, document);
    if (earlier.length > 0) expect(incremental).toBe(true);
    // Flattening keeps every value (docs/api.md#what-completion-does step 1): each value a viewer shows as it is stays text.
    // White space removed: a comb field spaces its characters out ("RD" is extracted as "R D").
    const bare = (text: string): string => collapse(text).replace(/\s/g, '');
    // The original pages' text: pdftotext ends each page with a form feed.
    const text = bare(sealedText.split('\f').slice(0, result.originalPageCount).join('\f'));
    for (const value of await plainFieldValues(original)) expect(text).toContain(bare(value));
    const rendering = await expectSameRendering(original, sealed, result.originalPageCount);
    outcomes.set(name, {
      file: name,
      sealed: true,
      rendering,
      summary: `${result.originalPageCount} + ${result.certificatePageCount} certificate page(s); ${incremental ? 'incremental update' : 'rewritten'}` +
        (earlier.length > 0 ? `; ${earlier.length} earlier signature(s) still valid` : ''),
      reason: incremental
        ? ''
        : originalInfo.encrypted
          ? 'Opens with the empty password (owner restrictions only): sealed without its protection.'
          : 'Repaired by the engine (damaged cross-reference data); the sealed file reads back complete.',
    });
  }, patience(600_000));
});
