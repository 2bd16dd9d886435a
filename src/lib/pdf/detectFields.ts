/**
 * Finds where fields belong in a document (docs/api.md#fields-from-the-document), inside a seal worker (so the bounds of
 * `workerPool.ts` hold: 30 s and 512 MiB, else 422):
 *
 * - **Text tags**: `{{...}}` in the pages' text as PDF.js (`pdfjs-dist`, the engine the signing page
 *   renders with) extracts it, with positions. The items of one line (same direction, same baseline,
 *   in content order, up to an end of line) are joined, so that a tag split across text-showing
 *   operators and fonts is found whole; its character range maps back to the items it covers. The
 *   tag's box is the union of those items' parts, from the font's descent to its ascent (with 0.06 em
 *   of room around it, for glyphs that reach past them), turned into fractions of the page as a
 *   viewer displays it (crop box, after /Rotate, origin top-left) with PDF.js's own viewport, so rotated and cropped pages come out as a viewer shows them. Where a tag
 *   starts or ends inside an item, the cut is placed in proportion to the text's width in Noto Sans
 *   (PDF.js reports an item's width, not its glyphs'). Each tag also reports that box unchanged
 *   (`bounds`), its font size and the page's displayed size in points, from which
 *   `envelopes/textTags.ts` sizes its field.
 * - **Form fields**: the AcroForm's unsigned signature fields, text fields, check boxes and choice
 *   fields (combo and list boxes), read with @libpdf/core, one per visible widget on a page, at the
 *   widget's rectangle in the same displayed fractions.
 *
 * What a tag says is not interpreted here: `envelopes/textTags.ts` parses it.
 */
import { PDF } from '@libpdf/core';
import type { PdfObject, PdfRef } from '@libpdf/core';
import { AppError } from '../errors.js';
import { pageIndexOf } from './appearances.js';
import { displayedPage } from './pageGeometry.js';
import type { Matrix } from './pageGeometry.js';
import { layoutSingleLine } from './textLayout.js';
import { DETECT_BOUNDS } from './types.js';
import type { DetectJob, DetectResult, FoundFormField, FoundTextTag, Rectangle } from './types.js';
import { problem } from '../problems.js';

/** Smallest height of a field made from a tag, as a fraction of the page's displayed height. */
export const MIN_TAG_HEIGHT = 0.02;

function tooComplexToDetect(detail: string): AppError {
  return problem('documentTooComplex', { detail: `${detail} Fields were not detected; place them by hand or split the document.` });
}

function damaged(cause: unknown): AppError {
  return problem('documentDamaged', { cause });
}

/** The subset of PDF.js's API used here (its types are loaded with the module). */
type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | undefined;

/** PDF.js's legacy build (the one that runs in Node), loaded on first use. */
async function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return await pdfjs;
}

/** One text item of PDF.js's text content. */
interface TextItem {
  str: string;
  transform: number[];
  width: number;
  fontName: string;
  hasEOL: boolean;
}

interface Style {
  ascent: number;
  descent: number;
  vertical: boolean;
}

/** An item on a line: where its text starts in the line's text. */
interface Placed {
  item: TextItem;
  start: number;
}

/**
 * Finds the text tags and form fields of `job.document` (see the module comment).
 * @throws AppError 422 `document-damaged` (cannot be parsed), `document-encrypted` (needs a
 *   password), `document-too-complex` (over {@link DETECT_BOUNDS})
 */
export async function detect(job: DetectJob): Promise<DetectResult> {
  const started = Date.now();
  const timeoutMs = job.timeoutMs ?? DETECT_BOUNDS.timeoutMs;
  const { getDocument } = await loadPdfJs();
  let document: Awaited<ReturnType<typeof getDocument>['promise']>;
  try {
    // A copy: PDF.js takes ownership of (detaches) the buffer it is given.
    document = await getDocument({ data: job.document.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false, verbosity: 0 }).promise;
  } catch (error) {
    if (error instanceof Error && error.name === 'PasswordException') {
      throw problem('documentEncrypted');
    }
    throw damaged(error);
  }
  try {
    const pageCount = document.numPages;
    if (pageCount > DETECT_BOUNDS.maxPages) throw tooComplexToDetect(`The document has ${pageCount} pages; fields are detected in documents of at most ${DETECT_BOUNDS.maxPages}.`);
    const textTags: FoundTextTag[] = [];
    for (let pageNumber = 1; pageNumber <= pageCount; pageNumber++) {
      const page = await document.getPage(pageNumber);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const toDisplayed = (x: number, y: number): [number, number] => {
        const [vx, vy] = viewport.convertToViewportPoint(x, y) as [number, number];
        return [vx / viewport.width, vy / viewport.height];
      };
      for (const tag of tagsOnPage(content.items as TextItem[], content.styles as Record<string, Style>, toDisplayed)) {
        textTags.push({ page: pageNumber, ...tag, pageWidth: round(viewport.width), pageHeight: round(viewport.height) });
        if (textTags.length > DETECT_BOUNDS.maxFound) throw tooComplexToDetect(`The document holds more than ${DETECT_BOUNDS.maxFound} text tags.`);
      }
      page.cleanup();
      if (Date.now() - started > timeoutMs) {
        throw tooComplexToDetect(`Reading the document's text took longer than ${Math.round(timeoutMs / 1000)} seconds (stopped at page ${pageNumber} of ${pageCount}).`);
      }
    }
    // Only a document with a form is parsed a second time (by @libpdf/core) for its fields.
    const hasForm = (await document.getFieldObjects()) !== null;
    const formFields = hasForm ? await formFieldsOf(job.document) : [];
    return { pageCount, textTags, formFields };
  } finally {
    await document.destroy();
  }
}

