/**
 * Cleaning does not depend on where active content hangs (docs/api.md#what-the-service-removes-from-documents-and-why):
 * every JavaScript, launch and embedded-file dictionary goes wherever it sits in the file: behind an
 * indirect action type, on a field the form does not list, on a form XObject's associated files, in
 * the named destinations, in an object nothing refers to, in an object stream, in an earlier
 * revision. Each crafted file is checked before and after with readers nobody here wrote: PDF.js
 * (the signing page's engine), `qpdf --json` and `qpdf --list-attachments`.
 * Content that prints but does not show on screen, and layers switched off by an action, are refused.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { cleanDocument } from '../../src/lib/pdf/index.js';
import { isAppError } from '../../src/lib/errors.js';
import { pdfFromObjects, pdfWithLayer, withIncrementalUpdate, type CraftedObject } from './craftedPdfs.js';
import { pdfJsActiveContent, pdftotext, qpdfCheck, qpdfContents, run, scratchDir } from './pdfTools.js';
import { CORPUS_DIR } from '../support/corpus.js';

/** Names that mark active content, as keys or values in any object qpdf lists. */
const ACTIVE_NAMES = ['/JavaScript', '/JS', '/AA', '/Launch', '/EF', '/EmbeddedFile', '/EmbeddedFiles', '/FileAttachment'];
/** Text in the crafted payloads that must not survive anywhere in the bytes. */
const MARKERS = ['app.alert', 'cmd.exe', 'MZ payload'];

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let written = 0;
const write = (bytes: Uint8Array): Promise<string> => scratch.write(`document-${++written}.pdf`, bytes);

beforeAll(async () => {
  scratch = await scratchDir();
});
afterAll(async () => {
  await scratch.remove();
});

