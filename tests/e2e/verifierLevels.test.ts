/**
 * `npm run verify` (docs/evidence.md) on seals above B-B, made by the service with a real PKI on
 * loopback (tests/support/pki.ts): a B-T seal's signature timestamp and a B-LTA seal's validation data
 * and document timestamp, added after the seal in updates, pass (`byte range` accepts only what PAdES
 * adds; `timestamps` checks each token's signature and imprint), and an object slipped into a B-LTA
 * file's last update, outside what PAdES adds, fails `byte range`.
 */
import { execFile } from 'node:child_process';
import { describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { withSettings } from '../support/contract.js';
import { pkiSettings, sealedEnvelope, sealLevelsForFile } from '../support/sealLevels.js';
import { tempFile } from '../support/tools.js';

const bench = sealLevelsForFile();

/** The compiled verifier's report on `file`: its lines and exit code. */
function verify(file: string): Promise<{ code: number; lines: string[] }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/src/local/verify.js', file], (error, stdout) => {
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code), lines: stdout.trimEnd().split('\n') });
    });
  });
}

describe('seals with timestamps and validation data (docs/seal-levels.md)', () => {
  test('B-T: every check passes, the signature timestamp among them', async () => {
    await withSettings(pkiSettings(bench.pki, 'B-T'), async () => {
      const { file } = await sealedEnvelope(bench);
      const { code, lines } = await verify(file);
      expect(lines.at(-1)).toBe('6 passed, 0 failed');
      expect(code).toBe(0);
      expect(lines).toContainEqual(expect.stringMatching(/^PASS timestamps: the signature timestamp at \S+Z by .+: each token's signature and imprint verify/));
      expect(lines).toContainEqual(expect.stringMatching(/^PASS byte range: .* the whole file \(\d+ bytes\) but its own signature value$/));
    });
  });

  test('B-LTA: the updates after the seal add only validation data and a document timestamp; one more object in them fails', async () => {
    await withSettings(pkiSettings(bench.pki, undefined), async () => {
      expect(getServices().config.sealLevel).toBe('B-LTA');
      const { file, bytes } = await sealedEnvelope(bench);
      const { code, lines } = await verify(file);
      expect(lines.at(-1)).toBe('6 passed, 0 failed');
      expect(code).toBe(0);
      expect(lines).toContainEqual(expect.stringMatching(/^PASS byte range: .* only add validation data and 1 document timestamp\(s\), as PAdES does$/));
      expect(lines).toContainEqual(expect.stringMatching(/^PASS timestamps: the signature timestamp at .*; the document timestamp over bytes 0\.\.\d+ at /));

      // A FreeText annotation appended after everything: new, not a signature field, so not what PAdES adds.
      const text = bytes.toString('latin1');
      const startxref = [...text.matchAll(/startxref\s+(\d+)/g)].at(-1)![1];
      const root = [...text.matchAll(/\/Root\s+(\d+ \d+ R)/g)].at(-1)![1];
      const size = Math.max(...[...text.matchAll(/\/Size\s+(\d+)/g)].map((found) => Number(found[1])));
      const object = `${size} 0 obj\n<< /Type /Annot /Subtype /FreeText /Rect [0 0 200 50] /Contents (Approved) /DA (/Helv 12 Tf 0 g) >>\nendobj\n`;
      const offset = bytes.length + 1;
      const update = `\n${object}xref\n${size} 1\n${String(offset).padStart(10, '0')} 00000 n \ntrailer\n<< /Size ${size + 1} /Root ${root} /Prev ${startxref} >>\nstartxref\n${offset + object.length}\n%%EOF\n`;
      const changed = await verify(await tempFile(Buffer.concat([bytes, Buffer.from(update, 'latin1')]), 'annotated.pdf'));
      expect(changed.code).toBe(1);
      expect(changed.lines.find((line) => line.startsWith('FAIL byte range: '))).toContain(`object ${size} 0 adds an annotation (/FreeText) that is not a signature field`);
    });
  });
});