/** A tag's text (between the braces) and its box in displayed fractions. */
type TagOnPage = Omit<FoundTextTag, 'page' | 'pageWidth' | 'pageHeight'>;

/** Splits a page's items into lines and finds the tags of each. */
function tagsOnPage(items: TextItem[], styles: Record<string, Style>, toDisplayed: (x: number, y: number) => [number, number]): TagOnPage[] {
  const found: TagOnPage[] = [];
  let line: Placed[] = [];
  let text = '';
  const flush = (): void => {
    if (text.includes('{{')) found.push(...tagsOnLine(line, text, styles, toDisplayed));
    line = [];
    text = '';
  };
  for (const item of items) {
    if (typeof item.str !== 'string' || !Array.isArray(item.transform)) continue;
    const previous = line.at(-1)?.item;
    if (previous !== undefined && !sameLine(previous, item)) flush();
    if (item.str !== '') {
      line.push({ item, start: text.length });
      text += item.str;
    }
    if (item.hasEOL) flush();
  }
  flush();
  return found;
}

/** Whether `next` continues `previous`'s line: the same direction and baseline (within a third of the size). */
function sameLine(previous: TextItem, next: TextItem): boolean {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = previous.transform;
  const [a2 = 0, b2 = 0, , , e2 = 0, f2 = 0] = next.transform;
  const scale = Math.hypot(a, b);
  const scale2 = Math.hypot(a2, b2);
  if (scale === 0 || scale2 === 0) return false;
  // Same direction.
  if (Math.abs((a * a2 + b * b2) / (scale * scale2) - 1) > 1e-3) return false;
  // Distance of the next origin from the previous baseline, measured across it.
  const size = Math.hypot(c, d) || scale;
  const across = Math.abs(((e2 - e) * -b + (f2 - f) * a) / scale);
  return across <= size / 3;
}

const TAG = /\{\{([^{}]*)\}\}/g;

/** Room around a tag's glyphs beyond the font's ascent, descent and advance, in em. */
const GLYPH_MARGIN = 0.06;

function tagsOnLine(line: Placed[], text: string, styles: Record<string, Style>, toDisplayed: (x: number, y: number) => [number, number]): TagOnPage[] {
  const found: TagOnPage[] = [];
  for (const match of text.matchAll(TAG)) {
    const inner = match[1] ?? '';
    if (inner.length > DETECT_BOUNDS.maxTagLength) continue;
    const from = match.index;
    const to = from + match[0].length;
    let left = Infinity;
    let top = Infinity;
    let right = -Infinity;
    let bottom = -Infinity;
    let fontSize = 0;
    for (const { item, start } of line) {
      const end = start + item.str.length;
      if (end <= from || start >= to) continue;
      const style = styles[item.fontName] ?? { ascent: 0.8, descent: -0.2, vertical: false };
      const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0] = item.transform;
      const scale = Math.hypot(a, b);
      if (scale === 0) continue;
      fontSize = Math.max(fontSize, Math.hypot(c, d) || scale);
      // The item's text space in em: u along the text (0 to width/scale), v across it.
      const length = item.width / scale;
      const u0 = length * widthFraction(item.str, Math.max(0, from - start));
      const u1 = length * widthFraction(item.str, Math.min(item.str.length, to - start));
      // Ascent and descent as the font says, with a margin for glyphs that reach past them (braces
      // do in many fonts), so that the white paint of the frozen copy (`coverTags.ts`) covers every glyph edge.
      const ascent = (style.ascent > 0 ? style.ascent : 0.8) + GLYPH_MARGIN;
      const descent = (style.descent < 0 ? style.descent : -0.2) - GLYPH_MARGIN;
      const [from0, to1] = [u0 - (u0 === 0 ? GLYPH_MARGIN : 0), u1 + (u1 === length ? GLYPH_MARGIN : 0)];
      for (const [u, v] of [
        [from0, descent],
        [to1, descent],
        [from0, ascent],
        [to1, ascent],
      ] as const) {
        const [x, y] = toDisplayed(a * u + c * v + e, b * u + d * v + f);
        left = Math.min(left, x);
        right = Math.max(right, x);
        top = Math.min(top, y);
        bottom = Math.max(bottom, y);
      }
    }
    if (!Number.isFinite(left)) continue;
    found.push({ text: inner, rect: grownDown(left, top, right, bottom), bounds: clipped(left, top, right, bottom), fontSize: round(fontSize) });
  }
  return found;
}

