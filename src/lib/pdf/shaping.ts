/**
 * Text shaping and line layout for everything the service draws as text (certificate of
 * completion, field values): cleaning, font choice per script, the Unicode Bidirectional Algorithm
 * (UAX #9, via bidi-js), shaping with HarfBuzz (harfbuzzjs: Arabic joining and ligatures, Indic
 * reordering and conjuncts, Thai marks, Hangul, emoji sequences, kerning), line breaking, and
 * reordering of each line into visual order.
 *
 * The output is glyph ids with positions, grouped into runs of one font and one direction, each glyph
 * knowing the characters (its HarfBuzz cluster) it stands for, so that the painter can make the text
 * extractable in logical order (`textLayout.ts`).
 *
 * Fonts are parsed once per thread; a paragraph is shaped once to measure it and, only when it has
 * to be broken into several lines, each line is shaped again on its own (a line break inside a word
 * changes its shaping, for instance Arabic joining).
 *
 * Runs only inside a seal worker (harfbuzzjs is loaded with a top-level await of its WebAssembly).
 */
import * as harfbuzz from 'harfbuzzjs';
import bidiImport from 'bidi-js';
import type { Bidi } from 'bidi-js';
import { LruCache } from '../lruCache.js';
import { FALLBACK_ORDER, PRIMARY_SCRIPTS, SCRIPT_FONTS, fontBytes } from './fonts.js';
import type { FontId } from './fonts.js';

/** The style of a piece of text: which font draws the scripts it can. */
export type Face = 'regular' | 'bold' | 'handwriting';

const PRIMARY: Record<Face, FontId> = { regular: 'sans', bold: 'sansBold', handwriting: 'handwriting' };

/** One glyph, positioned by the shaper. Lengths are in em (multiply by the font size for points). */
export interface ShapedGlyph {
  /** Glyph id in the font (never 0, `.notdef`, for a character some font has). */
  gid: number;
  /** UTF-16 offset, in the paragraph's cleaned text, of the first character of the glyph's cluster. */
  cluster: number;
  /** Pen advance after the glyph. */
  advance: number;
  /** Offset of the glyph from the pen position (marks, kerning pairs that move glyphs). */
  dx: number;
  dy: number;
}

/** Glyphs of one font and one direction, in visual (left to right) order. */
export interface GlyphRun {
  font: FontId;
  rtl: boolean;
  /** The cleaned paragraph text the clusters index into. */
  text: string;
  /** UTF-16 range of the run in `text`. */
  start: number;
  end: number;
  glyphs: ShapedGlyph[];
  /** Sum of the advances, in em. */
  width: number;
}

/** One laid-out line: runs in visual order and its width in em. */
export interface Line {
  runs: GlyphRun[];
  width: number;
}

// bidi-js is a UMD bundle whose module.exports is the factory, while its types describe an ES default export.
const bidiFactory = (typeof bidiImport === 'function'
  ? bidiImport
  : (bidiImport as unknown as { default: () => Bidi }).default) as () => Bidi;
const bidi = bidiFactory();

/**
 * Makes arbitrary user text safe to typeset: lone surrogates become U+FFFD, NFC, control characters
 * and line breaks become spaces, explicit bidi formatting characters (which could make a name
 * display as something else), zero-width spaces, BOMs and soft hyphens are removed, runs of white
 * space collapse to one space. Zero-width joiners and non-joiners stay: they are part of how some
 * scripts and emoji are written.
 */
