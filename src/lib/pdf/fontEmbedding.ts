/**
 * Embeds the shaped glyphs' fonts into one PDF: for every font a document uses, a Type0 font with
 * Identity-H encoding over a CIDFontType2 (ISO 32000-1 §9.7), whose program is the TrueType font
 * subsetted by HarfBuzz's subsetter (hb-subset, shipped with harfbuzzjs as harfbuzz-subset.wasm) to
 * the glyphs drawn (for the two text fonts, with a fixed basis, so that the subset is made and
 * compressed once per worker: {@link fontProgram}), glyph ids kept (CIDToGIDMap /Identity: a character code in the content stream is
 * the glyph id the shaper chose), with a /W array of the glyphs' advance widths and a ToUnicode CMap
 * (§9.10.3) mapping each glyph to the characters it was first drawn for.
 *
 * @libpdf/core embeds fonts by code point only (its subsetter keeps the glyphs the cmap reaches), so
 * it cannot carry the glyphs a shaper substitutes (Arabic joining forms, ligatures, Indic conjuncts);
 * this module is the glue between the two libraries, built with the library's object model.
 *
 * Runs only inside a seal worker.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { deflateSync } from 'node:zlib';
import { LruCache } from '../lruCache.js';
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, PdfString } from '@libpdf/core';
import type { PDF, PDFPage, PdfObject } from '@libpdf/core';
import { FONT_FILES, fontBytes } from './fonts.js';
import type { FontId } from './fonts.js';
import { glyphAdvance, harfbuzzFace, layoutLine } from './shaping.js';
import type { Face } from './shaping.js';

// ---------------------------------------------------------------------------------------------
// hb-subset

/** The parts of the WebAssembly JavaScript API used here (TypeScript's Node.js types do not declare it). */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
const webAssembly = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;