/**
 * How far into `text` its first `count` characters reach, as a fraction of its width: measured in
 * Noto Sans (proportions of Latin text differ little between fonts), by character count where the
 * text has no width in it.
 */
function widthFraction(text: string, count: number): number {
  if (count <= 0) return 0;
  if (count >= text.length) return 1;
  const whole = layoutSingleLine(text, 'regular').width;
  if (!(whole > 0)) return count / text.length;
  return Math.min(1, layoutSingleLine(text.slice(0, count), 'regular').width / whole);
}

const clamp = (value: number): number => Math.min(1, Math.max(0, value));

/** A box in displayed fractions, clipped to the page. */
function clipped(left: number, top: number, right: number, bottom: number): Rectangle {
  const x = clamp(left);
  const y = clamp(top);
  return { x: round(x), y: round(y), width: round(Math.max(0, clamp(right) - x)), height: round(Math.max(0, clamp(bottom) - y)) };
}

/** A box in displayed fractions, clipped to the page, at least {@link MIN_TAG_HEIGHT} high (grown downward, or up at the page's foot). */
function grownDown(left: number, top: number, right: number, bottom: number): Rectangle {
  const x = clamp(left);
  const width = Math.max(0, clamp(right) - x);
  let y = clamp(top);
  let height = Math.max(0, clamp(bottom) - y);
  if (height < MIN_TAG_HEIGHT) {
    height = MIN_TAG_HEIGHT;
    if (y + height > 1) y = 1 - height;
  }
  return { x: round(x), y: round(y), width: round(Math.min(width, 1 - x)), height: round(Math.min(height, 1 - y)) };
}

/** Fractions to 6 decimals (a micro-point on a page): stable in JSON, exact enough to place a field. */
function round(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** The form fields of the document (see the module comment), in page order, then top to bottom. */
async function formFieldsOf(bytes: Uint8Array): Promise<FoundFormField[]> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (error) {
    throw damaged(error);
  }
  const form = pdf.getForm();
  if (form === null) return [];
  const resolve = (ref: PdfRef): PdfObject | null => pdf.getObject(ref);
  const found: FoundFormField[] = [];
  for (const field of form.getFields()) {
    let kind: FoundFormField['kind'];
    let options: string[] | undefined;
    switch (field.type) {
      case 'signature':
        if (form.getSignatureField(field.name)?.isSigned() !== false) continue;
        kind = 'signature';
        break;
      case 'text':
        kind = 'text';
        break;
      case 'checkbox':
        kind = 'checkbox';
        break;
      case 'dropdown':
      case 'listbox':
        kind = 'choice';
        options = (form.getDropdown(field.name) ?? form.getListBox(field.name))?.getOptions().map((option) => (option.display.trim() !== '' ? option.display : option.value));
        break;
      default:
        continue;
    }
    for (const widget of field.getWidgets()) {
      if (widget.isHidden()) continue;
      const pageIndex = pageIndexOf(pdf, widget, resolve);
      if (pageIndex === null) continue;
      const page = pdf.getPage(pageIndex);
      if (page === null) continue;
      const rect = displayedRect(displayedPage(pdf, page), widget.rect);
      if (rect === null) continue;
      found.push({ page: pageIndex + 1, name: field.name, kind, required: field.isRequired(), ...(options === undefined ? {} : { options }), rect });
      if (found.length > DETECT_BOUNDS.maxFound) throw tooComplexToDetect(`The document's form has more than ${DETECT_BOUNDS.maxFound} fields.`);
    }
  }
  return found.sort((one, other) => one.page - other.page || one.rect.y - other.rect.y || one.rect.x - other.rect.x);
}

/** A rectangle of the page's user space, [x1 y1 x2 y2] in points, in fractions of the displayed page; `null` when empty. */
function displayedRect(displayed: ReturnType<typeof displayedPage>, rect: [number, number, number, number]): Rectangle | null {
  const toDisplayed = invert(displayed.toUserSpace);
  const corners = [
    [rect[0], rect[1]],
    [rect[2], rect[1]],
    [rect[0], rect[3]],
    [rect[2], rect[3]],
  ].map(([x = 0, y = 0]) => apply(toDisplayed, x, y));
  const xs = corners.map(([x]) => clamp(x / displayed.width));
  // Displayed space has y up; fields count from the top.
  const ys = corners.map(([, y]) => clamp(1 - y / displayed.height));
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  const width = Math.max(...xs) - x;
  const height = Math.max(...ys) - y;
  if (!(width > 0 && height > 0)) return null;
  return { x: round(x), y: round(y), width: round(Math.min(width, 1 - x)), height: round(Math.min(height, 1 - y)) };
}

function apply(matrix: Matrix, x: number, y: number): [number, number] {
  const [a, b, c, d, e, f] = matrix;
  return [a * x + c * y + e, b * x + d * y + f];
}

function invert(matrix: Matrix): Matrix {
  const [a, b, c, d, e, f] = matrix;
  const determinant = a * d - b * c;
  return [d / determinant, -b / determinant, -c / determinant, a / determinant, (c * f - d * e) / determinant, (b * e - a * f) / determinant];
}
