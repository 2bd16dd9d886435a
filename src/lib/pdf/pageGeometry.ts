/**
 * A page as a viewer displays it (ISO 32000-1 §14.11.2 and §7.7.3.3): the crop box (clipped to the
 * media box; both default as the spec says and are inherited from the page tree like /Rotate), turned
 * clockwise by /Rotate. Field rectangles (docs/api.md#fields) and the certificate's page size are given in
 * that displayed space.
 *
 * Runs only inside a seal worker (it uses @libpdf/core).
 */
import { PdfArray, PdfDict, PdfNumber, PdfRef } from '@libpdf/core';
import type { ops } from '@libpdf/core';
import type { PDF, PDFPage, PdfObject } from '@libpdf/core';

/** A content-stream operator (the library builds them with `ops`, but does not export their type). */
export type Operator = ReturnType<typeof ops.stroke>;

/** A PDF matrix [a b c d e f] (ISO 32000-1 §8.3.3). */
export type Matrix = [number, number, number, number, number, number];

/** The displayed page: its size in points and the map from displayed space to the page's user space. */
export interface DisplayedPage {
  /** Width and height as displayed (after /Rotate), in points. */
  width: number;
  height: number;
  /** /Rotate normalised to 0, 90, 180 or 270. */
  rotation: 0 | 90 | 180 | 270;
  /**
   * Maps displayed coordinates (origin at the displayed page's bottom-left corner, x to the right, y
   * up, in points) to the page's default user space: `cm` with this matrix, then draw upright.
   */
  toUserSpace: Matrix;
}

/** The most page-tree levels followed for an inherited attribute (guards against cycles). */
const MAX_TREE_DEPTH = 64;

/** A page attribute, from the page itself or the nearest ancestor that has it (ISO 32000-1 §7.7.3.4). */
function inherited(pdf: PDF, page: PDFPage, key: string): PdfObject | undefined {
  const resolve = (ref: PdfRef): PdfObject | null => pdf.getObject(ref);
  let node: PdfDict | undefined = page.dict;
  for (let depth = 0; node !== undefined && depth < MAX_TREE_DEPTH; depth++) {
    const value = node.get(key, resolve);
    if (value !== undefined) return value;
    const parent = node.get('Parent', resolve);
    node = parent instanceof PdfDict ? parent : undefined;
  }
  return undefined;
}

type Box = [number, number, number, number];

/** A rectangle attribute as [llx lly urx ury], normalised; `undefined` when absent or malformed. */
function box(pdf: PDF, page: PDFPage, key: string): Box | undefined {
  const value = inherited(pdf, page, key);
  if (!(value instanceof PdfArray) || value.length < 4) return undefined;
  const resolve = (ref: PdfRef): PdfObject | null => pdf.getObject(ref);
  const numbers: number[] = [];
  for (let index = 0; index < 4; index++) {
    let entry = value.at(index);
    if (entry instanceof PdfRef) entry = resolve(entry) ?? undefined;
    if (!(entry instanceof PdfNumber) || !Number.isFinite(entry.value)) return undefined;
    numbers.push(entry.value);
  }
  const [x1 = 0, y1 = 0, x2 = 0, y2 = 0] = numbers;
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/**
 * The displayed geometry of a page: crop box ∩ media box (media box default US Letter, as the
 * library and most viewers assume for a page without one), turned by /Rotate (a multiple of 90,
 * negative values allowed).
 */
export function displayedPage(pdf: PDF, page: PDFPage): DisplayedPage {
  const media = box(pdf, page, 'MediaBox') ?? [0, 0, 612, 792];
  const crop = box(pdf, page, 'CropBox') ?? media;
  let [llx, lly, urx, ury] = [Math.max(crop[0], media[0]), Math.max(crop[1], media[1]), Math.min(crop[2], media[2]), Math.min(crop[3], media[3])];
  // A crop box outside the media box: viewers fall back to the media box.
  if (urx - llx <= 0 || ury - lly <= 0) [llx, lly, urx, ury] = media;
  const rotateValue = inherited(pdf, page, 'Rotate');
  const rotate = rotateValue instanceof PdfNumber ? Math.round(rotateValue.value / 90) * 90 : 0;
  const rotation = ((((rotate % 360) + 360) % 360) as 0 | 90 | 180 | 270);
  const boxWidth = urx - llx;
  const boxHeight = ury - lly;
  switch (rotation) {
    case 90:
      // Turned clockwise: displayed x runs up the user space, displayed y runs to the left.
      return { width: boxHeight, height: boxWidth, rotation, toUserSpace: [0, 1, -1, 0, urx, lly] };
    case 180:
      return { width: boxWidth, height: boxHeight, rotation, toUserSpace: [-1, 0, 0, -1, urx, ury] };
    case 270:
      return { width: boxHeight, height: boxWidth, rotation, toUserSpace: [0, -1, 1, 0, llx, ury] };
    default:
      return { width: boxWidth, height: boxHeight, rotation, toUserSpace: [1, 0, 0, 1, llx, lly] };
  }
}

/**
 * Gives a page its own /Resources entry when it inherits one from the page tree, so that resources
 * added to it (fonts of drawn field values) do not replace what its content needs (the library would
 * otherwise create an empty dictionary on the page). The inherited dictionary is shared by reference
 * when it is an indirect object, copied (shallowly) otherwise.
 */
export function ownResources(pdf: PDF, page: PDFPage): void {
  if (page.dict.has('Resources')) return;
  const parent = page.dict.get('Parent');
  if (!(parent instanceof PdfRef)) return;
  const resolve = (ref: PdfRef): PdfObject | null => pdf.getObject(ref);
  let node = resolve(parent);
  for (let depth = 0; node instanceof PdfDict && depth < MAX_TREE_DEPTH; depth++) {
    const raw = node.get('Resources');
    if (raw instanceof PdfRef) {
      page.dict.set('Resources', raw);
      return;
    }
    if (raw instanceof PdfDict) {
      page.dict.set('Resources', raw.clone());
      return;
    }
    const next = node.get('Parent', resolve);
    node = next instanceof PdfDict ? next : null;
  }
}
