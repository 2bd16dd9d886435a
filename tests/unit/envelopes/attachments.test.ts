/**
 * The pure checks of a signer's file (docs/api.md#files-from-signers): its type by its magic numbers,
 * an image's size from its header alone, the name from `Content-Disposition`, and the distinct names
 * files are embedded and archived under.
 */
import { describe, expect, test } from '@jest/globals';
import { attachmentName, distinctNames, imageDimensions, sniffAttachmentType, type UsedAttachment } from '../../../src/lib/envelopes/attachments.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** A PNG's bytes with the header stating `width` × `height` (the chunks' CRCs are not read). */
function pngHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(8 + 25 + 12);
  bytes.set(PNG_SIGNATURE, 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(8, 13);
  bytes.set([0x49, 0x48, 0x44, 0x52], 12);
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([0x49, 0x45, 0x4e, 0x44], bytes.length - 8);
  return bytes;
}

/** A JPEG's start: SOI, an APP0 segment of `app0` bytes, then a SOF2 frame header of `width` × `height`. */
function jpegHeader(width: number, height: number, app0 = 16): Uint8Array {
  const sof = [0xff, 0xc2, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1];
  return new Uint8Array([0xff, 0xd8, 0xff, 0xe0, app0 >> 8, app0 & 0xff, ...new Array<number>(app0 - 2).fill(0), ...sof, 0xff, 0xd9]);
}

describe('sniffAttachmentType', () => {
  test('names PDF, JPEG and PNG by their first bytes, and nothing else', () => {
    expect(sniffAttachmentType(new TextEncoder().encode('%PDF-1.7\n'))).toBe('application/pdf');
    expect(sniffAttachmentType(new Uint8Array([...new Array<number>(1000).fill(0x20), ...new TextEncoder().encode('%PDF-2.0')]))).toBe('application/pdf');
    expect(sniffAttachmentType(new Uint8Array([...new Array<number>(1024).fill(0x20), ...new TextEncoder().encode('%PDF-2.0')]))).toBeNull();
    expect(sniffAttachmentType(jpegHeader(1, 1))).toBe('image/jpeg');
    expect(sniffAttachmentType(pngHeader(1, 1))).toBe('image/png');
    expect(sniffAttachmentType(new TextEncoder().encode('GIF89a'))).toBeNull();
    expect(sniffAttachmentType(new Uint8Array(0))).toBeNull();
  });
});

describe('imageDimensions', () => {
  test('reads a PNG\'s IHDR and a JPEG\'s frame header past other segments', () => {
    expect(imageDimensions(pngHeader(640, 480), 'image/png')).toEqual({ width: 640, height: 480 });
    expect(imageDimensions(jpegHeader(4032, 3024), 'image/jpeg')).toEqual({ width: 4032, height: 3024 });
    expect(imageDimensions(jpegHeader(7, 9, 300), 'image/jpeg')).toEqual({ width: 7, height: 9 });
  });

  test('a header that cannot be read is null: truncated, no IEND, zero size, a scan before any frame', () => {
    expect(imageDimensions(pngHeader(640, 480).subarray(0, 30), 'image/png')).toBeNull();
    const noEnd = pngHeader(640, 480);
    noEnd.fill(0, noEnd.length - 8);
    expect(imageDimensions(noEnd, 'image/png')).toBeNull();
    expect(imageDimensions(pngHeader(0, 480), 'image/png')).toBeNull();
    expect(imageDimensions(jpegHeader(4032, 3024).subarray(0, 24), 'image/jpeg')).toBeNull();
    expect(imageDimensions(new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0xff, 0xd9]), 'image/jpeg')).toBeNull();
    expect(imageDimensions(jpegHeader(0, 10), 'image/jpeg')).toBeNull();
  });
});

describe('attachmentName', () => {
  test('filename* (UTF-8) first, then filename, without folders or control characters; else attachment-<n>.<ext>', () => {
    expect(attachmentName('attachment; filename="plain.pdf"; filename*=UTF-8\'\'%C3%A9t%C3%A9.pdf', 1, 'application/pdf')).toBe('été.pdf');
    expect(attachmentName('attachment; filename="a \\"quoted\\" name.png"', 1, 'image/png')).toBe('a "quoted" name.png');
    expect(attachmentName('attachment; filename=token.jpg', 1, 'image/jpeg')).toBe('token.jpg');
    expect(attachmentName('attachment; filename="../../etc/passwd"', 1, 'application/pdf')).toBe('passwd');
    expect(attachmentName('attachment; filename="C:\\\\Users\\\\x\\\\id.png"', 1, 'image/png')).toBe('id.png');
    expect(attachmentName('attachment; filename="bad\u0007\u202ename.pdf"', 1, 'application/pdf')).toBe('badname.pdf');
    expect(attachmentName('attachment; filename*=UTF-8\'\'%E0%A4%A', 4, 'application/pdf')).toBe('attachment-4.pdf');
    expect(attachmentName('attachment', 2, 'image/jpeg')).toBe('attachment-2.jpg');
    expect(attachmentName(null, 3, 'image/png')).toBe('attachment-3.png');
    expect(attachmentName('attachment; filename=".."', 5, 'image/png')).toBe('attachment-5.png');
    expect([...attachmentName(`attachment; filename="${'x'.repeat(300)}.pdf"`, 1, 'application/pdf')]).toHaveLength(200);
  });
});

describe('distinctNames', () => {
  test('a repeated name, or audit.json, gets a number in front', () => {
    const used = (name: string) => ({ value: { name } }) as unknown as UsedAttachment;
    expect(distinctNames([used('id.pdf'), used('id.pdf'), used('audit.json'), used('2-id.pdf')])).toEqual(['id.pdf', '2-id.pdf', '2-audit.json', '2-2-id.pdf']);
  });
});
