import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { isAppError } from '../../src/lib/errors.js';
import { sealDocument } from '../../src/lib/pdf/index.js';
import { pdfWithContentStream, pdfWithHiddenObjectStreamBomb, withDocMdpPermission, zlibBomb } from './craftedPdfs.js';
import { certificateFor, corpusDir, corpusFile, developmentSealer, run, scratchDir } from './pdfTools.js';
import type { Sealer } from './pdfTools.js';
import { patience } from '../support/patience.js';

const GiB = 1024 ** 3;
let sealer: Sealer;

beforeAll(async () => {
  sealer = await developmentSealer();
});

/** The AppError a seal of `document` fails with, and how long it took (ms). */
async function refusal(document: Uint8Array): Promise<{ status: number; type: string; detail: string; elapsed: number }> {
  const started = Date.now();
  try {
    await sealDocument({ document, certificate: certificateFor(document), ...sealer });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { status: error.status, type: error.type, detail: error.detail, elapsed: Date.now() - started };
  }
  throw new Error('The document was sealed, not refused.');
}

describe('documents the service refuses (docs/api.md#create-an-envelope-and-upload-its-document)', () => {
  test.each(['encrypted_new.pdf', 'encrypted_old.pdf'])('refuses %s, which needs a password, with 422 document-encrypted', async (name) => {
    const answer = await refusal(await corpusFile(name));
    expect(answer).toMatchObject({ status: 422, type: 'urn:problem:document-encrypted' });
    expect(answer.detail).toMatch(/password/);
  });

  test('refuses a document certified against changes (DocMDP) with 422 document-certified: adding pages would break it', async () => {
    const file = path.join(corpusDir, 'normal.pdf');
    const trailer = (await run('qpdf', ['--show-object=trailer', file])).stdout;
    const number = Number(/\/Root (\d+) 0 R/.exec(trailer)?.[1]);
    const dictionary = (await run('qpdf', [`--show-object=${number}`, file])).stdout.trim();
    const certified = withDocMdpPermission(Buffer.from(await corpusFile('normal.pdf')), { number, dictionary }, trailer);
    // The crafted update is well-formed: qpdf reads it and finds the permission in the catalog.
    const scratch = await scratchDir();
    try {
      const crafted = await scratch.write('certified.pdf', certified);
      expect((await run('qpdf', ['--check', crafted])).code).not.toBe(2);
      expect((await run('qpdf', [`--show-object=${number}`, crafted])).stdout).toMatch(/\/Perms << \/DocMDP \d+ 0 R >>/);
    } finally {
      await scratch.remove();
    }
    expect(await refusal(certified)).toMatchObject({ status: 422, type: 'urn:problem:document-certified' });
  });

  test('refuses a truncated PDF (upload cut off) with 422 document-damaged', async () => {
    const normal = await corpusFile('normal.pdf');
    expect(await refusal(normal.subarray(0, Math.floor(normal.length / 2)))).toMatchObject({ status: 422, type: 'urn:problem:document-damaged' });
  });

  test('refuses zero bytes, random bytes and a bare header with 422 document-damaged', async () => {
    for (const document of [new Uint8Array(0), randomBytes(64 * 1024), Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(4096)])]) {
      expect(await refusal(document)).toMatchObject({ status: 422, type: 'urn:problem:document-damaged' });
    }
  });

  test('refuses a zip bomb (a 4 MB content stream inflating to 4 GiB) with 422 document-too-complex, fast', async () => {
    const bomb = pdfWithContentStream(zlibBomb(4 * GiB), '/FlateDecode');
    expect(bomb.length).toBeLessThan(8 * 1024 * 1024);
    const answer = await refusal(bomb);
    expect(answer).toMatchObject({ status: 422, type: 'urn:problem:document-too-complex' });
    expect(answer.elapsed).toBeLessThan(patience(30_000)); // stopped, not inflated to the end: a deadline, scaled on a loaded machine
  });

  test('inflateChecked skips only the decompression pre-scan: the frozen copy passed it when it was frozen', async () => {
    // The caller's promise (complete.ts: a frozen copy whose SHA-256 matched) stands in for the
    // pre-scan; the bomb's content stream is never decoded by sealing, so the seal goes through.
    // Without the flag the same bytes are refused, so this test fails if the flag is ignored.
    const bomb = pdfWithContentStream(zlibBomb(4 * GiB), '/FlateDecode');
    expect(await refusal(bomb)).toMatchObject({ status: 422, type: 'urn:problem:document-too-complex' });
    const sealed = await sealDocument({ document: bomb, inflateChecked: true, certificate: certificateFor(bomb), ...sealer });
    expect(sealed.originalPageCount).toBe(1);
    // Every other check still runs: a truncated document is refused with the flag too.
    const normal = await corpusFile('normal.pdf');
    await expect(sealDocument({ document: normal.subarray(0, Math.floor(normal.length / 2)), inflateChecked: true, certificate: certificateFor(normal), ...sealer })).rejects.toMatchObject({
      status: 422,
      type: 'urn:problem:document-damaged',
    });
  });

  test('refuses a nested zip bomb (/FlateDecode twice) with 422 document-too-complex', async () => {
    const inner = zlibBomb(4 * GiB);
    const bomb = pdfWithContentStream(zlibBomb(0, inner), '[/FlateDecode /FlateDecode]');
    expect(await refusal(bomb)).toMatchObject({ status: 422, type: 'urn:problem:document-too-complex' });
  });

  test('stops a bomb the pre-scan cannot see (an object stream behind /ASCIIHexDecode) with the memory watchdog, and the process lives on', async () => {
    const answer = await refusal(pdfWithHiddenObjectStreamBomb(4 * GiB));
    expect(answer).toMatchObject({ status: 422, type: 'urn:problem:document-too-complex' });
    expect(answer.elapsed).toBeLessThan(patience(30_000)); // stopped, not inflated to the end: a deadline, scaled on a loaded machine
    // The worker that held the bomb is gone; the next seal gets a fresh one.
    const document = await corpusFile('normal.pdf');
    const { originalPageCount } = await sealDocument({ document, certificate: certificateFor(document), ...sealer });
    expect(originalPageCount).toBe(2);
  });
});
