/**
 * Draws the recipients' field values into the pages of the document (docs/api.md#what-completion-does step 2, §11.2),
 * each inside its field's rectangle and clipped to it, so that nothing outside a rectangle changes:
 *
 * - `signature`, `initials`: ink strokes as smooth vector paths mapped onto the rectangle (the points
 *   are fractions of it, as the signing pad recorded them), the stroke width proportional to the
 *   rectangle's height; a typed value in the handwriting font (Caveat), falling back to the Noto fonts
 *   for scripts it lacks, on one line, as large as the rectangle allows (it shrinks without limit:
 *   a signature is never wrapped or cut).
 * - `text`, `name`, `email`, `date_signed`, `number`, `date`, `dropdown` (the chosen option): real text in Noto Sans (shaped like the certificate's, so
 *   any script is drawn), on one line, as large as fits up to the rectangle's height; when it would
 *   have to be smaller than {@link MIN_FONT_SIZE} on one line, it wraps onto several lines at the
 *   largest size at which all of it fits the rectangle (below the minimum if need be). The whole value
 *   is always drawn, and always extractable; only the clip guards the rectangle's edges.
 * - `checkbox`: `true` draws a tick, `false` nothing.
 * - `image`: the signer's JPEG or PNG, as large as the rectangle allows, its aspect ratio kept, centred.
 * - A field made from a text tag (`background: 'white'`) first paints its rectangle opaque white,
 *   value or not, so that the tag's text never shows (docs/api.md#fields-from-the-document).
 *
 * Rectangles are fractions 0 to 1 of the page as a viewer displays it (crop box after /Rotate),
 * origin top-left; the drawing is upright as displayed, whatever the page's rotation and however its
 * crop box sits in the media box.
 *
 * Runs only inside a seal worker (it uses @libpdf/core).
 */
import { ops } from '@libpdf/core';
import type { PDF, PDFPage } from '@libpdf/core';
import { inkOperators } from './ink.js';
import type { Rect } from './ink.js';
import { displayedPage, ownResources } from './pageGeometry.js';
import type { Operator } from './pageGeometry.js';
import { TextPainter, layoutParagraph, layoutSingleLine } from './textLayout.js';
import type { Face, Line } from './textLayout.js';
import type { FieldDrawing, SignatureValue } from './types.js';

/** Smallest font size, in points, at which a text value is kept on one line before it wraps. */
export const MIN_FONT_SIZE = 6;
/**
 * Line height and the room below the baseline, in em: Noto's glyphs reach about 1.05 em above the
 * baseline (accented capitals, Indic and Thai marks) and 0.3 em below it, so a line of text stays
 * inside its box.
 */
const LINE_HEIGHT = 1.35;
const DESCENT = 0.3;

const clamp = (value: number): number => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** Lines of text placed in a rectangle: their size and baselines. */
interface PlacedText {
  lines: Line[];
  size: number;
}

/**
 * Fits `text` into a `width` × `height` box (points). One line at the largest size up to what the
 * height allows; below `minimum` (when given) it wraps instead, at the largest size that fits.
 */
function fitText(text: string, face: Face, width: number, height: number, minimum: number | undefined): PlacedText {
  const line = layoutSingleLine(text, face);
  const tallest = height / LINE_HEIGHT;
  const single = line.width > 0 ? Math.min(tallest, width / line.width) : tallest;
  if (minimum === undefined || single >= minimum || single >= tallest) return { lines: [line], size: single };
  // Several lines: shrink from the single-line height until every line fits the box.
  for (let size = tallest; size > 0.5; size *= 0.94) {
    const lines = layoutParagraph(text, { face, size, maxWidth: width });
    const widest = Math.max(...lines.map((candidate) => candidate.width * size));
    if (lines.length * size * LINE_HEIGHT <= height && widest <= width + 0.01) return { lines, size };
  }
  return { lines: [line], size: single };
}

/**
 * Draws `drawings` into the pages of `pdf` (see the module comment). A drawing on a page the document
 * does not have, or with an empty rectangle, is skipped (the service checks fields against the
 * frozen document when the envelope is sent, docs/api.md#fields).
 */
