/**
 * Images made in memory for tests of attachment and image fields (docs/api.md#files-from-signers):
 * PNGs of one colour, written with the chunk layout and CRC of the PNG specification (RFC 2083).
 */
import { deflateSync } from 'node:zlib';

/** CRC-32 of PNG chunks (ISO 3309, as RFC 2083 §3.4 asks). */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** One PNG chunk: length, type, data, CRC. */
function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])));
  return Buffer.concat([head, data, crc]);
}

/**
 * A PNG of `width` × `height` RGB pixels, all one colour. With `claimed`, the header states that size
 * while the data holds one row of one pixel (a decompression bomb's header, cheap to make).
 */
export function png(width: number, height: number, claimed?: { width: number; height: number }): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(claimed?.width ?? width, 0);
  header.writeUInt32BE(claimed?.height ?? height, 4);
  header[8] = 8;
  header[9] = 2;
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, 0x40)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array(0))]);
}