export function cleanText(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .normalize('NFC')
    .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
    .replace(/[\u200B\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF\u00AD\u061C]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

// ---------------------------------------------------------------------------------------------
// Fonts as HarfBuzz sees them

interface ShapingFont {
  font: harfbuzz.Font;
  upem: number;
  /** Code point → whether the font maps it to a glyph (memoised; HarfBuzz answers from the cmap). */
  coverage: Map<number, boolean>;
}

const shapingFonts = new Map<FontId, ShapingFont>();

function shapingFont(id: FontId): ShapingFont {
  let entry = shapingFonts.get(id);
  if (entry === undefined) {
    const face = new harfbuzz.Face(new harfbuzz.Blob(fontBytes(id)), 0);
    entry = { font: new harfbuzz.Font(face), upem: face.upem, coverage: new Map() };
    shapingFonts.set(id, entry);
  }
  return entry;
}

/** Whether `font` has a glyph for `codePoint`. */
export function covers(id: FontId, codePoint: number): boolean {
  const entry = shapingFont(id);
  let answer = entry.coverage.get(codePoint);
  if (answer === undefined) {
    const glyph = entry.font.nominalGlyph(codePoint);
    answer = glyph !== undefined && glyph !== 0;
    entry.coverage.set(codePoint, answer);
  }
  return answer;
}

/** Advance width of a glyph, in em. */
export function glyphAdvance(id: FontId, gid: number): number {
  const entry = shapingFont(id);
  return entry.font.glyphHAdvance(gid) / entry.upem;
}

/** The HarfBuzz face of a font (for its tables and names when it is embedded). */
export function harfbuzzFace(id: FontId): harfbuzz.Face {
  return shapingFont(id).font.face;
}

/** The nominal glyph of U+FFFD in Noto Sans: drawn for a character that no font has. */
function replacementGlyph(): number {
  return shapingFont('sans').font.nominalGlyph(0xfffd) ?? 0;
}

// ---------------------------------------------------------------------------------------------
// Scripts and font choice

const SCRIPT_TESTS: readonly [string, RegExp][] = Object.keys(SCRIPT_FONTS).map((script) => [script, new RegExp(`\\p{Script=${script}}`, 'u')]);
const COMMON = /[\p{Script=Common}\p{Script=Inherited}]/u;
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const MARK = /\p{M}/u;
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const ZWJ = 0x200d;
const VS16 = 0xfe0f;
const KEYCAP = 0x20e3;

/** A code point's script among those with a font of their own, `null` for Common and Inherited, `'other'` else. */
const scriptCache = new Map<number, string | null>();
function scriptOf(codePoint: number): string | null {
  let script = scriptCache.get(codePoint);
  if (script !== undefined) return script;
  const char = String.fromCodePoint(codePoint);
  if (COMMON.test(char)) script = null;
  else script = SCRIPT_TESTS.find(([, test]) => test.test(char))?.[0] ?? 'other';
  scriptCache.set(codePoint, script);
  return script;
}

const fallbackCache = new Map<number, FontId | null>();
function fallbackFont(codePoint: number): FontId | null {
  let font = fallbackCache.get(codePoint);
  if (font === undefined) {
    font = FALLBACK_ORDER.find((id) => covers(id, codePoint)) ?? null;
    fallbackCache.set(codePoint, font);
  }
  return font;
}

function primaryServes(primary: FontId, script: string): boolean {
  const scripts = PRIMARY_SCRIPTS[primary];
  return scripts === undefined ? SCRIPT_FONTS[script] === primary : scripts.includes(script);
}

/** One code point of the text with its UTF-16 offset. */
interface CodePoint {
  value: number;
  offset: number;
  length: number;
}

/**
 * The font of every code point (`null` where none has it: drawn as U+FFFD). Characters of a script
 * go to the primary font when it serves that script and has the glyph, else to the script's font;
 * emoji to the emoji font; Common and Inherited characters (spaces, punctuation, digits, combining
 * marks, joiners, variation selectors) stay in the font of the text around them when it has them.
 */
function assignFonts(codePoints: readonly CodePoint[], primary: FontId): (FontId | null)[] {
  const fonts: (FontId | null | undefined)[] = codePoints.map((cp, index) => {
    const { value } = cp;
    const char = String.fromCodePoint(value);
    const next = codePoints[index + 1]?.value;
    const previous = codePoints[index - 1]?.value;
    if (IGNORABLE.test(char)) return undefined;
    const keycap = /[0-9#*]/.test(char) && (next === KEYCAP || (next === VS16 && codePoints[index + 2]?.value === KEYCAP));
    const emoji =
      keycap ||
      (EMOJI_PRESENTATION.test(char) && value > 0xff) ||
      (PICTOGRAPHIC.test(char) && (next === VS16 || previous === ZWJ));
    if (emoji && covers('emoji', value)) return 'emoji';
    const script = scriptOf(value);
    if (script === null) return undefined;
    if (primaryServes(primary, script) && covers(primary, value)) return primary;
    const own = SCRIPT_FONTS[script];
    if (own !== undefined && covers(own, value)) return own;
    return fallbackFont(value);
  });
  // Common characters follow the text before them, else the text after them.
  const resolved: (FontId | null)[] = [];
  for (let index = 0; index < codePoints.length; index++) {
    const font = fonts[index];
    if (font !== undefined) {
      resolved.push(font);
      continue;
    }
    const cp = codePoints[index];
    if (cp === undefined) break;
    const usable = (candidate: FontId | null | undefined): candidate is FontId =>
      candidate !== undefined && candidate !== null && (IGNORABLE.test(String.fromCodePoint(cp.value)) || covers(candidate, cp.value));
    let before = resolved[index - 1];
    let after: FontId | null | undefined;
    for (let ahead = index + 1; ahead < codePoints.length && after === undefined; ahead++) after = fonts[ahead];
    // Only joiners, variation selectors and combining marks (keycaps) belong to an emoji; a space or
    // punctuation next to one is text.
    const partOfEmoji = IGNORABLE.test(String.fromCodePoint(cp.value)) || MARK.test(String.fromCodePoint(cp.value));
    if (!partOfEmoji) {
      if (before === 'emoji') before = undefined;
      if (after === 'emoji') after = undefined;
    }
    if (usable(before)) resolved.push(before);
    else if (usable(after)) resolved.push(after);
    else if (usable(primary)) resolved.push(primary);
    else resolved.push(IGNORABLE.test(String.fromCodePoint(cp.value)) ? primary : fallbackFont(cp.value));
  }
  return resolved;
}

// ---------------------------------------------------------------------------------------------
// Analysis of a paragraph: code points, fonts, bidi levels

/** Characters of right-to-left scripts (bidi classes R and AL) and the right-to-left marks. */
const RIGHT_TO_LEFT = /[\u0590-\u08FF\u200F\u202B\u202E\u2067\uFB1D-\uFDFF\uFE70-\uFEFF\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;

interface Analysis {
  text: string;
  codePoints: CodePoint[];
  /** Font per code point; `null` = no font has it. */
  fonts: (FontId | null)[];
  /** Bidi embedding level per UTF-16 unit. */
  levels: Uint8Array;
}

function analyse(text: string, face: Face): Analysis {
  const codePoints: CodePoint[] = [];
  for (let offset = 0; offset < text.length; ) {
    const value = text.codePointAt(offset) ?? 0xfffd;
    const length = value > 0xffff ? 2 : 1;
    codePoints.push({ value, offset, length });
    offset += length;
  }
  const fonts = assignFonts(codePoints, PRIMARY[face]);
  // Text without right-to-left characters is all at level 0 (UAX #9 rules P2, P3, W1–W7, N1–N2, I1).
  const levels = RIGHT_TO_LEFT.test(text) ? bidi.getEmbeddingLevels(text, 'auto').levels : new Uint8Array(text.length);
  return { text, codePoints, fonts, levels };
}

/** A maximal range of code points with one font and one bidi level, in logical order. */
interface Item {
  font: FontId | null;
  level: number;
  start: number;
  end: number;
}

/** Splits the code points `[from, to)` (indices into `analysis.codePoints`) into items. */
function itemize(analysis: Analysis, from: number, to: number): Item[] {
  const items: Item[] = [];
  for (let index = from; index < to; index++) {
    const cp = analysis.codePoints[index];
    if (cp === undefined) break;
    const font = analysis.fonts[index] ?? null;
    const level = analysis.levels[cp.offset] ?? 0;
    const last = items.at(-1);
    if (last !== undefined && last.font === font && last.level === level) {
      last.end = cp.offset + cp.length;
    } else {
      items.push({ font, level, start: cp.offset, end: cp.offset + cp.length });
    }
  }
  return items;
}

const buffer = new harfbuzz.Buffer();

/**
 * Shapes one item. `context` is the text HarfBuzz sees around the item (for joining across font
 * changes); clusters are UTF-16 offsets into `analysis.text`, `contextStart` being the offset of
 * `context` in it.
 */
function shapeItem(analysis: Analysis, item: Item, context: string, contextStart: number): GlyphRun {
  const rtl = item.level % 2 === 1;
  const glyphs: ShapedGlyph[] = [];
  if (item.font === null) {
    // No font has these characters: one U+FFFD of Noto Sans per character, in logical order.
    const gid = replacementGlyph();
    const advance = glyphAdvance('sans', gid);
    for (let offset = item.start; offset < item.end; ) {
      glyphs.push({ gid, cluster: offset, advance, dx: 0, dy: 0 });
      offset += (analysis.text.codePointAt(offset) ?? 0) > 0xffff ? 2 : 1;
    }
    if (rtl) glyphs.reverse();
  } else {
    const { font, upem } = shapingFont(item.font);
    buffer.clearContents();
    buffer.addText(context, item.start - contextStart, item.end - item.start);
    buffer.setDirection(rtl ? harfbuzz.Direction.RTL : harfbuzz.Direction.LTR);
    // Joiners and variation selectors do their work in shaping and leave no glyph behind.
    buffer.setFlags(harfbuzz.BufferFlag.REMOVE_DEFAULT_IGNORABLES);
    buffer.guessSegmentProperties();
    harfbuzz.shape(font, buffer);
    // (getGlyphInfosAndPositions is several times slower: it defines hidden properties on every glyph.)
    const infos = buffer.getGlyphInfos();
    const positions = buffer.getGlyphPositions();
    infos.forEach((info, index) => {
      const position = positions[index];
      glyphs.push({
        gid: info.codepoint,
        cluster: info.cluster + contextStart,
        advance: (position?.xAdvance ?? 0) / upem,
        dx: (position?.xOffset ?? 0) / upem,
        dy: (position?.yOffset ?? 0) / upem,
      });
    });
  }
  const width = glyphs.reduce((sum, glyph) => sum + glyph.advance, 0);
  return { font: item.font ?? 'sans', rtl, text: analysis.text, start: item.start, end: item.end, glyphs, width };
}

/**
 * Reorders runs of one line from logical to visual order (UAX #9 rule L2: from the highest level
 * down to the lowest odd one, reverse every sequence of runs at that level or higher). Glyphs inside
 * a right-to-left run are already in visual order (HarfBuzz shapes RTL buffers so, mirroring
 * brackets as it goes).
 */
function visualOrder(runs: GlyphRun[], levels: readonly number[]): GlyphRun[] {
  const order = runs.map((run, index) => ({ run, level: levels[index] ?? 0 }));
  const highest = Math.max(0, ...order.map((entry) => entry.level));
  const oddLevels = order.map((entry) => entry.level).filter((level) => level % 2 === 1);
  const lowestOdd = oddLevels.length === 0 ? highest + 1 : Math.min(...oddLevels);
  for (let level = highest; level >= lowestOdd; level--) {
    let start = 0;
    while (start < order.length) {
      if ((order[start]?.level ?? 0) < level) {
        start++;
        continue;
      }
      let end = start;
      while (end < order.length && (order[end]?.level ?? 0) >= level) end++;
      order.splice(start, end - start, ...order.slice(start, end).reverse());
      start = end;
    }
  }
  return order.map((entry) => entry.run);
}

/** Shapes code points `[from, to)` of the analysis as one line, HarfBuzz seeing only that line. */
function shapeLine(analysis: Analysis, from: number, to: number): Line {
  const first = analysis.codePoints[from];
  const last = analysis.codePoints[to - 1];
  if (first === undefined || last === undefined) return { runs: [], width: 0 };
  const lineStart = first.offset;
  const context = analysis.text.slice(lineStart, last.offset + last.length);
  const items = itemize(analysis, from, to);
  const runs = items.map((item) => shapeItem(analysis, item, context, lineStart));
  return { runs: visualOrder(runs, items.map((item) => item.level)), width: runs.reduce((sum, run) => sum + run.width, 0) };
}

// ---------------------------------------------------------------------------------------------
// Line breaking

/**
 * How good a line break is: 1 after a space or between ideographs and between Thai (and similar)
 * words; 2 inside a long e-mail address, id or path (after `@` and `/`, before `.`, `-`, `_`, `~`,
 * docs/api.md#evidence: "breaks at @ or . before it breaks inside a word"); 3 between any two graphemes.
 */
type BreakTier = 1 | 2 | 3;

const NO_SPACE_SCRIPTS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}]/u;
const SEGMENTED_SCRIPTS = /[\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** No line starts with these (closing CJK punctuation) nor ends with the opening ones. */
const NO_LINE_START = /[、。，．：；！？）」』】〉》〕〙〗・ー々ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ)\]}!?,.:;]/u;
const NO_LINE_END = /[（「『【〈《〔〘〖([{]/u;

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const words = new Intl.Segmenter('th', { granularity: 'word' });

/** Break opportunities of a text: UTF-16 offset → tier (offsets 0 and `text.length` excluded). */
function breakOpportunities(text: string): Map<number, BreakTier> {
  const breaks = new Map<number, BreakTier>();
  const set = (offset: number, tier: BreakTier): void => {
    if (offset <= 0 || offset >= text.length) return;
    const current = breaks.get(offset);
    if (current === undefined || tier < current) breaks.set(offset, tier);
  };
  const boundaries: number[] = [];
  for (const { index } of graphemes.segment(text)) boundaries.push(index);
  boundaries.push(text.length);
  for (let position = 1; position < boundaries.length - 1; position++) {
    const offset = boundaries[position] ?? 0;
    const before = text.slice(boundaries[position - 1] ?? 0, offset);
    const after = text.slice(offset, boundaries[position + 1] ?? text.length);
    if (before === ' ' && after !== ' ') set(offset, 1);
    else if (
      (NO_SPACE_SCRIPTS.test(before) || NO_SPACE_SCRIPTS.test(after)) &&
      before !== ' ' &&
      after !== ' ' &&
      !NO_LINE_START.test(after) &&
      !NO_LINE_END.test(before)
    ) {
      set(offset, 1);
    } else if (before === '@' || before === '/') set(offset, 2);
    else if (/^[.\-_~]/.test(after) && before !== ' ') set(offset, 2);
    else set(offset, 3);
  }
  if (SEGMENTED_SCRIPTS.test(text)) {
    for (const segment of words.segment(text)) {
      const end = segment.index + segment.segment.length;
      if (SEGMENTED_SCRIPTS.test(segment.segment) || SEGMENTED_SCRIPTS.test(text.slice(end, end + 1))) set(end, 1);
    }
  }
  return breaks;
}

/**
 * Lays out a paragraph: cleaned, shaped in `face`, broken into lines no wider than `maxWidth` (in
 * em: points divided by the font size), each in visual order. Breaks at the best opportunity that
 * fits ({@link BreakTier}); a single grapheme wider than the line stands alone on its line. An empty
 * text gives one empty line.
 */
export function layoutParagraph(text: string, face: Face, maxWidth: number): Line[] {
  return layouts.get(`${face}\0${maxWidth}\0${text}`, () => layoutUncached(text, face, maxWidth));
}

/** Most layouts kept per thread. */
const LAYOUT_CACHE_SIZE = 512;
/**
 * Layouts made so far, by face, width and text. The certificate lays out the same labels, headings
 * and paragraphs for every document, and the values of one envelope more than once; the last
 * {@link LAYOUT_CACHE_SIZE} used are kept for the life of the thread. The lines are shared: callers
 * read them, never change them.
 */
const layouts = new LruCache<string, Line[]>(LAYOUT_CACHE_SIZE);

function layoutUncached(text: string, face: Face, maxWidth: number): Line[] {
  const analysis = analyse(cleanText(text), face);
  const count = analysis.codePoints.length;
  if (count === 0) return [{ runs: [], width: 0 }];
  const whole = shapeLine(analysis, 0, count);
  if (whole.width <= maxWidth) return [whole];

  // Advance of every UTF-16 offset (a cluster's advance counted at its first character), summed.
  const advances = new Float64Array(analysis.text.length + 1);
  for (const run of whole.runs) for (const glyph of run.glyphs) advances[glyph.cluster + 1] = (advances[glyph.cluster + 1] ?? 0) + glyph.advance;
  for (let offset = 1; offset < advances.length; offset++) advances[offset] = (advances[offset] ?? 0) + (advances[offset - 1] ?? 0);
  const widthBetween = (from: number, to: number): number => {
    let end = to;
    while (end > from && analysis.text[end - 1] === ' ') end--;
    return (advances[end] ?? 0) - (advances[from] ?? 0);
  };

  const breaks = [...breakOpportunities(analysis.text)].sort((a, b) => a[0] - b[0]);
  const indexOfOffset = new Map(analysis.codePoints.map((cp, index) => [cp.offset, index]));
  const lines: Line[] = [];
  let start = 0;
  while (start < analysis.text.length) {
    while (analysis.text[start] === ' ') start++;
    if (start >= analysis.text.length) break;
    let end = analysis.text.length;
    if (widthBetween(start, end) > maxWidth) {
      const candidates = breaks.filter(([offset]) => offset > start);
      let chosen: number | undefined;
      for (const tier of [1, 2, 3] as const) {
        for (const [offset, breakTier] of candidates) {
          if (widthBetween(start, offset) > maxWidth) break;
          if (breakTier <= tier) chosen = offset;
        }
        if (chosen !== undefined) break;
      }
      end = chosen ?? candidates[0]?.[0] ?? analysis.text.length;
    }
    let trimmed = end;
    while (trimmed > start && analysis.text[trimmed - 1] === ' ') trimmed--;
    const from = indexOfOffset.get(start) ?? 0;
    const to = indexOfOffset.get(trimmed) ?? count;
    lines.push(shapeLine(analysis, from, to));
    start = end;
  }
  return lines.length === 0 ? [{ runs: [], width: 0 }] : lines;
}

/** Shapes a text as a single line (no breaking), in `face`. */
export function layoutLine(text: string, face: Face): Line {
  const [line] = layouts.get(`${face}\0line\0${text}`, () => {
    const analysis = analyse(cleanText(text), face);
    return [shapeLine(analysis, 0, analysis.codePoints.length)];
  });
  return line!;
}
