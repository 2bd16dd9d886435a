/**
 * A generated long document for the completion benchmark: `pages` US-Letter pages of text in
 * Helvetica (a standard font, nothing embedded), each page its own content stream, as a report
 * exported from an office suite would be. Made with @libpdf/core (bench code may import it).
 */
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDF, StandardFonts } from '@libpdf/core';

export async function generateLongPdf(pages: number): Promise<Uint8Array> {
  const pdf = PDF.create();
  for (let index = 0; index < pages; index++) {
    const page = pdf.addPage({ size: 'letter' });
    page.drawText(`Master services agreement, page ${index + 1} of ${pages}`, { x: 72, y: 720, size: 14, font: StandardFonts.HelveticaBold });
    for (let line = 0; line < 30; line++) {
      page.drawText(`${index + 1}.${line + 1} The parties agree that clause ${line + 1} applies to every obligation in section ${index + 1}.`, {
        x: 72,
        y: 690 - line * 20,
        size: 10,
        font: StandardFonts.Helvetica,
      });
    }
  }
  return await pdf.save();
}

/**
 * A document of about `bytes` bytes (for the packet download benchmark): one US-Letter page showing
 * an image of random pixels, which no compression shrinks, so that the file is as large as asked.
 */
export async function generateLargePdf(bytes: number): Promise<Uint8Array> {
  const width = 2000;
  const height = Math.max(1, Math.ceil(bytes / (width * 3)));
  const pdf = PDF.create();
  const page = pdf.addPage({ size: 'letter' });
  const image = pdf.embedPng(randomPng(width, height));
  page.drawImage(image, { x: 36, y: 36, width: 540, height: 720 });
  return await pdf.save();
}

/** A PNG (RFC 2083) of `width` x `height` random RGB pixels, its image data stored uncompressed. */
function randomPng(width: number, height: number): Uint8Array {
  const row = width * 3 + 1;
  const raw = randomBytes(row * height);
  for (let y = 0; y < height; y++) raw[y * row] = 0;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 0 })), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** CRC-32 (ISO 3309, as PNG chunks use it). */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
