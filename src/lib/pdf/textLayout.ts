/**
 * Multilingual text for the certificate pages: font fallback per character, Arabic shaping,
 * bidirectional reordering (Unicode Bidirectional Algorithm, UAX #9, via bidi-js), line wrapping,
 * and drawing as real text (subsetted Type0 fonts with ToUnicode maps) so that `pdftotext` and
 * copy-paste give back the original characters.
 *
 * Arabic letters are drawn as their Unicode presentation forms (isolated, initial, medial, final),
 * chosen from each letter's joining type, which the fonts map directly; each such glyph carries an
 * `/ActualText` marked-content span with the letter it stands for (ISO 32000-1 §14.9.4), so
 * extraction yields the base letters in logical order. Lam-alef ligatures are not formed (two
 * joined glyphs instead), so every glyph stands for exactly one character. A character that no
 * font covers is drawn as U+FFFD with `/ActualText` of the original character.
 *
 * Runs only inside a seal worker (it uses @libpdf/core).
 */
import bidiImport from 'bidi-js';
import type { Bidi } from 'bidi-js';
import { PDF, PdfDict, PdfString, ops } from '@libpdf/core';
import type { EmbeddedFont, PDFPage } from '@libpdf/core';
import { FALLBACK_CHAIN, fontBytes } from './fonts.js';
import type { FontId } from './fonts.js';

/** Weight of a piece of text. */
export type Face = 'regular' | 'bold';

/** One glyph of laid-out text. */
export interface Glyph {
  /** The character drawn: a presentation form for Arabic, a mirrored bracket in right-to-left text, U+FFFD where no font has one. */
  drawn: string;
  /** The character of the text it stands for (what extraction must give). */
  source: string;
  font: FontId;
  /** Advance width at font size 1, in text space units (so `advance * size` is points). */
  advance: number;
  /** Unicode general category Mn (combining mark): drawn after its base, never separated from it. */
  mark: boolean;
}

/** A line of glyphs in logical order, with its width at font size 1. */
export interface Line {
  glyphs: Glyph[];
  width: number;
}

// bidi-js is a UMD bundle whose module.exports is the factory, while its types describe an ES default export.
const bidiFactory = (typeof bidiImport === 'function'
  ? bidiImport
  : (bidiImport as unknown as { default: () => Bidi }).default) as () => Bidi;
const bidi = bidiFactory();

const REPLACEMENT = '\uFFFD';
const ZWNJ = '\u200C';
const ZWJ = '\u200D';
const TATWEEL = '\u0640';

/**
 * Arabic positional forms, derived from Unicode's own compatibility mappings: in the presentation
 * form blocks each letter's forms are consecutive (isolated, final[, initial, medial]) and NFKC maps
 * each back to the letter. Four forms = dual-joining, two = right-joining, one = non-joining.
 */
interface ArabicForms {
  isol: string;
  fina?: string;
  init?: string;
  medi?: string;
}

const arabicForms: ReadonlyMap<string, ArabicForms> = (() => {
  const table = new Map<string, ArabicForms>();
  const addRange = (from: number, to: number): void => {
    let group: string[] = [];
    let base = '';
    const flush = (): void => {
      const [isol, fina, init, medi] = group;
      if (isol !== undefined && !table.has(base) && (group.length === 1 || group.length === 2 || group.length === 4)) {
        table.set(base, group.length === 4 ? { isol, fina, init, medi } : group.length === 2 ? { isol, fina } : { isol });
      }
      group = [];
    };
    for (let codePoint = from; codePoint <= to; codePoint++) {
      const form = String.fromCodePoint(codePoint);
      const letter = form.normalize('NFKC');
      // Only single letters: ligatures (lam-alef and the like) and spacing marks are left out.
      if ([...letter].length !== 1 || letter === form || !/\p{Script=Arabic}/u.test(letter)) {
        flush();
        base = '';
        continue;
      }
      if (letter !== base) {
        flush();
        base = letter;
      }
      group.push(form);
    }
    flush();
  };
  addRange(0xfb50, 0xfbff); // Arabic Presentation Forms-A: Persian, Urdu and other extra letters
  addRange(0xfe80, 0xfefc); // Arabic Presentation Forms-B: the basic alphabet
  return table;
})();

