import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { describe, expect, test } from '@jest/globals';
import { isAppError } from '../../src/lib/errors.js';
import { sealDocument } from '../../src/lib/pdf/index.js';
import { startTimestampAuthority, unusedLoopbackUrl } from '../support/timestampAuthority.js';
import type { TimestampAuthority } from '../support/timestampAuthority.js';
import { certificateFor, corpusFile, dumpSignature, expectValidSeal, pdfinfo, run, sealingForFile } from './pdfTools.js';
import type { Scratch, Sealer } from './pdfTools.js';
import { patience } from '../support/patience.js';

let sealer: Sealer;
let tsa: TimestampAuthority;
let scratch: Scratch;
sealingForFile((started) => ({ sealer, tsa, scratch } = started), { timestampAuthority: true });

/** Offsets of one DER element in `openssl asn1parse` output: where it starts, header and content length. */
interface Element {
  offset: number;
  header: number;
  length: number;
  text: string;
}

function parseAsn1(listing: string): Element[] {
  return listing
    .split('\n')
    .map((line) => /^\s*(\d+):d=\s*\d+\s+hl=\s*(\d+)\s+l=\s*(\d+)\s+\w+:\s*(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ offset: Number(match[1]), header: Number(match[2]), length: Number(match[3]), text: match[4] ?? '' }));
}

describe('RFC 3161 signature timestamp (PAdES B-T, docs/api.md#what-completion-does step 3)', () => {
  test('with a TSA, the seal carries a timestamp token over its signature value that openssl verifies', async () => {
    const document = await corpusFile('normal.pdf');
    const certificate = certificateFor(document);
    const before = tsa.requests;
    const result = await sealDocument({ document, certificate, ...sealer, timestampAuthorityUrl: tsa.url });
    expect(tsa.requests).toBe(before + 1);
    const original = await scratch.write('original.pdf', document);
    const sealed = await scratch.write('sealed-tsa.pdf', result.sealed);
    await expectValidSeal({ ...result, original, sealed, certificate });

    const dump = await dumpSignature(sealed, 0);
    const cms = await readFile(dump);
    const elements = parseAsn1((await run('openssl', ['asn1parse', '-inform', 'DER', '-in', dump])).stdout);
    const attribute = elements.findIndex((element) => element.text.includes(':id-smime-aa-timeStampToken'));
    expect(attribute).toBeGreaterThan(0);
    // The signer's signature value: the last OCTET STRING before the unsigned attributes.
    const signatureValue = elements.slice(0, attribute).filter((element) => element.text.startsWith('OCTET STRING')).at(-1);
    // The token: the SEQUENCE inside the attribute's SET.
    const token = elements.slice(attribute).find((element) => element.text.startsWith('SEQUENCE'));
    if (signatureValue === undefined || token === undefined) throw new Error('No signature value or timestamp token in the CMS.');
    const valueBytes = cms.subarray(signatureValue.offset + signatureValue.header, signatureValue.offset + signatureValue.header + signatureValue.length);
    const tokenFile = await scratch.write('token.der', cms.subarray(token.offset, token.offset + token.header + token.length));
    const digest = createHash('sha256').update(valueBytes).digest('hex');

    const verify = await run('openssl', ['ts', '-verify', '-digest', digest, '-in', tokenFile, '-token_in', '-CAfile', tsa.caFile, '-untrusted', tsa.tsaCertificateFile]);
    expect(`${verify.stdout}${verify.stderr}`).toMatch(/Verification: OK/);
    const text = await run('openssl', ['ts', '-reply', '-in', tokenFile, '-token_in', '-text']);
    expect(text.stdout).toMatch(/Hash Algorithm: sha256/);
    expect(text.stdout).toMatch(/TSA: DirName:\/CN=Test Timestamp Authority/);
    expect((await pdfinfo(sealed)).pages).toBe(result.originalPageCount + result.certificatePageCount);
  });

  async function failure(timestampAuthorityUrl: string) {
    const document = await corpusFile('normal.pdf');
    try {
      await sealDocument({ document, certificate: certificateFor(document), ...sealer, timestampAuthorityUrl });
    } catch (error) {
      if (isAppError(error)) return error;
      throw error;
    }
    throw new Error('Sealed without a timestamp.');
  }

  test('a TSA answering 500 gives 503 timestamp-authority-unavailable with Retry-After 30', async () => {
    const failing = await startTimestampAuthority({ failWith: 500 });
    try {
      const error = await failure(failing.url);
      expect(error).toMatchObject({ status: 503, type: 'urn:problem:timestamp-authority-unavailable', retryAfterSeconds: 30 });
      expect(error.detail).toMatch(/^The timestamp authority did not answer/);
      expect(failing.requests).toBe(1);
    } finally {
      await failing.close();
    }
  });

  test('a TSA that never answers gives 503 timestamp-authority-unavailable after about 10 s, not a hang', async () => {
    const silent = await startTimestampAuthority({ failWith: 'silence' });
    try {
      const started = Date.now();
      const error = await failure(silent.url);
      const elapsed = Date.now() - started;
      expect(error).toMatchObject({ status: 503, type: 'urn:problem:timestamp-authority-unavailable', retryAfterSeconds: 30 });
      expect(silent.requests).toBe(1);
      expect(elapsed).toBeGreaterThanOrEqual(9_000);
      expect(elapsed).toBeLessThan(20_000);
    } finally {
      await silent.close();
    }
  }, patience(40_000));

  test('a TSA that is not listening gives 503 timestamp-authority-unavailable', async () => {
    const error = await failure(await unusedLoopbackUrl());
    expect(error).toMatchObject({ status: 503, type: 'urn:problem:timestamp-authority-unavailable', retryAfterSeconds: 30 });
  });
});
