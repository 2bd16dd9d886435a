// @ts-check
// How the signing page lays its fields over a page, on any screen from 360 px up.
//
// A field is drawn at its true size on the page (a box of the sender's rectangle), so that it never
// hides the document around it. The element a person taps (the input or button) is an invisible hit
// area around that box: as large as a touch target should be (44 CSS px, Apple's and Google's
// guidance; WCAG 2.5.8 asks for 24), but never overlapping another field's hit area. Where two
// fields sit closer than that, the space between them is split down the middle, so a tap always
// reaches the nearer field and toggles nothing else.
//
// Text (a value typed, a name, an e-mail, a date, a dropdown's choice, a value another recipient gave) is drawn on one
// line as large as fits the box, as the seal draws it in the PDF (as large as the height allows, with
// a line 1.35 em high, and smaller when the width asks for it), so a long value is never cut off.

/** The touch target a hit area grows to, in CSS px, where the neighbours leave room. */
const TOUCH_TARGET = 44;
/** A line of text is 1.35 font sizes high, as in the sealed PDF (src/lib/pdf/fieldDrawing.ts). */
const LINE_HEIGHT = 1.35;
/** The size of a placeholder (the field's name) at most, px: a name in a large box is not a heading. */
const PLACEHOLDER_MAX = 15;
/** Room kept free at each end of a line of text, as a fraction of the box's width. */
const TEXT_INSET = 0.03;

const SVG = 'http://www.w3.org/2000/svg';

/** @typedef {import('../shared/api-types').components['schemas']['Field']} Field */
/** A rectangle on the shown page, px from its top-left corner. @typedef {{ left: number, top: number, right: number, bottom: number }} Rect */
/** Where a field is, as fractions of its page. @typedef {Pick<Field, 'x' | 'y' | 'width' | 'height'>} FieldRect */
/**
 * A field the recipient fills and the element it taps (an input, or a button for a signature).
 * @typedef {{ field: FieldRect, element: HTMLInputElement | HTMLButtonElement | HTMLSelectElement }} LaidOutEntry
 */

/**
 * Lays out the fields of one page for touch: each element in `entries` ({field, element}, the fields
 * the recipient fills on `pageElement`) becomes an invisible hit area with its drawn box after it;
 * text values are fitted to their boxes. Run again whenever the page's size changes.
 * @param {HTMLElement} pageElement
 * @param {LaidOutEntry[]} entries
 */
export function layoutFieldsForTouch(pageElement, entries) {
  const pageWidth = pageElement.clientWidth;
  const pageHeight = pageElement.clientHeight;
  if (pageWidth === 0 || pageHeight === 0) return;
  const boxes = entries.map((entry) => pixelRect(entry.field, pageWidth, pageHeight));
  const hits = hitAreas(boxes, pageWidth, pageHeight);
  entries.forEach((entry, index) => placeHitArea(entry.element, boxes[index], hits[index], pageWidth, pageHeight));
  entries.forEach((entry) => fitValueText(entry.element));
  pageElement.querySelectorAll('input.field-hit').forEach((input) => { if (input instanceof HTMLInputElement && input.type === 'text') fitInputText(input); });
  pageElement.querySelectorAll('.field-filled > span').forEach((span) => fitSpanText(/** @type {HTMLElement} */ (span)));
}

/**
 * Keeps the layout of every page right: now, when a page changes size (a phone turned, a window
 * resized), and as the recipient types into a text field.
 * @param {{ pageElement: HTMLElement, entries: LaidOutEntry[] }[]} pages as for {@link layoutFieldsForTouch}
 */
export function keepFieldsLaidOut(pages) {
  pages.forEach((page) => {
    layoutFieldsForTouch(page.pageElement, page.entries);
    page.entries.forEach((entry) => {
      const element = entry.element;
      if (element instanceof HTMLInputElement && element.type === 'text') {
        element.addEventListener('input', () => fitInputText(element));
      } else if (element instanceof HTMLSelectElement || (element instanceof HTMLInputElement && element.type === 'date')) {
        element.addEventListener('change', () => fitValueText(element));
      }
    });
    if (typeof ResizeObserver === 'function') {
      let width = page.pageElement.clientWidth;
      new ResizeObserver(() => {
        if (page.pageElement.clientWidth === width) return;
        width = page.pageElement.clientWidth;
        layoutFieldsForTouch(page.pageElement, page.entries);
      }).observe(page.pageElement);
    }
  });
}