export function drawFieldValues(pdf: PDF, drawings: readonly FieldDrawing[]): void {
  if (drawings.length === 0) return;
  const painter = new TextPainter(pdf);
  const pages = new Map<number, { page: PDFPage; operators: Operator[] }>();
  for (const drawing of drawings) {
    const page = Number.isInteger(drawing.page) ? pdf.getPage(drawing.page - 1) : null;
    if (page === null) continue;
    const x = clamp(drawing.x);
    const y = clamp(drawing.y);
    const width = Math.min(clamp(drawing.width), 1 - x);
    const height = Math.min(clamp(drawing.height), 1 - y);
    if (width <= 0 || height <= 0) continue;
    let target = pages.get(drawing.page);
    if (target === undefined) {
      ownResources(pdf, page);
      target = { page, operators: [] };
      pages.set(drawing.page, target);
    }
    const displayed = displayedPage(pdf, page);
    // The rectangle in displayed coordinates (origin bottom-left, y up).
    const rect: Rect = {
      x: x * displayed.width,
      y: (1 - y - height) * displayed.height,
      width: width * displayed.width,
      height: height * displayed.height,
    };
    const content = [...(drawing.background === 'white' ? whiteOperators(rect) : []), ...(isImage(drawing.value) ? imageOperators(pdf, page, drawing.value.image, rect) : valueOperators(painter, page, drawing, rect))];
    if (content.length === 0) continue;
    target.operators.push(
      ops.pushGraphicsState(),
      ops.concatMatrix(...displayed.toUserSpace),
      ops.rectangle(rect.x, rect.y, rect.width, rect.height),
      ops.clip(),
      ops.endPath(),
      ...content,
      ops.popGraphicsState(),
    );
  }
  for (const { page, operators } of pages.values()) if (operators.length > 0) page.drawOperators(operators);
  painter.finish();
}

/** The operators that draw one value in `rect` (displayed coordinates), or none. */
function valueOperators(painter: TextPainter, page: PDFPage, drawing: FieldDrawing, rect: Rect): Operator[] {
  const { type, value } = drawing;
  switch (type) {
    case 'checkbox':
      return value === true ? tickOperators(rect) : [];
    case 'signature':
    case 'initials': {
      const signature = asSignature(value);
      if (signature === null) return [];
      if ('strokes' in signature) return inkOperators(signature.strokes, rect, Math.max(0.5, rect.height * 0.035));
      return textOperators(painter, page, signature.typed, 'handwriting', rect, undefined);
    }
    default: {
      const text = typeof value === 'string' ? value : '';
      return text.trim() === '' ? [] : textOperators(painter, page, text, 'regular', rect, MIN_FONT_SIZE);
    }
  }
}

/** Whether a drawing's value is an image's bytes (`image` fields, docs/api.md#files-from-signers). */
function isImage(value: FieldDrawing['value']): value is { image: Uint8Array } {
  return typeof value === 'object' && value !== null && 'image' in value;
}

/**
 * The operators that draw a JPEG or PNG in `rect` (displayed coordinates): as large as fits, its
 * aspect ratio kept, centred (docs/api.md#files-from-signers). The image is embedded once per drawing
 * and named in the page's resources.
 */
