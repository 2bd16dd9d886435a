/**
 * Draws shaped text (`shaping.ts`) as real text: glyph ids of subsetted Type0 fonts
 * (`fontEmbedding.ts`) placed where the shaper put them, extractable in logical order.
 *
 * Extraction: every HarfBuzz cluster (the glyphs that stand for a group of characters) gives its
 * characters back once, in logical order, by one of two means:
 * - through the fonts' ToUnicode CMaps: a cluster's main glyph (its widest) maps to the cluster's
 *   whole text (one character, or several for a ligature such as Arabic lam-alef), its other glyphs
 *   (marks, dots, a vowel sign drawn before its consonant) map to nothing;
 * - where that cannot work because the glyph already maps to other text elsewhere, or for several
 *   glyphs in a left-to-right cluster (Indic conjuncts and reordered vowel signs), through a
 *   marked-content span with `/ActualText` (ISO 32000-1 §14.9.4) holding the cluster's characters.
 * Right-to-left runs use spans only for conflicts: extraction tools reorder right-to-left text from
 * the glyphs' positions, and poppler treats a span's text as laid out left to right (it would
 * reverse an Arabic word given in one span, and reads a span around joined glyphs as a word break).
 *
 * Runs only inside a seal worker (it uses @libpdf/core).
 */
import { PdfArray, PdfDict, PdfNumber, PdfString, ops } from '@libpdf/core';
import type { PDF, PDFPage, PdfObject } from '@libpdf/core';
import { DocumentFonts } from './fontEmbedding.js';
import type { Operator } from './pageGeometry.js';
import { layoutLine, layoutParagraph as layoutShaped } from './shaping.js';
import type { Face, GlyphRun, Line, ShapedGlyph } from './shaping.js';

export type { Face, Line } from './shaping.js';

/**
 * Lays out a paragraph in lines no wider than `maxWidth` points at `size` points (see
 * `shaping.ts` for cleaning, fonts, bidi and breaking). Widths of the lines are in em.
 */
export function layoutParagraph(text: string, options: { face: Face; size: number; maxWidth: number }): Line[] {
  return layoutShaped(text, options.face, options.maxWidth / options.size);
}

/** Shapes a text as one line, however long. Its width is in em. */
export function layoutSingleLine(text: string, face: Face): Line {
  return layoutLine(text, face);
}

/** A cluster: the glyphs (visual order) that stand for `text` (logical order). */
interface Cluster {
  text: string;
  glyphs: ShapedGlyph[];
}

/** Groups a run's glyphs by HarfBuzz cluster; each cluster's text runs to the next cluster's start. */
function clustersOf(run: GlyphRun): Cluster[] {
  const starts = [...new Set(run.glyphs.map((glyph) => glyph.cluster))].sort((a, b) => a - b);
  const endOf = new Map(starts.map((start, index) => [start, starts[index + 1] ?? run.end]));
  const clusters: Cluster[] = [];
  for (const glyph of run.glyphs) {
    const last = clusters.at(-1);
    if (last !== undefined && last.glyphs[0]?.cluster === glyph.cluster) {
      last.glyphs.push(glyph);
    } else {
      clusters.push({ text: run.text.slice(glyph.cluster, endOf.get(glyph.cluster) ?? run.end), glyphs: [glyph] });
    }
  }
  return clusters;
}

const round = (value: number): number => Math.round(value * 100) / 100;

/** Draws laid-out lines onto the pages of one document; call {@link finish} before saving it. */
export class TextPainter {
  readonly fonts: DocumentFonts;

  constructor(pdf: PDF) {
    this.fonts = new DocumentFonts(pdf);
  }