const isMark = (char: string): boolean => /\p{Mn}/u.test(char);
const joinsForward = (char: string): boolean =>
  char === ZWJ || char === TATWEEL || arabicForms.get(char)?.init !== undefined;
const joinsBackward = (char: string): boolean =>
  char === ZWJ || char === TATWEEL || arabicForms.get(char)?.fina !== undefined;

/** Chooses each Arabic letter's positional form from its neighbours (transparent marks skipped). */
function arabicPositionalForms(chars: readonly string[]): string[] {
  return chars.map((char, index) => {
    const forms = arabicForms.get(char);
    if (forms === undefined) return char;
    let before = index - 1;
    while (before >= 0 && isMark(chars[before] ?? '')) before--;
    let after = index + 1;
    while (after < chars.length && isMark(chars[after] ?? '')) after++;
    const previous = chars[before];
    const next = chars[after];
    const joinedBefore = forms.fina !== undefined && previous !== undefined && joinsForward(previous);
    const joinedAfter = forms.init !== undefined && next !== undefined && joinsBackward(next);
    if (joinedBefore && joinedAfter) return forms.medi ?? forms.isol;
    if (joinedBefore) return forms.fina ?? forms.isol;
    if (joinedAfter) return forms.init ?? forms.isol;
    return forms.isol;
  });
}

/**
 * Makes arbitrary user text safe to typeset: NFC, control characters and line breaks become spaces,
 * explicit bidi formatting characters (which could make a name display as something else) and
 * invisible characters are removed, runs of white space collapse to one space.
 */
function cleanText(text: string): string {
  return text
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, REPLACEMENT)
    .normalize('NFC')
    .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
    .replace(/[\u200B\u200E\u200F\u202A-\u202E\u2060-\u2069\uFEFF\u00AD]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Breaking between any two of these is allowed (no spaces in Chinese and Japanese). */
const breakAnywhere = (char: string): boolean => /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\uFF00-\uFFEF]/u.test(char);

/**
 * Font coverage and metrics, shared by all documents a worker seals: parsed once into a scratch
 * document that is never saved, so measuring and choosing fonts never embeds anything.
 */
class FontCatalog {
  private readonly scratch = PDF.create();
  private readonly fonts = new Map<FontId, EmbeddedFont>();

  font(id: FontId): EmbeddedFont {
    let font = this.fonts.get(id);
    if (font === undefined) {
      font = this.scratch.embedFont(fontBytes(id));
      this.fonts.set(id, font);
    }
    return font;
  }

  covers(id: FontId, char: string): boolean {
    return this.font(id).canEncode(char);
  }

  advance(id: FontId, char: string): number {
    return this.font(id).getWidth(char.codePointAt(0) ?? 0) / 1000;
  }
}

const catalog = new FontCatalog();

/** Turns text into glyphs in logical order: cleaning, Arabic shaping, font fallback per character. */
function toGlyphs(text: string, face: Face): Glyph[] {
  const primary: FontId = face === 'bold' ? 'latinBold' : 'latin';
  const chain: readonly FontId[] = [primary, ...FALLBACK_CHAIN];
  const chars = [...cleanText(text)];
  const shaped = arabicPositionalForms(chars);
  const glyphs: Glyph[] = [];
  chars.forEach((source, index) => {
    if (source === ZWJ || source === ZWNJ) return;
    const mark = isMark(source);
    const previous = glyphs.at(-1);
    let drawn = shaped[index] ?? source;
    let font: FontId | undefined;
    if (mark && previous !== undefined && catalog.covers(previous.font, source)) font = previous.font;
    font ??= chain.find((id) => catalog.covers(id, drawn));
    if (font === undefined && drawn !== source) {
      // The font with this letter lacks its presentation form: draw the letter unshaped.
      drawn = source;
      font = chain.find((id) => catalog.covers(id, drawn));
    }
    if (font === undefined) {
      drawn = REPLACEMENT;
      font = primary;
    }
    glyphs.push({ drawn, source, font, advance: mark ? 0 : catalog.advance(font, drawn), mark });
  });
  return glyphs;
}

