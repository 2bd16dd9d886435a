/**
 * Documents protected by an owner password only (docs/api.md#create-an-envelope-and-upload-its-document): they open with the empty password,
 * so they are sealed without their protection, whatever permissions the owner password denies,
 * changes included. Made at test time by qpdf in every standard-handler flavour; LibreOffice's
 * "restrict permissions" export is in producers.test.ts. A document that stays refused is refused
 * for its real reason, never as "damaged".
 */
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { isAppError } from '../../src/lib/errors.js';
import { sealDocument } from '../../src/lib/pdf/index.js';
import { certificateFor, collapse, recipientFor, corpusDir, expectValidSeal, pdfinfo, pdftotext, qpdfCheck, run, sealingForFile } from './pdfTools.js';
import type { Scratch, Sealer } from './pdfTools.js';

/** One signer: these tests are about the document, not the certificate's scripts (certificate.test.ts). */
const latinSigner = { id: randomUUID(), name: 'Zoë Ångström', email: 'zoe@example.no', role: 'signer' };
import { ownerRestrictions, restrictWithQpdf } from './producers.js';
import { differingPages, renderers } from './rendering.js';

let sealer: Sealer;
let scratch: Scratch;
sealingForFile((started) => ({ sealer, scratch } = started));

const variants = Object.keys(ownerRestrictions) as (keyof typeof ownerRestrictions)[];
const sources = ['normal.pdf', 'form_to_flatten.pdf'];

describe('owner-password-only documents are sealed without their protection (docs/api.md#create-an-envelope-and-upload-its-document)', () => {
  test.each(variants.flatMap((variant) => sources.map((source) => [variant, source] as const)))('%s, no changes allowed: %s', async (variant, source) => {
    const original = path.join(scratch.dir, `${variant.replace(/\W+/g, '-')}-${source}`);
    await restrictWithQpdf(path.join(corpusDir, source), original, variant);
    const encryption = (await run('qpdf', ['--show-encryption', original])).stdout;
    expect(encryption).toMatch(/^User password = $/m);
    expect(encryption).toMatch(/modify anything: not allowed|modify other: not allowed/);

    const document = new Uint8Array(await readFile(original));
    const certificate = certificateFor(document, { recipients: [recipientFor(latinSigner)] });
    const result = await sealDocument({ document, certificate, ...sealer });
    const sealed = await scratch.write(`sealed-${path.basename(original)}`, result.sealed);
    await expectValidSeal({ ...result, original, sealed, certificate });
    expect((await pdfinfo(sealed)).encrypted).toBe(false);
    expect((await qpdfCheck(sealed)).code).not.toBe(2);

    // The original's text, which poppler extracts only with the owner password (copying is denied), is the sealed pages' text.
    const pages = ['-l', String(result.originalPageCount)];
    const before = collapse(await pdftotext(original, ['-opw', 'owner-secret', ...pages]));
    expect(before.trim().length).toBeGreaterThan(0);
    expect(collapse(await pdftotext(sealed, pages))).toBe(before);
    for (const renderer of renderers) {
      const { pages } = await differingPages(original, sealed, renderer, { dpi: 72, pages: result.originalPageCount });
      expect(pages.filter((page) => page.changed)).toEqual([]);
    }
  });
});

describe('refusals name their real reason', () => {
  test('a document encrypted with a security handler the service does not support is refused as encrypted, not damaged', async () => {
    // qpdf writes the standard handler; naming another one (same length, so every offset stays right) makes a
    // document no password opens: certificate encryption (/Adobe.PubSec) is the real-world case.
    const standard = path.join(scratch.dir, 'standard.pdf');
    await restrictWithQpdf(path.join(corpusDir, 'normal.pdf'), standard, 'AES-256 (R6)');
    const bytes = Buffer.from(await readFile(standard));
    const at = bytes.indexOf('/Filter /Standard');
    expect(at).toBeGreaterThan(0);
    bytes.write('/Filter /PubSecXY', at, 'latin1');
    try {
      await sealDocument({ document: bytes, certificate: certificateFor(bytes), ...sealer });
      throw new Error('The document was sealed, not refused.');
    } catch (error) {
      if (!isAppError(error)) throw error;
      expect(error).toMatchObject({ status: 422, type: 'urn:problem:document-encrypted' });
      expect(error.detail).toMatch(/encrypted with a method the service cannot open/);
    }
  });
});
