/**
 * Cleaning the corpus (docs/api.md#what-the-service-removes-from-documents-and-why): every real document that carries scripts, additional
 * actions, embedded files or an XFA form loses them, and nothing a reader sees: each cleaned page
 * renders in poppler, MuPDF and Ghostscript as the original page does, and qpdf finds the cleaned
 * file sound. A document with nothing to remove is frozen byte for byte.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { cleanDocument, inspectDocument } from '../../src/lib/pdf/index.js';
import { corpusFile, corpusFiles, expectSameRendering, pdfinfo, qpdfCheck, qpdfContents, scratchDir } from './pdfTools.js';

/** Names that only active content uses (`/EF` is left out: usage-rights permissions use it too). */
const ACTIVE_NAMES = ['/JavaScript', '/JS', '/AA', '/Launch', '/SubmitForm', '/ImportData', '/ResetForm', '/EmbeddedFiles', '/EmbeddedFile', '/XFA', '/FileAttachment', '/RichMedia', '/3D'];

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let files: string[];

beforeAll(async () => {
  scratch = await scratchDir();
  files = await corpusFiles();
});

afterAll(async () => {
  await scratch.remove();
});

describe('cleaning the corpus', () => {
  test('the corpus has documents with active content to clean', async () => {
    const cleaned: string[] = [];
    for (const file of files) {
      const result = await cleanDocument({ document: await corpusFile(file) }).catch(() => null);
      if (result !== null && result.removed.length > 0) cleaned.push(file);
    }
    expect(cleaned).toEqual(expect.arrayContaining(['form_to_flatten.pdf', 'giraffe.pdf', 'sample_form.pdf', 'with_update_sections.pdf', 'with_xfa_fields.pdf']));
  });

  test.each(['dod_character.pdf', 'fill_form.pdf', 'form_to_flatten.pdf', 'giraffe.pdf', 'sample_form.pdf', 'with_update_sections.pdf', 'with_xfa_fields.pdf', 'encrypted_empty_user_password.pdf'])(
    '%s: active content gone, every page renders as before, qpdf finds it sound',
    async (file) => {
      const document = await corpusFile(file);
      const { cleaned, pageCount, removed } = await cleanDocument({ document });
      expect(removed).toContain('javascript');
      expect(cleaned).not.toBeNull();
      const original = await scratch.write(`original-${file}`, document);
      const copy = await scratch.write(`cleaned-${file}`, cleaned!);
      expect((await pdfinfo(copy)).pages).toBe(pageCount);
      const { names } = await qpdfContents(copy);
      expect(ACTIVE_NAMES.filter((name) => names.has(name))).toEqual([]);
      expect((await qpdfCheck(copy)).code).toBe(0);
      await expectSameRendering(original, copy, pageCount);
      // Cleaning is repeatable: the same upload always freezes to the same bytes.
      expect(Buffer.from((await cleanDocument({ document })).cleaned!).equals(Buffer.from(cleaned!))).toBe(true);
    },
    120_000,
  );

  test('a document without active content is left as it is', async () => {
    const document = await corpusFile('us_constitution.pdf');
    expect(await cleanDocument({ document })).toEqual({ cleaned: null, pageCount: (await inspectDocument({ document })).pageCount, removed: [] });
  });
});