function imageOperators(pdf: PDF, page: PDFPage, bytes: Uint8Array, rect: Rect): Operator[] {
  const image = pdf.embedImage(bytes);
  const scale = Math.min(rect.width / image.width, rect.height / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  const name = page.registerImage(image);
  return [ops.pushGraphicsState(), ops.concatMatrix(width, 0, 0, height, rect.x + (rect.width - width) / 2, rect.y + (rect.height - height) / 2), ops.paintXObject(name), ops.popGraphicsState()];
}

function asSignature(value: FieldDrawing['value']): SignatureValue | null {
  if (typeof value === 'string') return value.trim() === '' ? null : { typed: value };
  if (typeof value !== 'object' || value === null) return null;
  if ('strokes' in value && Array.isArray(value.strokes)) return value;
  if ('typed' in value && typeof value.typed === 'string' && value.typed.trim() !== '') return value;
  return null;
}

/** How {@link textOperators} sizes and places a value: a preferred size (points) and the alignment. */
interface TextStyle {
  /** The size to draw at when the whole value fits at it; otherwise the value is fitted as usual, never larger. */
  size?: number;
  /** 0 left, 1 centred, 2 right (ISO 32000-1 Table 228 /Q). */
  align?: 0 | 1 | 2;
  gray?: number;
}

function textOperators(painter: TextPainter, page: PDFPage, text: string, face: Face, rect: Rect, minimum: number | undefined, style: TextStyle = {}): Operator[] {
  const padX = Math.min(2, rect.width * 0.04);
  const padY = Math.min(1.5, rect.height * 0.06);
  const box = { width: rect.width - 2 * padX, height: rect.height - 2 * padY };
  let { lines, size } = fitText(text, face, box.width, box.height, minimum);
  const wanted = style.size ?? 0;
  if (wanted > 0 && wanted < size) {
    // The preferred size is smaller than the fitted one: use it (wrapping if the box allows several lines).
    const preferred = minimum === undefined ? [layoutSingleLine(text, face)] : layoutParagraph(text, { face, size: wanted, maxWidth: box.width });
    const fits = preferred.length * wanted * LINE_HEIGHT <= box.height && preferred.every((line) => line.width * wanted <= box.width + 0.01);
    if (fits) [lines, size] = [preferred, wanted];
  }
  const blockHeight = lines.length * size * LINE_HEIGHT;
  // Vertically centred; each line's baseline sits DESCENT em above the bottom of its line box.
  const top = rect.y + padY + (box.height + blockHeight) / 2;
  return lines.flatMap((line, index) =>
    painter.lineOperators(page, line, {
      x: rect.x + padX + ((box.width - line.width * size) * (style.align ?? 0)) / 2,
      y: top - (index + 1) * size * LINE_HEIGHT + DESCENT * size,
      size,
      ...(style.gray === undefined ? {} : { gray: style.gray }),
    }),
  );
}

/** A value drawn over a form field's widget (`appearances.ts`), in the page's own user space. */
export interface WidgetText {
  /** 0-based page index. */
  pageIndex: number;
  /** The widget's /Rect, [llx lly urx ury] in the page's default user space (points), normalised. */
  rect: [number, number, number, number];
  text: string;
  /** Font size from the field's /DA; 0 or absent: as large as fits. */
  size?: number;
  align: 0 | 1 | 2;
  /** Multi-line text field: wraps (see the module comment) instead of shrinking on one line. */
  multiline: boolean;
  /** Fill colour from the field's /DA when it is a gray level, 0 (black) to 1. */
  gray?: number;
}

/**
 * Draws form field values in Noto Sans (shaped, any script) into the page content, each clipped to
 * its widget's rectangle, upright in the page's user space as a widget appearance without /MK /R
 * would be: at the /DA size when the whole value fits at it, else as large as fits (one line for a
 * single-line field, shrinking without limit; a multi-line field wraps below {@link MIN_FONT_SIZE}),
 * vertically centred, aligned as `align` says. Entries on pages the document lacks or with empty
 * rectangles are skipped. Used for values the form's own font cannot show (`appearances.ts`).
 */
export function drawWidgetTexts(pdf: PDF, texts: readonly WidgetText[]): void {
  if (texts.length === 0) return;
  const painter = new TextPainter(pdf);
  for (const item of texts) {
    const page = pdf.getPage(item.pageIndex);
    const [llx, lly, urx, ury] = item.rect;
    if (page === null || !(urx - llx > 0 && ury - lly > 0) || item.text.trim() === '') continue;
    ownResources(pdf, page);
    const rect: Rect = { x: llx, y: lly, width: urx - llx, height: ury - lly };
    const style: TextStyle = { align: item.align, ...(item.size === undefined ? {} : { size: item.size }), ...(item.gray === undefined ? {} : { gray: item.gray }) };
    const content = textOperators(painter, page, item.text, 'regular', rect, item.multiline ? MIN_FONT_SIZE : undefined, style);
    if (content.length === 0) continue;
    page.drawOperators([ops.pushGraphicsState(), ops.rectangle(rect.x, rect.y, rect.width, rect.height), ops.clip(), ops.endPath(), ...content, ops.popGraphicsState()]);
  }
  painter.finish();
}

/** An opaque white fill of `rect`. */
function whiteOperators(rect: Rect): Operator[] {
  return [ops.setNonStrokingGray(1), ops.rectangle(rect.x, rect.y, rect.width, rect.height), ops.fill(), ops.setNonStrokingGray(0)];
}

/** A tick in the middle of `rect`, in a square of 80 % of its shorter side. */
function tickOperators(rect: Rect): Operator[] {
  const side = Math.min(rect.width, rect.height) * 0.8;
  const left = rect.x + (rect.width - side) / 2;
  const bottom = rect.y + (rect.height - side) / 2;
  const at = (fx: number, fy: number): [number, number] => [left + fx * side, bottom + fy * side];
  return [
    ops.setStrokingGray(0),
    ops.setLineWidth(Math.max(0.5, side * 0.12)),
    ops.setLineCap(1),
    ops.setLineJoin(1),
    ops.moveTo(...at(0.18, 0.52)),
    ops.lineTo(...at(0.42, 0.25)),
    ops.lineTo(...at(0.84, 0.8)),
    ops.stroke(),
  ];
}