  /**
   * The operators (one text object) that draw `line` with its baseline starting at (x, y), in the
   * current user space, at `size` points; `gray` is the fill colour, 0 (black) to 1 (white).
   * Registers the fonts in `page`'s resources.
   */
  lineOperators(page: PDFPage, line: Line, options: { x: number; y: number; size: number; gray?: number }): Operator[] {
    const { size } = options;
    const operators: Operator[] = [ops.beginText(), ops.setNonStrokingGray(options.gray ?? 0)];
    let x = options.x;
    for (const run of line.runs) {
      if (run.glyphs.length === 0) continue;
      operators.push(
        ops.setFont(`/${this.fonts.resourceName(page, run.font)}`, size),
        ops.setTextMatrix(1, 0, 0, 1, round(x), round(options.y)),
      );
      this.runOperators(run, size, operators);
      x += run.width * size;
    }
    operators.push(ops.endText());
    return operators;
  }

  /** Draws `line` (see {@link lineOperators}). */
  drawLine(page: PDFPage, line: Line, options: { x: number; y: number; size: number; gray?: number }): void {
    page.drawOperators(this.lineOperators(page, line, options));
  }

  /** Subsets and writes the fonts used. Call once, after all drawing, before saving. */
  finish(): void {
    this.fonts.finish();
  }

  /**
   * Records a cluster's glyphs for its font's ToUnicode map.
   * @returns whether the map alone gives the cluster's text back (else it needs an /ActualText span)
   */
  private mapCluster(run: GlyphRun, cluster: Cluster): boolean {
    let main = cluster.glyphs[0];
    for (const glyph of cluster.glyphs) if (main === undefined || glyph.advance > main.advance) main = glyph;
    const mappable = cluster.glyphs.length === 1 || run.rtl;
    let mapped = mappable;
    for (const glyph of cluster.glyphs) {
      const text = !mappable ? undefined : glyph === main ? cluster.text : '';
      mapped = this.fonts.use(run.font, glyph.gid, text) && mapped;
    }
    return mapped;
  }

  private runOperators(run: GlyphRun, size: number, operators: Operator[]): void {
    let parts: PdfObject[] = [];
    let bytes: number[] = [];
    let rise = 0;
    /** Where the shaper puts the pen, and where the PDF's glyph widths put it, in em from the run's start. */
    let pen = 0;
    let pdfPen = 0;
    const flushBytes = (): void => {
      if (bytes.length > 0) parts.push(PdfString.fromBytes(Uint8Array.from(bytes)));
      bytes = [];
    };
    const flush = (): void => {
      flushBytes();
      if (parts.length > 0) operators.push(ops.showTextArray(new PdfArray(parts)));
      parts = [];
    };
    for (const cluster of clustersOf(run)) {
      const actualText = !this.mapCluster(run, cluster);
      if (actualText) {
        flush();
        const properties = new PdfDict();
        properties.set('ActualText', PdfString.fromString(cluster.text));
        operators.push(ops.beginMarkedContentProps('/Span', properties));
      }
      // Where each glyph goes; the main glyph (on the baseline) is drawn first and the marks after it,
      // so that extraction meets the cluster's text before any raised or lowered mark.
      const placed = cluster.glyphs.map((glyph) => {
        const target = pen + glyph.dx;
        pen += glyph.advance;
        return { glyph, target };
      });
      placed.sort((a, b) => Number(b.glyph.dy === 0 && b.glyph.advance > 0) - Number(a.glyph.dy === 0 && a.glyph.advance > 0));
      for (const { glyph, target } of placed) {
        if (Math.abs(glyph.dy - rise) > 1e-4) {
          flush();
          rise = glyph.dy;
          operators.push(ops.setTextRise(round(rise * size)));
        }
        const shift = Math.round((target - pdfPen) * 100000) / 100;
        if (Math.abs(shift) >= 0.01) {
          flushBytes();
          // A positive number in a TJ array moves the next glyph left (ISO 32000-1 §9.4.3).
          parts.push(PdfNumber.of(-shift));
        }
        bytes.push((glyph.gid >> 8) & 0xff, glyph.gid & 0xff);
        pdfPen = target + this.fonts.width(run.font, glyph.gid) / 1000;
      }
      if (actualText) {
        flush();
        operators.push(ops.endMarkedContent());
      }
    }
    flush();
    if (rise !== 0) operators.push(ops.setTextRise(0));
  }
}