/**
 * @param {FieldRect} field
 * @param {number} pageWidth px
 * @param {number} pageHeight px
 * @returns {Rect}
 */
function pixelRect(field, pageWidth, pageHeight) {
  const left = field.x * pageWidth;
  const top = field.y * pageHeight;
  return { left, top, right: left + field.width * pageWidth, bottom: top + field.height * pageHeight };
}

/**
 * The hit area of each box (px rectangles `{left, top, right, bottom}`): the box grown to
 * {@link TOUCH_TARGET} around its centre and kept on the page, then, for every two fields whose hit
 * areas meet, both cut at the middle of the gap between their boxes, across the axis on which the boxes
 * lie furthest apart. Cutting only shrinks, so each cut stays true after the next ones, and every hit
 * area still holds its whole box. Boxes that overlap each other (a sender's choice) keep no more than
 * their boxes.
 * @param {Rect[]} boxes
 * @param {number} pageWidth px
 * @param {number} pageHeight px
 * @returns {Rect[]}
 */
export function hitAreas(boxes, pageWidth, pageHeight) {
  const hits = boxes.map((box) => {
    /** @type {(low: number, high: number, limit: number) => [number, number]} */
    const grow = (low, high, limit) => {
      const missing = Math.max(0, TOUCH_TARGET - (high - low)) / 2;
      return [Math.max(0, Math.min(low, low - missing)), Math.min(limit, Math.max(high, high + missing))];
    };
    const [left, right] = grow(box.left, box.right, pageWidth);
    const [top, bottom] = grow(box.top, box.bottom, pageHeight);
    return { left: Math.min(left, box.left), top: Math.min(top, box.top), right: Math.max(right, box.right), bottom: Math.max(bottom, box.bottom) };
  });
  for (let a = 0; a < boxes.length; a++) {
    for (let b = a + 1; b < boxes.length; b++) {
      if (!overlap(hits[a], hits[b])) continue;
      const A = boxes[a];
      const B = boxes[b];
      const gapX = Math.max(B.left - A.right, A.left - B.right);
      const gapY = Math.max(B.top - A.bottom, A.top - B.bottom);
      if (gapX < 0 && gapY < 0) {
        hits[a] = { ...A };
        hits[b] = { ...B };
      } else if (gapX >= gapY) {
        const [first, second] = A.left < B.left ? [a, b] : [b, a];
        const middle = (boxes[first].right + boxes[second].left) / 2;
        hits[first].right = Math.min(hits[first].right, middle);
        hits[second].left = Math.max(hits[second].left, middle);
      } else {
        const [first, second] = A.top < B.top ? [a, b] : [b, a];
        const middle = (boxes[first].bottom + boxes[second].top) / 2;
        hits[first].bottom = Math.min(hits[first].bottom, middle);
        hits[second].top = Math.max(hits[second].top, middle);
      }
    }
  }
  return hits;
}