const widthOf = (glyphs: readonly Glyph[]): number => glyphs.reduce((sum, glyph) => sum + glyph.advance, 0);

/**
 * Wraps glyphs into lines no wider than `maxWidth` (at font size 1): breaks after spaces and
 * between ideographs, and inside a word only when the word alone is wider than a line (long
 * e-mail addresses, identifiers). Always returns at least one line.
 */
function wrapGlyphs(glyphs: readonly Glyph[], maxWidth: number): Line[] {
  // Segments: a word with the spaces after it, or one ideograph; never broken unless too wide.
  const segments: Glyph[][] = [];
  let current: Glyph[] = [];
  glyphs.forEach((glyph, index) => {
    const next = glyphs[index + 1];
    current.push(glyph);
    const endsHere =
      next === undefined ||
      (glyph.source === ' ' && next.source !== ' ') ||
      (!next.mark && (breakAnywhere(glyph.source) || breakAnywhere(next.source)));
    if (endsHere) {
      segments.push(current);
      current = [];
    }
  });

  const lines: Line[] = [];
  let line: Glyph[] = [];
  const trimmedWidth = (candidate: readonly Glyph[]): number => {
    let end = candidate.length;
    while (end > 0 && candidate[end - 1]?.source === ' ') end--;
    return widthOf(candidate.slice(0, end));
  };
  const pushLine = (): void => {
    let end = line.length;
    while (end > 0 && line[end - 1]?.source === ' ') end--;
    const glyphsOfLine = line.slice(0, end);
    lines.push({ glyphs: glyphsOfLine, width: widthOf(glyphsOfLine) });
    line = [];
  };
  for (const segment of segments) {
    if (trimmedWidth([...line, ...segment]) <= maxWidth) {
      line.push(...segment);
      continue;
    }
    if (line.length > 0) pushLine();
    if (trimmedWidth(segment) <= maxWidth) {
      line.push(...segment);
      continue;
    }
    // A single word wider than the line: break between characters, keeping marks with their base.
    for (const glyph of segment) {
      if (!glyph.mark && line.length > 0 && trimmedWidth([...line, glyph]) > maxWidth) pushLine();
      line.push(glyph);
    }
  }
  if (line.length > 0 || lines.length === 0) pushLine();
  return lines;
}

/**
 * Reorders one line from logical to visual order (UAX #9 rules L1–L4 as bidi-js resolves the
 * levels): runs at odd levels are reversed and mirrored characters swapped. A base character and
 * the combining marks after it move as one cluster, so marks are still drawn after their base.
 */
function visualOrder(glyphs: readonly Glyph[]): Glyph[] {
  const text = glyphs.map((glyph) => glyph.source).join('');
  const resolved = bidi.getEmbeddingLevels(text, 'auto');
  const clusters: { glyphs: Glyph[]; level: number }[] = [];
  let unit = 0;
  for (const glyph of glyphs) {
    // Levels are per UTF-16 code unit; a glyph takes the level of its first unit.
    const level = resolved.levels[unit] ?? 0;
    unit += glyph.source.length;
    const last = clusters.at(-1);
    if (glyph.mark && last !== undefined) {
      last.glyphs.push(glyph);
      continue;
    }
    const mirrored = level % 2 === 1 ? bidi.getMirroredCharacter(glyph.source) : null;
    const drawn = mirrored !== null && catalog.covers(glyph.font, mirrored) ? { ...glyph, drawn: mirrored } : glyph;
    clusters.push({ glyphs: [drawn], level });
  }
  const levels = clusters.map((cluster) => cluster.level);
  const highest = Math.max(0, ...levels);
  const lowestOdd = Math.min(highest + 1, ...levels.map((level) => (level % 2 === 1 ? level : level + 1)));
  for (let level = highest; level >= lowestOdd; level--) {
    let start = 0;
    while (start < clusters.length) {
      if ((clusters[start]?.level ?? 0) < level) {
        start++;
        continue;
      }
      let end = start;
      while (end < clusters.length && (clusters[end]?.level ?? 0) >= level) end++;
      clusters.splice(start, end - start, ...clusters.slice(start, end).reverse());
      start = end;
    }
  }
  return clusters.flatMap((cluster) => cluster.glyphs);
}