const js = (code: string): string => `<< /S /JavaScript /JS (${code}) >>`;
const page = (extra = ''): CraftedObject => ({
  body: `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> ${extra} >>`,
});
const base = (catalog = '', pageExtra = '', objects: Record<number, CraftedObject> = {}): Buffer =>
  pdfFromObjects({
    1: { body: `<< /Type /Catalog /Pages 2 0 R ${catalog} >>` },
    2: { body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    3: page(pageExtra),
    4: { body: '<< >>', stream: 'BT /F1 18 Tf 72 700 Td (Visible page text) Tj ET\n' },
    5: { body: '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>' },
    ...objects,
  });

/** Where active content hides from a walk that starts at the places a well-formed file uses. */
const HIDING_PLACES: [string, () => Buffer, string[]][] = [
  ['an open action whose /S is an indirect /JavaScript', () => base('/OpenAction 10 0 R', '', { 10: { body: '<< /S 11 0 R /JS (app.alert\\(1\\)) >>' }, 11: { body: '/JavaScript' } }), ['javascript']],
  [
    'a widget whose parent field the form does not list, with /AA scripts on the parent',
    () =>
      base('/AcroForm << /Fields [] /DA (/Helv 0 Tf 0 g) >>', '/Annots [20 0 R]', {
        20: { body: '<< /Type /Annot /Subtype /Widget /Rect [72 600 272 630] /P 3 0 R /Parent 21 0 R >>' },
        21: { body: '<< /FT /Tx /T (total) /Kids [20 0 R] /AA << /K 22 0 R /C 22 0 R >> >>' },
        22: { body: js('app.alert\\("keystroke"\\)') },
      }),
    ['additionalActions', 'javascript'],
  ],
  [
    'an embedded file on a form XObject\'s associated files (/AF)',
    () =>
      base('', '/Resources << /Font << /F1 5 0 R >> /XObject << /X1 30 0 R >> >>', {
        4: { body: '<< >>', stream: 'BT /F1 18 Tf 72 700 Td (Visible page text) Tj ET\n/X1 Do\n' },
        30: { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /AF [31 0 R] >>', stream: '0 0 10 10 re f' },
        31: { body: '<< /Type /Filespec /F (payload.exe) /UF (payload.exe) /AFRelationship /Data /EF << /F 32 0 R >> >>' },
        32: { body: '<< /Type /EmbeddedFile >>', stream: 'MZ payload' },
      }),
    ['embeddedFile'],
  ],
  [
    'a script and a launch action in the named destinations',
    () =>
      base('/Dests 40 0 R /Names << /Dests << /Names [(evil) 42 0 R] >> >>', '', {
        40: { body: '<< /start [3 0 R /Fit] /evil 41 0 R >>' },
        41: { body: js('app.alert\\("dest"\\)') },
        42: { body: '<< /S /Launch /F (cmd.exe) >>' },
      }),
    ['javascript', 'launch'],
  ],
  [
    'a script, a launch action and an embedded file nothing refers to',
    () =>
      base('', '', {
        50: { body: js('app.alert\\("orphan"\\)') },
        51: { body: '<< /S /Launch /F (cmd.exe) >>' },
        52: { body: '<< /Type /Filespec /F (payload.exe) /EF << /F 53 0 R >> >>' },
        53: { body: '<< /Type /EmbeddedFile >>', stream: 'MZ payload' },
      }),
    ['javascript', 'launch', 'embeddedFile'],
  ],
  [
    'a script behind an escaped name and an indirect /Next array',
    () => base('/OpenAction << /S /GoTo /D [3 0 R /Fit] /Next 60 0 R >>', '', { 60: { body: '[61 0 R]' }, 61: { body: '<< /S /Java#53cript /JS (app.alert\\(2\\)) >>' } }),
    ['javascript'],
  ],
];

/** The same file with its objects in object streams (and a cross-reference stream), unreferenced ones kept. */
async function inObjectStreams(bytes: Buffer): Promise<Buffer> {
  const input = await write(bytes);
  const output = `${input}.objstm.pdf`;
  const { code, stderr } = await run('qpdf', ['--object-streams=generate', '--preserve-unreferenced', input, output]);
  if (code !== 0 && code !== 3) throw new Error(`qpdf failed: ${stderr}`);
  const { readFile } = await import('node:fs/promises');
  return await readFile(output);
}

/** The same content added by an incremental update to a plain one-page document. */
function inUpdate(build: () => Buffer): Buffer {
  const original = base();
  const full = build().toString('latin1');
  // Every object of the crafted file (the catalog, the page and the additions) becomes part of the update.
  const objects: Record<number, CraftedObject> = {};
  for (const match of full.matchAll(/(\d+) 0 obj\n([\s\S]*?)\n(?:stream\n([\s\S]*?)\nendstream\n)?endobj\n/g)) {
    const body = match[2]!.replace(/ \/Length \d+ >>$/, ' >>');
    objects[Number(match[1])] = match[3] === undefined ? { body } : { body, stream: match[3] };
  }
  return withIncrementalUpdate(original, objects);
}

async function expectActiveContent(bytes: Uint8Array, present: boolean): Promise<void> {
  const file = await write(bytes);
  const { names } = await qpdfContents(file);
  const raw = Buffer.from(bytes).toString('latin1');
  if (present) {
    // The crafted file does carry it, as qpdf reads it (PDF.js only sees what a viewer would run).
    expect(ACTIVE_NAMES.some((name) => names.has(name)) || MARKERS.some((marker) => raw.includes(marker))).toBe(true);
    return;
  }
  expect(ACTIVE_NAMES.filter((name) => names.has(name))).toEqual([]);
  expect(MARKERS.filter((marker) => raw.includes(marker))).toEqual([]);
  const pdfjs = await pdfJsActiveContent(file);
  expect(pdfjs).toEqual({ documentActions: null, fieldActions: {}, annotationActions: [], attachments: null });
  expect((await run('qpdf', ['--list-attachments', file])).stdout).not.toMatch(/payload/);
  expect((await qpdfCheck(file)).code).toBe(0);
  expect(await pdftotext(file)).toContain('Visible page text');
}

describe('active content is removed wherever it sits in the file', () => {
  const layouts: [string, (build: () => Buffer) => Promise<Buffer> | Buffer][] = [
    ['plain objects', (build) => build()],
    ['object streams', (build) => inObjectStreams(build())],
    ['an incremental update', (build) => inUpdate(build)],
  ];
  test.each(HIDING_PLACES.flatMap(([place, build, kinds]) => layouts.map(([layout, make]) => [place, layout, build, kinds, make] as const)))(
    '%s, in %s: removed, recorded, and no reader finds it in the cleaned copy',
    async (_place, _layout, build, kinds, make) => {
      const document = await make(build);
      await expectActiveContent(document, true);
      const { cleaned, removed } = await cleanDocument({ document });
      expect(removed).toEqual(expect.arrayContaining(kinds));
      expect(cleaned).not.toBeNull();
      await expectActiveContent(cleaned!, false);
    },
    60_000,
  );

  test('PDF.js does run the script behind an indirect /S in the upload (the crafted file is what a viewer would run)', async () => {
    const report = await pdfJsActiveContent(await write(HIDING_PLACES[0]![1]()));
    expect(JSON.stringify(report.documentActions)).toContain('app.alert');
  });

  test('a script that an update took out of the document, left in the earlier revision, is gone from the cleaned copy', async () => {
    const original = base('/OpenAction 10 0 R', '', { 10: { body: js('app.alert\\("first revision"\\)') } });
    // The update rewrites the catalog without the open action and frees the script's object.
    const updated = withIncrementalUpdate(original, { 1: { body: '<< /Type /Catalog /Pages 2 0 R >>' }, 10: null });
    expect(updated.toString('latin1')).toContain('first revision');
    const { cleaned, removed } = await cleanDocument({ document: updated });
    expect(removed).toEqual(['javascript']);
    expect(cleaned).not.toBeNull();
    await expectActiveContent(cleaned!, false);
  });

  test('a script in an object that no cross-reference section lists, left between two revisions, is gone from the cleaned copy', async () => {
    const original = base();
    const stray = Buffer.from(`99 0 obj\n${js('app.alert\\("stray"\\)')}\nendobj\n`, 'latin1');
    // The update's offsets count the stray object, which only its bytes hold.
    const updated = withIncrementalUpdate(Buffer.concat([original, stray]), { 1: { body: '<< /Type /Catalog /Pages 2 0 R /PageMode /UseNone >>' } });
    expect((await qpdfCheck(await write(updated))).code).toBe(0);
    const { cleaned, removed } = await cleanDocument({ document: updated });
    expect(removed).toEqual(['javascript']);
    await expectActiveContent(cleaned!, false);
  });

  test('a document whose only links go to a web address and within the document is left byte for byte', async () => {
    const document = base('/OpenAction [3 0 R /Fit]', '/Annots [20 0 R]', {
      20: { body: '<< /Type /Annot /Subtype /Link /Rect [72 600 272 630] /A << /S /URI /URI (https://example.com/) /Next << /S /GoTo /D [3 0 R /Fit] >> >> >>' },
    });
    expect(await cleanDocument({ document })).toEqual({ cleaned: null, pageCount: 1, removed: [] });
  });
});

/**
 * `original` (a file whose last cross-reference section is a stream, as qpdf writes object streams)
 * with one update, a classic cross-reference section, that rewrites its catalog without its open
 * action and frees the object the open action named: that object is left only in the earlier
 * revision's object stream.
 */
async function withOpenActionDropped(original: Buffer): Promise<Buffer> {
  const file = await write(original);
  const trailer = (await run('qpdf', ['--show-object=trailer', file])).stdout;
  const root = Number(/\/Root (\d+) 0 R/.exec(trailer)?.[1]);
  const catalog = (await run('qpdf', [`--show-object=${root}`, file])).stdout.trim();
  const action = Number(/\/OpenAction (\d+) 0 R/.exec(catalog)?.[1]);
  const size = Number(/\/Size (\d+)/.exec(trailer)?.[1]);
  const previous = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(original.toString('latin1'))?.[1]);
  expect([root, action, size, previous].every(Number.isInteger)).toBe(true);
  const object = Buffer.from(`\n${root} 0 obj\n${catalog.replace(/\/OpenAction \d+ 0 R/, '')}\nendobj\n`, 'latin1');
  const xref = original.length + object.length;
  const rows = [[root, `${String(original.length + 1).padStart(10, '0')} 00000 n \n`], [action, '0000000000 00001 f \n']] as const;
  const sections = [...rows].sort(([a], [b]) => a - b).map(([number, row]) => `${number} 1\n${row}`).join('');
  const id = /\/ID\s*\[[^\]]*\]/.exec(trailer)?.[0] ?? '';
  return Buffer.concat([
    original,
    object,
    Buffer.from(`xref\n0 1\n0000000000 65535 f \n${sections}trailer\n<< /Size ${size} /Root ${root} 0 R ${id} /Prev ${previous} >>\nstartxref\n${xref}\n%%EOF\n`, 'latin1'),
  ]);
}