interface SubsetExports {
  memory: { buffer: ArrayBuffer };
  _initialize?: () => void;
  malloc(size: number): number;
  free(pointer: number): void;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_length(blob: number): number;
  hb_blob_get_data(blob: number, lengthPointer: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, value: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_glyph_set(input: number): number;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_input_set(input: number, setType: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
  hb_subset_or_fail(face: number, input: number): number;
}

/** hb_subset_flags_t (hb-subset.h). */
const SUBSET_FLAGS = { noHinting: 0x1, retainGids: 0x2 };
/** hb_subset_sets_t (hb-subset.h). */
const SUBSET_SETS = { dropTableTag: 3 };
/** HB_MEMORY_MODE_READONLY. */
const MEMORY_MODE_READONLY = 1;
/** Tables a PDF font program never needs: layout (shaping is done), vertical metrics, signatures. */
const DROPPED_TABLES = ['GSUB', 'GPOS', 'GDEF', 'BASE', 'JSTF', 'MATH', 'morx', 'kern', 'DSIG', 'vhea', 'vmtx', 'VORG', 'STAT', 'meta', 'FFTM'];

const tag = (name: string): number => [...name].reduce((value, char) => ((value << 8) | char.charCodeAt(0)) >>> 0, 0);

let subsetModule: SubsetExports | undefined;
/** Faces of the subsetter's own copy of each font, kept for the life of the thread. */
const subsetFaces = new Map<FontId, number>();

function subsetter(): SubsetExports {
  if (subsetModule === undefined) {
    const require = createRequire(import.meta.url);
    const wasm = readFileSync(require.resolve('harfbuzzjs/dist/harfbuzz-subset.wasm'));
    // Synchronous compilation is allowed in Node.js at any size; it happens once per thread.
    const instance = new webAssembly.Instance(new webAssembly.Module(wasm), {});
    subsetModule = instance.exports as unknown as SubsetExports;
    subsetModule._initialize?.();
  }
  return subsetModule;
}

function subsetFace(id: FontId): number {
  let face = subsetFaces.get(id);
  if (face === undefined) {
    const hb = subsetter();
    const bytes = fontBytes(id);
    const pointer = hb.malloc(bytes.length);
    new Uint8Array(hb.memory.buffer).set(bytes, pointer);
    // The copy stays allocated as long as the face lives: for the life of the thread.
    face = hb.hb_face_create(hb.hb_blob_create(pointer, bytes.length, MEMORY_MODE_READONLY, 0, 0), 0);
    subsetFaces.set(id, face);
  }
  return face;
}

/**
 * The font program of `id` reduced to `glyphIds` (and the glyphs composite glyphs are built from),
 * glyph ids unchanged, without hinting and layout tables.
 * @throws Error when HarfBuzz cannot subset the font (a fault of the vendored file)
 */
export function subsetFont(id: FontId, glyphIds: Iterable<number>): Uint8Array {
  return subsetWith(id, (hb, input) => {
    const glyphs = hb.hb_subset_input_glyph_set(input);
    hb.hb_set_add(glyphs, 0);
    for (const gid of glyphIds) hb.hb_set_add(glyphs, gid);
    const dropped = hb.hb_subset_input_set(input, SUBSET_SETS.dropTableTag);
    for (const name of DROPPED_TABLES) hb.hb_set_add(dropped, tag(name));
    hb.hb_subset_input_set_flags(input, SUBSET_FLAGS.retainGids | SUBSET_FLAGS.noHinting);
  });
}

/**
 * The font of `id` reduced to the characters `codePoints` (and the glyphs shaping reaches from them:
 * joining forms, ligatures, conjuncts), for a web page's `@font-face`: glyph ids renumbered, hinting
 * dropped, layout tables (GSUB, GPOS) kept so the browser shapes the text unless `shaping` is false
 * (scripts drawn glyph by glyph, such as Han, kana and precomposed Hangul, then weigh much less).
 * @throws Error when HarfBuzz cannot subset the font (a fault of the vendored file)
 */
export function subsetFontForWeb(id: FontId, codePoints: Iterable<number>, shaping = true): Uint8Array {
  return subsetWith(id, (hb, input) => {
    const unicodes = hb.hb_subset_input_unicode_set(input);
    for (const codePoint of codePoints) hb.hb_set_add(unicodes, codePoint);
    if (!shaping) {
      const dropped = hb.hb_subset_input_set(input, SUBSET_SETS.dropTableTag);
      for (const name of DROPPED_TABLES) hb.hb_set_add(dropped, tag(name));
    }
    hb.hb_subset_input_set_flags(input, SUBSET_FLAGS.noHinting);
  });
}

/** Runs hb-subset on the face of `id` with the input `configure` fills in; the subset font's bytes. */
function subsetWith(id: FontId, configure: (hb: SubsetExports, input: number) => void): Uint8Array {
  const hb = subsetter();
  const face = subsetFace(id);
  const input = hb.hb_subset_input_create_or_fail();
  if (input === 0) throw new Error('hb_subset_input_create_or_fail failed (out of memory).');
  try {
    configure(hb, input);
    const result = hb.hb_subset_or_fail(face, input);
    if (result === 0) throw new Error(`HarfBuzz could not subset ${FONT_FILES[id]}.`);
    const blob = hb.hb_face_reference_blob(result);
    const lengthPointer = hb.malloc(4);
    try {
      const data = hb.hb_blob_get_data(blob, lengthPointer);
      const length = hb.hb_blob_get_length(blob);
      return new Uint8Array(hb.memory.buffer, data, length).slice();
    } finally {
      hb.free(lengthPointer);
      hb.hb_blob_destroy(blob);
      hb.hb_face_destroy(result);
    }
  } finally {
    hb.hb_subset_input_destroy(input);
  }
}

// ---------------------------------------------------------------------------------------------
// Font programs, subsetted and compressed once per thread

/**
 * What every subset of the certificate's two text fonts carries, drawn or not: the glyphs HarfBuzz
 * shapes printable ASCII into (with the ligatures it forms) and the punctuation the certificate
 * itself prints. Nearly every certificate draws only these, so from one document to the next those
 * fonts' programs are the same bytes, subsetted and compressed once per worker (see
 * {@link fontProgram}). The glyphs not drawn add a few kilobytes and change nothing drawn (glyph
 * ids are kept, so a content stream draws the same glyphs from either subset).
 */
const BASIS_TEXT = `${Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)).join('')} ff fi fl ffi ffl — · … ’ “ ”`;
const BASIS_FACES: Partial<Record<FontId, Face>> = { sans: 'regular', sansBold: 'bold' };
const basisCache = new Map<FontId, readonly number[]>();

/** The glyph ids every subset of `id` carries (none for fonts outside {@link BASIS_FACES}). */
function basisGlyphs(id: FontId): readonly number[] {
  let glyphs = basisCache.get(id);
  if (glyphs === undefined) {
    const face = BASIS_FACES[id];
    const ids = new Set<number>();
    if (face !== undefined) for (const run of layoutLine(BASIS_TEXT, face).runs) if (run.font === id) for (const glyph of run.glyphs) ids.add(glyph.gid);
    glyphs = [...ids];
    basisCache.set(id, glyphs);
  }
  return glyphs;
}

/** A subsetted font program, deflated (the FontFile2 stream's data, with /Filter /FlateDecode). */
interface FontProgram {
  /** The glyph ids the subset keeps (sorted, without 0), for the subset tag. */
  glyphIds: readonly number[];
  /** Length of the program before compression, bytes (/Length1). */
  length: number;
  compressed: Uint8Array;
}

/** Most font programs kept per thread (a few to tens of kilobytes each). */
const PROGRAM_CACHE_SIZE = 16;
const programs = new LruCache<string, FontProgram>(PROGRAM_CACHE_SIZE);

/**
 * The program of font `id` subsetted to the glyphs drawn and its {@link basisGlyphs}, compressed;
 * made once per thread for each such glyph set (the last {@link PROGRAM_CACHE_SIZE} used are kept).
 * The returned bytes are shared: written into documents, never changed.
 */
function fontProgram(id: FontId, drawn: Iterable<number>): FontProgram {
  const glyphIds = [...new Set([...basisGlyphs(id), ...drawn])].filter((gid) => gid !== 0).sort((a, b) => a - b);
  return programs.get(`${id}:${glyphIds.join(',')}`, () => {
    const subset = subsetFont(id, glyphIds);
    return { glyphIds, length: subset.length, compressed: new Uint8Array(deflateSync(subset)) };
  });
}

// ---------------------------------------------------------------------------------------------
// Font metrics for the font descriptor (ISO 32000-1 §9.8), read from the font's own tables

interface FontMetrics {
  postScriptName: string;
  /** In 1/1000 em. */
  bbox: [number, number, number, number];
  ascent: number;
  descent: number;
  capHeight: number;
  italicAngle: number;
}

const metricsCache = new Map<FontId, FontMetrics>();

function fontMetrics(id: FontId): FontMetrics {
  let metrics = metricsCache.get(id);
  if (metrics !== undefined) return metrics;
  const face = harfbuzzFace(id);
  const scale = 1000 / face.upem;
  const table = (name: string): DataView | undefined => {
    const bytes = face.referenceTable(name);
    return bytes === undefined ? undefined : new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  const head = table('head');
  const hhea = table('hhea');
  const os2 = table('OS/2');
  const post = table('post');
  const int16 = (view: DataView | undefined, offset: number, fallback: number): number =>
    view !== undefined && view.byteLength >= offset + 2 ? view.getInt16(offset) : fallback;
  const ascender = int16(os2, 68, int16(hhea, 4, face.upem * 0.8));
  const descender = int16(os2, 70, int16(hhea, 6, -face.upem * 0.2));
  const capHeight = os2 !== undefined && os2.getUint16(0) >= 2 ? int16(os2, 88, ascender) : ascender;
  const italicAngle = post !== undefined && post.byteLength >= 8 ? post.getInt32(4) / 65536 : 0;
  const rawName = face.getName(6, 'en') || FONT_FILES[id].replace(/\.ttf$/, '');
  metrics = {
    postScriptName: rawName.replace(/[^A-Za-z0-9-]/g, ''),
    bbox: [int16(head, 36, 0), int16(head, 38, descender), int16(head, 40, face.upem), int16(head, 42, ascender)].map((value) => Math.round(value * scale)) as [number, number, number, number],
    ascent: Math.round(ascender * scale),
    descent: Math.round(descender * scale),
    capHeight: Math.round(capHeight * scale),
    italicAngle,
  };
  metricsCache.set(id, metrics);
  return metrics;
}

// ---------------------------------------------------------------------------------------------
// The fonts of one document

interface UsedFont {
  ref: PdfRef;
  type0: PdfDict;
  /** Glyph id → advance width in 1/1000 em (the /W entry) and the text it stands for (ToUnicode). */
  glyphs: Map<number, { width: number; text: string | undefined }>;
}

const hex4 = (value: number): string => value.toString(16).toUpperCase().padStart(4, '0');

/** A text as UTF-16BE hex, for a ToUnicode CMap. */
function utf16Hex(text: string): string {
  let out = '';
  for (let index = 0; index < text.length; index++) out += hex4(text.charCodeAt(index));
  return out;
}

/** The ToUnicode CMap (ISO 32000-1 §9.10.3) for glyph ids mapped to texts. */
function toUnicodeCMap(entries: [number, string][]): Uint8Array {
  const lines = [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
  ];
  for (let index = 0; index < entries.length; index += 100) {
    const chunk = entries.slice(index, index + 100);
    lines.push(`${chunk.length} beginbfchar`);
    for (const [gid, text] of chunk) lines.push(`<${hex4(gid)}> <${utf16Hex(text)}>`);
    lines.push('endbfchar');
  }
  lines.push('endcmap', 'CMapName currentdict /CMap defineresource pop', 'end', 'end');
  return new TextEncoder().encode(lines.join('\n'));
}

/** The /W array (ISO 32000-1 §9.7.4.3): runs of consecutive glyph ids with their widths. */
function widthsArray(widths: [number, number][]): PdfArray {
  const array = new PdfArray();
  let index = 0;
  while (index < widths.length) {
    const [first] = widths[index] ?? [0];
    const run: PdfObject[] = [];
    let gid = first;
    while (index < widths.length && widths[index]?.[0] === gid) {
      run.push(PdfNumber.of(widths[index]?.[1] ?? 0));
      index++;
      gid++;
    }
    array.push(PdfNumber.of(first));
    array.push(new PdfArray(run));
  }
  return array;
}

/** A subset tag (ISO 32000-1 §9.6.4): six upper-case letters, derived from the subset's content. */
function subsetTag(id: FontId, glyphIds: readonly number[]): string {
  const digest = createHash('sha256').update(id).update(Uint32Array.from(glyphIds)).digest();
  return Array.from(digest.subarray(0, 6), (byte) => String.fromCharCode(65 + (byte % 26))).join('');
}

/**
 * The fonts one document draws with: registers each font on the pages that use it, records the
 * glyphs drawn, and writes the subsetted fonts with {@link finish} (before the document is saved).
 */
export class DocumentFonts {
  private readonly used = new Map<FontId, UsedFont>();
  private finished = false;

  constructor(private readonly pdf: PDF) {}

  private entry(id: FontId): UsedFont {
    let entry = this.used.get(id);
    if (entry === undefined) {
      if (this.finished) throw new Error('DocumentFonts.finish() was already called.');
      const type0 = new PdfDict();
      entry = { ref: this.pdf.register(type0), type0, glyphs: new Map() };
      this.used.set(id, entry);
    }
    return entry;
  }

  /**
   * The name of font `id` in the resources of `page` (added there on first use). The page must
   * have its own /Resources dictionary (see `ownResources` in `pageGeometry.ts` for original pages).
   */
  resourceName(page: PDFPage, id: FontId): string {
    const { ref } = this.entry(id);
    const resolve = (value: PdfRef): PdfObject | null => this.pdf.getObject(value);
    const resources = page.getResources();
    let fonts = resources.get('Font', resolve);
    if (!(fonts instanceof PdfDict)) {
      fonts = new PdfDict();
      resources.set('Font', fonts);
    }
    let free: string | undefined;
    for (let index = 1; free === undefined; index++) {
      const name = `EnvF${index}`;
      const existing = fonts.get(name);
      if (existing instanceof PdfRef && existing.objectNumber === ref.objectNumber && existing.generation === ref.generation) return name;
      if (existing === undefined) free = name;
    }
    fonts.set(free, ref);
    return free;
  }

  /** Advance width of a glyph as the PDF will know it (its /W entry), in 1/1000 em. */
  width(id: FontId, gid: number): number {
    return this.glyph(id, gid).width;
  }

  private glyph(id: FontId, gid: number): { width: number; text: string | undefined } {
    const entry = this.entry(id);
    let glyph = entry.glyphs.get(gid);
    if (glyph === undefined) {
      glyph = { width: Math.round(glyphAdvance(id, gid) * 1000), text: undefined };
      entry.glyphs.set(gid, glyph);
    }
    return glyph;
  }

  /**
   * Records that glyph `gid` is drawn. With `text`, the glyph is to map to `text` in the ToUnicode
   * CMap (`''`: to map to nothing, as the marks of a cluster whose main glyph carries its text); the
   * first use decides.
   * @returns whether the glyph's mapping is exactly `text` (`false` without `text`)
   */
  use(id: FontId, gid: number, text?: string): boolean {
    const glyph = this.glyph(id, gid);
    if (text === undefined) return false;
    glyph.text ??= text;
    return glyph.text === text;
  }

  /** Subsets every font used and writes its objects. Call once, after all drawing. */
  finish(): void {
    if (this.finished) return;
    this.finished = true;
    for (const [id, entry] of this.used) {
      const glyphIds = [...entry.glyphs.keys()].sort((a, b) => a - b);
      const metrics = fontMetrics(id);
      const program = fontProgram(id, glyphIds);
      const name = `${subsetTag(id, program.glyphIds)}+${metrics.postScriptName}`;
      const fontFile = new PdfStream(PdfDict.of({ Length1: PdfNumber.of(program.length), Filter: PdfName.of('FlateDecode') }), program.compressed);
      const descriptor = PdfDict.of({
        Type: PdfName.of('FontDescriptor'),
        FontName: PdfName.of(name),
        // Symbolic (bit 3), and Script (bit 4) for the handwriting font.
        Flags: PdfNumber.of(4 | (id === 'handwriting' ? 8 : 0)),
        FontBBox: new PdfArray(metrics.bbox.map((value) => PdfNumber.of(value))),
        ItalicAngle: PdfNumber.of(metrics.italicAngle),
        Ascent: PdfNumber.of(metrics.ascent),
        Descent: PdfNumber.of(metrics.descent),
        CapHeight: PdfNumber.of(metrics.capHeight),
        StemV: PdfNumber.of(80),
        FontFile2: this.pdf.register(fontFile),
      });
      const cidFont = PdfDict.of({
        Type: PdfName.of('Font'),
        Subtype: PdfName.of('CIDFontType2'),
        BaseFont: PdfName.of(name),
        CIDSystemInfo: PdfDict.of({
          Registry: PdfString.fromString('Adobe'),
          Ordering: PdfString.fromString('Identity'),
          Supplement: PdfNumber.of(0),
        }),
        FontDescriptor: this.pdf.register(descriptor),
        CIDToGIDMap: PdfName.of('Identity'),
        W: widthsArray(glyphIds.map((gid) => [gid, entry.glyphs.get(gid)?.width ?? 0])),
      });
      const mapped = glyphIds.flatMap((gid): [number, string][] => {
        const text = entry.glyphs.get(gid)?.text;
        return text === undefined || text === '' ? [] : [[gid, text]];
      });
      entry.type0.set('Type', PdfName.of('Font'));
      entry.type0.set('Subtype', PdfName.of('Type0'));
      entry.type0.set('BaseFont', PdfName.of(name));
      entry.type0.set('Encoding', PdfName.of('Identity-H'));
      entry.type0.set('DescendantFonts', new PdfArray([this.pdf.register(cidFont)]));
      entry.type0.set('ToUnicode', this.pdf.register(new PdfStream(new PdfDict(), toUnicodeCMap(mapped))));
    }
  }
}