/** Draws text onto pages of one document, embedding (subsettable) fonts only as they are used. */
export class TextPainter {
  private readonly embedded = new Map<FontId, EmbeddedFont>();

  constructor(private readonly pdf: PDF) {}

  private font(id: FontId): EmbeddedFont {
    let font = this.embedded.get(id);
    if (font === undefined) {
      font = this.pdf.embedFont(fontBytes(id));
      this.embedded.set(id, font);
    }
    return font;
  }

  /**
   * Draws one line (logical order, as {@link wrapGlyphs} made it) with its baseline at (x, y), in
   * points. `gray` is the fill colour, 0 (black) to 1 (white).
   */
  drawLine(page: PDFPage, line: Line, options: { x: number; y: number; size: number; gray?: number }): void {
    const { size } = options;
    const visual = visualOrder(line.glyphs);
    const operators = [ops.beginText(), ops.setNonStrokingGray(options.gray ?? 0)];
    let x = options.x;
    let index = 0;
    while (index < visual.length) {
      const first = visual[index];
      if (first === undefined) break;
      // A run: glyphs of one font that need no /ActualText, or a single glyph that does.
      const needsActualText = (glyph: Glyph): boolean => glyph.drawn !== glyph.source;
      let end = index + 1;
      if (!needsActualText(first)) {
        while (end < visual.length) {
          const next = visual[end];
          if (next === undefined || next.font !== first.font || needsActualText(next)) break;
          end++;
        }
      } else {
        // Marks over a shaped letter stay inside its span.
        while (end < visual.length && visual[end]?.mark && visual[end]?.font === first.font) end++;
      }
      const run = visual.slice(index, end);
      const font = this.font(first.font);
      const name = page.registerFont(font);
      const shown = ops.showText(encodeGlyphIds(font, run.map((glyph) => glyph.drawn).join('')));
      operators.push(ops.setFont(`/${name}`, size), ops.setTextMatrix(1, 0, 0, 1, round(x), round(options.y)));
      if (needsActualText(first)) {
        const properties = new PdfDict();
        properties.set('ActualText', PdfString.fromString(run.map((glyph) => glyph.source).join('')));
        operators.push(ops.beginMarkedContentProps('/Span', properties), shown, ops.endMarkedContent());
      } else {
        operators.push(shown);
      }
      x += widthOf(run) * size;
      index = end;
    }
    operators.push(ops.endText());
    page.drawOperators(operators);
  }
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** Identity-H encoding of an embedded font: two bytes per glyph id (this also records the glyphs for subsetting). */
function encodeGlyphIds(font: EmbeddedFont, text: string): PdfString {
  const glyphIds = font.encodeTextToGids(text);
  const bytes = new Uint8Array(glyphIds.length * 2);
  glyphIds.forEach((glyphId, index) => {
    bytes[index * 2] = (glyphId >> 8) & 0xff;
    bytes[index * 2 + 1] = glyphId & 0xff;
  });
  return PdfString.fromBytes(bytes);
}

/** Lays out a paragraph: glyphs for `text` in `face`, wrapped to `maxWidth` points at `size` points. */
export function layoutParagraph(text: string, options: { face: Face; size: number; maxWidth: number }): Line[] {
  return wrapGlyphs(toGlyphs(text, options.face), options.maxWidth / options.size);
}