/**
 * The clean first reads the names the upload's bytes hold, and sweeps only what they may hide: what
 * it spares must never be where active content sits.
 */
describe('the look at the bytes that spares the sweeps', () => {
  test('a script behind an escaped name in an object that no cross-reference section lists, in a file without object streams, is removed', async () => {
    const stray = Buffer.from(`99 0 obj\n<< /S /Java#53cr#69pt /JS (app.alert\\("escaped stray"\\)) >>\nendobj\n`, 'latin1');
    const updated = withIncrementalUpdate(Buffer.concat([base(), stray]), { 1: { body: '<< /Type /Catalog /Pages 2 0 R /PageMode /UseNone >>' } });
    const { cleaned, removed } = await cleanDocument({ document: updated });
    expect(removed).toEqual(['javascript']);
    await expectActiveContent(cleaned!, false);
  });

  test('a script only in an earlier revision\'s object stream (the last revision frees it) is removed', async () => {
    const original = await inObjectStreams(base('/OpenAction 10 0 R', '', { 10: { body: js('app.alert\\("packed"\\)') } }));
    // Compressed: the script's name is in no byte of the file as written.
    expect(original.toString('latin1')).not.toContain('JavaScript');
    const updated = await withOpenActionDropped(original);
    // A reader opens it, and its last revision runs nothing (qpdf only warns that the freed object was compressed).
    expect(await pdftotext(await write(updated))).toContain('Visible page text');
    expect(JSON.stringify((await pdfJsActiveContent(await write(updated))).documentActions)).not.toContain('app.alert');
    const { cleaned, removed } = await cleanDocument({ document: updated });
    expect(removed).toEqual(['javascript']);
    expect(cleaned).not.toBeNull();
    expect(Buffer.from(cleaned!).toString('latin1')).not.toContain('ObjStm');
    await expectActiveContent(cleaned!, false);
  });

  test('a file with object streams and nothing active is left byte for byte', async () => {
    const document = await inObjectStreams(base('/OpenAction [3 0 R /Fit]'));
    expect(document.toString('latin1')).toContain('/ObjStm');
    expect(await cleanDocument({ document })).toEqual({ cleaned: null, pageCount: 1, removed: [] });
  });
});