/** @param {Rect} a @param {Rect} b */
function overlap(a, b) {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/**
 * Places the element over its hit area (percentages of the page, so it follows the page's size) with
 * padding down to its box, where its content (text, signature) shows; the drawn box follows it.
 * @param {LaidOutEntry['element']} element
 * @param {Rect} box
 * @param {Rect} hit
 * @param {number} pageWidth px
 * @param {number} pageHeight px
 */
function placeHitArea(element, box, hit, pageWidth, pageHeight) {
  const percentOfWidth = (/** @type {number} */ value) => (value / pageWidth) * 100 + '%';
  element.classList.add('field-hit');
  element.style.left = percentOfWidth(hit.left);
  element.style.top = (hit.top / pageHeight) * 100 + '%';
  element.style.width = percentOfWidth(hit.right - hit.left);
  element.style.height = ((hit.bottom - hit.top) / pageHeight) * 100 + '%';
  // Percentages of padding are of the page's width, on every side (CSS 2.1 §8.4).
  element.style.padding = [box.top - hit.top, hit.right - box.right, hit.bottom - box.bottom, box.left - hit.left].map(percentOfWidth).join(' ');
  let drawn = /** @type {HTMLElement | null} */ (element.nextElementSibling);
  if (drawn === null || !drawn.classList.contains('field-box')) {
    drawn = document.createElement('span');
    drawn.className = 'field-box';
    drawn.setAttribute('aria-hidden', 'true');
    if (element.type === 'checkbox') drawn.appendChild(tick());
    element.after(drawn);
  }
  drawn.style.left = percentOfWidth(box.left);
  drawn.style.top = (box.top / pageHeight) * 100 + '%';
  drawn.style.width = percentOfWidth(box.right - box.left);
  drawn.style.height = ((box.bottom - box.top) / pageHeight) * 100 + '%';
  drawn.classList.toggle('field-box-small', Math.min(box.right - box.left, box.bottom - box.top) < 14);
}

/** A tick that scales with its box (a border-drawn one cannot shrink below its border's width). */
function tick() {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 10 10');
  svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', 'M2 5.3 L4.2 7.5 L8.2 2.8');
  path.setAttribute('fill', 'none');
  path.setAttribute('stroke', 'currentColor');
  path.setAttribute('stroke-width', '1.6');
  path.setAttribute('stroke-linecap', 'round');
  path.setAttribute('stroke-linejoin', 'round');
  svg.appendChild(path);
  return svg;
}

/** @type {CanvasRenderingContext2D | null} */
let measure = null;

/**
 * Width of `text` in px at a font size of 1 px, in `element`'s font.
 * @param {string} text
 * @param {Element} element
 */
function textWidth(text, element) {
  if (measure === null) measure = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
  const style = getComputedStyle(element);
  measure.font = style.fontStyle + ' ' + style.fontWeight + ' 100px ' + style.fontFamily;
  return measure.measureText(text).width / 100;
}

/**
 * The largest size at which `text` fits a `width` × `height` box on one line (see the module comment).
 * @param {string} text
 * @param {Element} element
 * @param {number} width px
 * @param {number} height px
 * @param {number} maximum px
 */
function fittedSize(text, element, width, height, maximum) {
  const usable = width * (1 - 2 * TEXT_INSET);
  const perPixel = text === '' ? 0 : textWidth(text, element);
  const byHeight = height / LINE_HEIGHT;
  return Math.max(1, Math.min(maximum, byHeight, perPixel > 0 ? usable / perPixel : byHeight));
}

/**
 * Fits an input's value (or, while it is empty, its placeholder) to its drawn box.
 * @param {HTMLInputElement} input
 */
function fitInputText(input) {
  const style = getComputedStyle(input);
  const width = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const height = input.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  if (width <= 0 || height <= 0) return;
  const empty = input.value === '';
  const size = fittedSize(empty ? input.placeholder : input.value, input, width, height, empty ? PLACEHOLDER_MAX : Infinity);
  input.style.fontSize = size.toFixed(2) + 'px';
  input.style.textIndent = (width * TEXT_INSET).toFixed(2) + 'px';
}

/**
 * Fits the value a dropdown or a date field shows to its drawn box: its font as large as the box's
 * height allows (a line 1.35 em high), so that a small field never cuts the text off; a dropdown's
 * chosen option (else its name, at most the placeholder's size) also fits the box's width beside the
 * arrow. Text inputs are fitted by {@link fitInputText}; other elements are left alone.
 * @param {LaidOutEntry['element']} element
 */
function fitValueText(element) {
  const isSelect = element instanceof HTMLSelectElement;
  if (!isSelect && !(element instanceof HTMLInputElement && element.type === 'date')) return;
  const style = getComputedStyle(element);
  const width = element.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const height = element.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  if (width <= 0 || height <= 0) return;
  if (isSelect) {
    const chosen = element.selectedIndex >= 0 ? element.options[element.selectedIndex] : null;
    const empty = element.value === '';
    // "MM" keeps room for the arrow, which scales with the font.
    const text = (chosen ? chosen.text : '') + 'MM';
    element.style.fontSize = fittedSize(text, element, width, height, empty ? PLACEHOLDER_MAX : Infinity).toFixed(2) + 'px';
  } else {
    element.style.fontSize = fittedSize('', element, width, height, Infinity).toFixed(2) + 'px';
  }
}

/**
 * Fits a value another recipient gave to its box.
 * @param {HTMLElement} span
 */
function fitSpanText(span) {
  const box = /** @type {HTMLElement} */ (span.parentElement);
  const width = box.clientWidth;
  const height = box.clientHeight;
  if (width <= 0 || height <= 0) return;
  span.style.fontSize = fittedSize(span.textContent, span, width, height, Infinity).toFixed(2) + 'px';
  span.style.padding = '0 ' + (width * TEXT_INSET).toFixed(2) + 'px';
}
