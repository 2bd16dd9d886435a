/**
 * The seal is a PAdES baseline signature (docs/api.md#what-completion-does step 4, ETSI EN 319 142-1): its CMS carries
 * content-type, message-digest and signing-certificate-v2 and no signing-time attribute (PA-6.3:
 * the claimed time is the signature dictionary's /M), and with a TSA the RFC 3161 timestamp
 * (PAdES B-T). Checked with openssl (the CMS printed and verified over the signed byte ranges),
 * pdfsig and MuPDF (`mutool sign -v`), with and without the loopback TSA.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';
import { sealDocument } from '../../src/lib/pdf/index.js';
import type { TimestampAuthority } from '../support/timestampAuthority.js';
import { certificateFor, corpusFile, dumpSignature, expectValidSeal, pdfsig, run, sealingForFile } from './pdfTools.js';
import type { Scratch, Sealer } from './pdfTools.js';

let sealer: Sealer;
let tsa: TimestampAuthority;
let scratch: Scratch;
sealingForFile((started) => ({ sealer, tsa, scratch } = started), { timestampAuthority: true });

/** The bytes a signature covers: its /ByteRange's two ranges, concatenated (ISO 32000-1 §12.8.1). */
function signedBytes(pdf: Buffer): Buffer {
  const text = pdf.toString('latin1');
  const match = /\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(text.slice(text.lastIndexOf('/ByteRange')));
  if (match === null) throw new Error('No /ByteRange.');
  const [offset1, length1, offset2, length2] = match.slice(1).map(Number) as [number, number, number, number];
  return Buffer.concat([pdf.subarray(offset1, offset1 + length1), pdf.subarray(offset2, offset2 + length2)]);
}

describe('PAdES baseline seal: no signing-time in the CMS (docs/api.md#what-completion-does step 4)', () => {
  test.each([
    ['B-B, without a timestamp authority', false],
    ['B-T, with the loopback timestamp authority', true],
  ])('%s', async (_name, withTimestamp) => {
    const document = await corpusFile('normal.pdf');
    const certificate = certificateFor(document);
    const result = await sealDocument({ document, certificate, ...sealer, ...(withTimestamp ? { timestampAuthorityUrl: tsa.url } : {}) });
    const original = await scratch.write('original.pdf', document);
    const sealed = await scratch.write(`sealed-${withTimestamp ? 'bt' : 'bb'}.pdf`, result.sealed);
    await expectValidSeal({ ...result, original, sealed, certificate });

    const cmsFile = await dumpSignature(sealed, 0);
    const printed = (await run('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', cmsFile])).stdout;
    const signedAttributes = printed.slice(printed.indexOf('signedAttrs:'), printed.indexOf('signatureAlgorithm:', printed.indexOf('signedAttrs:')));
    expect(signedAttributes).toContain('(1.2.840.113549.1.9.3)'); // content-type
    expect(signedAttributes).toContain('(1.2.840.113549.1.9.4)'); // message-digest
    expect(signedAttributes).toContain('(1.2.840.113549.1.9.16.2.47)'); // signing-certificate-v2
    expect(signedAttributes).not.toContain('(1.2.840.113549.1.9.5)'); // signing-time
    expect(signedAttributes).not.toMatch(/signingTime/);
    // Only one signer info (the seal's); a timestamp token, which has its own signing time, is inside its unsigned attributes.
    expect(printed.match(/\bsignedAttrs:/g)).toHaveLength(1);
    const unsignedAttributes = printed.slice(printed.indexOf('unsignedAttrs:'));
    if (withTimestamp) expect(unsignedAttributes).toContain('(1.2.840.113549.1.9.16.2.14)'); // signature-time-stamp
    else expect(printed).toMatch(/unsignedAttrs:\s*<ABSENT>/);

    // openssl checks the signature over the signed attributes and the message digest over the signed byte ranges.
    const content = await scratch.write('signed-ranges.bin', signedBytes(Buffer.from(result.sealed)));
    const verify = await run('openssl', ['cms', '-verify', '-inform', 'DER', '-in', cmsFile, '-binary', '-content', content, '-noverify', '-out', '/dev/null']);
    expect(`${verify.stdout}${verify.stderr}`).toMatch(/Verification successful/);

    // The claimed signing time is the signature dictionary's /M, which pdfsig shows.
    const text = Buffer.from(await readFile(sealed)).toString('latin1');
    const start = text.lastIndexOf('/Type /Sig');
    const dictionary = text.slice(start, text.indexOf('endobj', start));
    expect(dictionary).toMatch(/\/M \(D:\d{14}/);
    expect((await run('pdfsig', ['-nocert', sealed])).stdout).toMatch(/Signing Time: \w{3} \d+ \d{4} \d\d:\d\d:\d\d/);
    expect(await pdfsig(sealed)).toEqual([expect.objectContaining({ valid: true, totalDocumentSigned: true, subFilter: 'ETSI.CAdES.detached' })]);

    // MuPDF: the digest checks and nothing changed since signing (its only complaint is the self-signed test certificate).
    const mupdf = await run('mutool', ['sign', '-v', sealed]);
    expect(mupdf.stdout).toContain('The document is unchanged since signing.');
    expect(mupdf.stdout).not.toMatch(/Digest error/);
  });
});