/** How {@link packedByHand} writes its object stream's data. */
type Packing = 'flate' | 'hex then flate' | 'flate, /Length wrong';

/**
 * The document {@link base} makes, written by hand with its dictionaries in one object stream
 * (object 6, written as `packing` says) and a cross-reference stream (ISO 32000-1 §7.5.7, §7.5.8):
 * the page's content stays a plain stream.
 */
function packedByHand(packing: Packing, catalog: string, objects: Record<number, string>): Buffer {
  const packed: [number, string][] = [
    [1, `<< /Type /Catalog /Pages 2 0 R ${catalog} >>`],
    [2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>'],
    [3, page().body],
    [5, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'],
    ...Object.entries(objects).map(([number, body]): [number, string] => [Number(number), body]),
  ];
  let header = '';
  let bodies = '';
  for (const [number, body] of packed) {
    header += `${number} ${bodies.length} `;
    bodies += `${body}\n`;
  }
  const compressed = deflateSync(Buffer.from(header + bodies, 'latin1'));
  const data = packing === 'hex then flate' ? Buffer.from(`${compressed.toString('hex')}>`, 'latin1') : compressed;
  const filter = packing === 'hex then flate' ? '[/ASCIIHexDecode /FlateDecode]' : '/FlateDecode';
  const length = packing === 'flate, /Length wrong' ? data.length + 7 : data.length;
  const content = 'BT /F1 18 Tf 72 700 Td (Visible page text) Tj ET\n';
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets = new Map<number, number>();
  const add = (number: number, dictionary: string, stream: Buffer): void => {
    offsets.set(number, parts.reduce((sum, part) => sum + part.length, 0));
    parts.push(Buffer.from(`${number} 0 obj\n${dictionary}\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream\nendobj\n', 'latin1'));
  };
  add(4, `<< /Length ${content.length} >>`, Buffer.from(content, 'latin1'));
  add(6, `<< /Type /ObjStm /N ${packed.length} /First ${header.length} /Filter ${filter} /Length ${length} >>`, data);
  const size = Math.max(7, ...packed.map(([number]) => number)) + 1;
  const rows = Buffer.alloc(size * 7);
  for (let number = 0; number < size; number++) {
    const index = packed.findIndex(([packedNumber]) => packedNumber === number);
    const row = number === 7 ? [1, parts.reduce((sum, part) => sum + part.length, 0), 0] : offsets.has(number) ? [1, offsets.get(number)!, 0] : index >= 0 ? [2, 6, index] : [0, 0, 0];
    rows.writeUInt8(row[0]!, number * 7);
    rows.writeUInt32BE(row[1]!, number * 7 + 1);
    rows.writeUInt16BE(row[2]!, number * 7 + 5);
  }
  const xref = parts.reduce((sum, part) => sum + part.length, 0);
  add(7, `<< /Type /XRef /Size ${size} /W [1 4 2] /Root 1 0 R /Length ${rows.length} >>`, rows);
  parts.push(Buffer.from(`startxref\n${xref}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/**
 * Object streams are decoded and read for the names the sweeps react to: a file whose object
 * streams hold none of them is not swept; one whose object stream cannot be decoded for sure is.
 */
describe('the look into object streams', () => {
  test.each<Packing>(['flate', 'hex then flate', 'flate, /Length wrong'])('a script in an object stream written %s is removed', async (packing) => {
    const document = packedByHand(packing, '/OpenAction 10 0 R', { 10: js('app.alert\\("packed by hand"\\)') });
    // Compressed: the script's name is in no byte of the file as written; qpdf reads it.
    expect(document.toString('latin1')).not.toContain('JavaScript');
    await expectActiveContent(document, true);
    expect(JSON.stringify((await pdfJsActiveContent(await write(document))).documentActions)).toContain('app.alert');
    const { cleaned, removed } = await cleanDocument({ document });
    expect(removed).toEqual(['javascript']);
    expect(cleaned).not.toBeNull();
    await expectActiveContent(cleaned!, false);
  });

  test.each<Packing>(['flate', 'hex then flate', 'flate, /Length wrong'])('a file with an object stream written %s and nothing active is left byte for byte', async (packing) => {
    const document = packedByHand(packing, '/OpenAction [3 0 R /Fit]', {});
    expect(await pdftotext(await write(document))).toContain('Visible page text');
    expect(await cleanDocument({ document })).toEqual({ cleaned: null, pageCount: 1, removed: [] });
  });

  test('the linearized corpus file, nearly all of its objects in object streams, is returned as uploaded', async () => {
    const document = await readFile(path.join(CORPUS_DIR, 'linearized_with_object_streams.pdf'));
    expect(document.toString('latin1')).toContain('/ObjStm');
    expect(await cleanDocument({ document })).toEqual({ cleaned: null, pageCount: 206, removed: [] });
  });
});

/** Cleans `document` and returns the refusal it gets. */
async function refusal(document: Buffer): Promise<{ type: string | undefined; detail: string }> {
  try {
    await cleanDocument({ document });
  } catch (error) {
    if (isAppError(error)) return { type: error.type, detail: error.detail };
    throw error;
  }
  throw new Error('The document was not refused.');
}

describe('content shown on paper but not on screen is refused', () => {
  const annotation = (subtype: string, flags: number, extra = ''): Buffer =>
    pdfWithLayer({
      page: '/Annots [20 0 R]',
      objects: { 20: { body: `<< /Type /Annot /Subtype /${subtype} /Rect [72 500 272 530] /F ${flags} /Contents (Printed only) ${extra} >>` } },
    });
  const appearance = (resources: string, objects: Record<number, CraftedObject> = {}): Buffer =>
    pdfWithLayer({
      page: '/Annots [20 0 R]',
      objects: {
        20: { body: '<< /Type /Annot /Subtype /Stamp /Rect [72 500 272 530] /F 4 /AP << /N 21 0 R >> >>' },
        21: { body: `<< /Type /XObject /Subtype /Form /BBox [0 0 200 30] /Resources ${resources} >>`, stream: '/OC /M0 BDC 0 0 200 30 re f EMC' },
        ...objects,
      },
    });

  test.each([
    ['a text annotation flagged Print and NoView', annotation('Text', 4 | 32), /Text "Printed only" on page 1/],
    ['a free text annotation flagged Print, NoView and ToggleNoView', annotation('FreeText', 4 | 32 | 256, '/DA (/Helv 12 Tf 0 g)'), /FreeText/],
    ['a widget flagged Print and NoView', annotation('Widget', 4 | 32, '/FT /Tx /T (secret) /V (text)'), /Widget "secret"/],
    ['a membership dictionary with a visibility expression in an annotation appearance', appearance('<< /Properties << /M0 22 0 R >> >>', { 22: { body: '<< /Type /OCMD /VE [/Not 10 0 R] >>' } }), /"Hidden terms"/],
    [
      'a membership dictionary on a form XObject inside an appearance',
      appearance('<< /Properties << /M0 10 0 R >> /XObject << /X 23 0 R >> >>', {
        22: { body: '<< /Type /OCMD /OCGs [10 0 R] /P /AllOff >>' },
        23: { body: '<< /Type /XObject /Subtype /Form /BBox [0 0 10 10] /OC 22 0 R >>', stream: '0 0 10 10 re f' },
      }),
      /"Hidden terms"/,
    ],
    ['a layer switched off at open', pdfWithLayer({ catalog: '/OpenAction << /S /SetOCGState /State [/OFF 10 0 R] >>' }), /"Hidden terms"/],
    ['a layer toggled by an additional action of the page', pdfWithLayer({ page: '/AA << /O 20 0 R >>', objects: { 20: { body: '<< /S /SetOCGState /State [/ON 10 0 R /Toggle 10 0 R] >>' } } }), /"Hidden terms"/],
    [
      'annotation flags after a comment',
      pdfWithLayer({ page: '/Annots [20 0 R]', objects: { 20: { body: '<< /Type /Annot /Subtype /Text /Rect [72 500 272 530] /F %flags\n36 /Contents (Printed only) >>' } } }),
      /Text "Printed only" on page 1/,
    ],
    [
      'annotation flags stored in another object',
      pdfWithLayer({ page: '/Annots [20 0 R]', objects: { 20: { body: '<< /Type /Annot /Subtype /Text /Rect [72 500 272 530] /F 21 0 R /Contents (Printed only) >>' }, 21: { body: '36' } } }),
      /Text "Printed only" on page 1/,
    ],
    [
      'a layer switched off at the end of a /Next chain of a link',
      pdfWithLayer({
        page: '/Annots [20 0 R]',
        objects: {
          20: { body: '<< /Type /Annot /Subtype /Link /Rect [72 500 272 530] /A << /S /URI /URI (https://example.com/) /Next [21 0 R] >> >>' },
          21: { body: '<< /S /GoTo /D [3 0 R /Fit] /Next << /S /SetOCGState /State [/OFF 10 0 R] >> >>' },
        },
      }),
      /"Hidden terms"/,
    ],
  ])('%s → document-hidden-content naming it', async (_, document, named) => {
    const refused = await refusal(document);
    expect(refused.type).toBe('urn:problem:document-hidden-content');
    expect(refused.detail).toMatch(named);
  });

  test.each([
    ['an annotation that prints and shows', pdfWithLayer({ page: '/Annots [20 0 R]', objects: { 20: { body: '<< /Type /Annot /Subtype /Text /Rect [72 500 92 520] /F 4 >>' } } })],
    ['an annotation hidden everywhere (NoView without Print)', pdfWithLayer({ page: '/Annots [20 0 R]', objects: { 20: { body: '<< /Type /Annot /Subtype /Text /Rect [72 500 92 520] /F 32 >>' } } })],
    ['a layer switched on at open', pdfWithLayer({ catalog: '/OpenAction << /S /SetOCGState /State [/ON 10 0 R] >>' })],
    [
      'an invisible signature field (no area) flagged Print and NoView',
      pdfWithLayer({ page: '/Annots [20 0 R]', objects: { 20: { body: '<< /Type /Annot /Subtype /Widget /FT /Sig /T (Signature1) /Rect [0 0 0 0] /F 36 >>' } } }),
    ],
  ])('%s is accepted', async (_, document) => {
    await expect(cleanDocument({ document })).resolves.toMatchObject({ pageCount: 1 });
  });
});
