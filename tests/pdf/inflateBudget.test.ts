/**
 * The decompression pre-scan's bound (docs/api.md#create-an-envelope-and-upload-its-document: compressed streams are never inflated beyond the
 * budget): it skips the streams whose worst case fits, so these tests give documents whose worst
 * case does not fit in one respect each (one stream, all together, a chain of decoders), and check
 * that they are still inflated and refused. A small budget keeps them small.
 */
import { describe, expect, test } from '@jest/globals';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { checkInflateBudget, MAX_DEFLATE_RATIO } from '../../src/lib/pdf/inflateBudget.js';
import { pdfWithContentStreams } from './craftedPdfs.js';

const MiB = 1024 * 1024;
const zeros = (bytes: number): Buffer => deflateSync(Buffer.alloc(bytes), { level: 9 });
const refused = { status: 422, type: 'urn:problem:document-too-complex' };

describe('decompression pre-scan', () => {
  test("deflate's best compression stays within MAX_DEFLATE_RATIO, and comes close to it", () => {
    const output = 64 * MiB;
    const ratio = output / deflateRawSync(Buffer.alloc(output), { level: 9 }).length;
    expect(ratio).toBeLessThanOrEqual(MAX_DEFLATE_RATIO);
    expect(ratio).toBeGreaterThan(1000);
  });

  test('refuses one stream over the per-stream budget, and accepts it within', async () => {
    const document = pdfWithContentStreams([zeros(4 * MiB)], '/FlateDecode');
    await expect(checkInflateBudget(document, { perStreamBytes: 2 * MiB, totalBytes: 64 * MiB })).rejects.toMatchObject(refused);
    await expect(checkInflateBudget(document, { perStreamBytes: 4 * MiB, totalBytes: 64 * MiB })).resolves.toBeUndefined();
  });

  test('refuses streams that each fit but together exceed the total budget', async () => {
    const budget = { perStreamBytes: 8 * MiB, totalBytes: 16 * MiB };
    const stream = zeros(4 * MiB);
    expect(stream.length * MAX_DEFLATE_RATIO).toBeLessThan(budget.perStreamBytes);
    await expect(checkInflateBudget(pdfWithContentStreams(Array.from({ length: 6 }, () => stream), '/FlateDecode'), budget)).rejects.toMatchObject(refused);
    await expect(checkInflateBudget(pdfWithContentStreams(Array.from({ length: 3 }, () => stream), '/FlateDecode'), budget)).resolves.toBeUndefined();
  });

  test('counts a chain of FlateDecode filters as one decoder per filter: a tiny nested stream is still inflated', async () => {
    const nested = deflateSync(zeros(4 * MiB), { level: 9 });
    const budget = { perStreamBytes: 2 * MiB, totalBytes: 64 * MiB };
    // Through one decoder this stream could not reach the budget: only the chain can.
    expect(nested.length * MAX_DEFLATE_RATIO).toBeLessThan(budget.perStreamBytes);
    await expect(checkInflateBudget(pdfWithContentStreams([nested], '[/FlateDecode /FlateDecode]'), budget)).rejects.toMatchObject(refused);
  });
});
