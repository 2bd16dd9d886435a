// @ts-check
// Signature and initials fields: the adopt dialog (typed in Caveat, or drawn on the pad), the
// signature drawn into its field as the seal will draw it, and the signature for the certificate
// of a signer without a signature field.
import SignaturePad from './signature_pad.min.js';
import { t } from './i18n.js';
import { fieldSize, paintField, updateProgress } from './ceremony.js';
import { $, state } from './signingSession.js';
/** @typedef {import('./signingSession.js').SignatureValue} SignatureValue */
/** @typedef {import('./signingSession.js').PadBox} PadBox */
/** @typedef {import('./signingSession.js').Adopted} Adopted */
/** @typedef {import('./signingSession.js').Entry} Entry */
/** @typedef {import('./signingSession.js').SignatureKind} SignatureKind */

/** The API's limits on a drawn signature (docs/api.md#fields). */
const MAX_STROKES = 50;
const MAX_STROKE_POINTS = 1000;
const MAX_POINTS = 5000;
// ---- Signatures ----------------------------------------------------------------------------------

const SVG = 'http://www.w3.org/2000/svg';

/**
 * The picture of a signature in a box of `size` (points): ink strokes as the seal draws them
 * (smooth curves through the points, 3.5 % of the height wide), or the typed text in Caveat.
 * @param {{ strokes?: number[][][], typed?: string }} value a signature value (SignatureValue)
 * @param {{ width: number, height: number }} size the box, in points
 * @returns {SVGSVGElement}
 */
export function signatureArt(value, size) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 ' + size.width + ' ' + size.height);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  if (value.strokes) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', value.strokes.map((stroke) => strokePath(stroke, size)).join(' '));
    path.setAttribute('fill', 'none');
    path.setAttribute('stroke', '#000');
    path.setAttribute('stroke-width', String(Math.max(0.5, size.height * 0.035)));
    path.setAttribute('stroke-linecap', 'round');
    path.setAttribute('stroke-linejoin', 'round');
    svg.appendChild(path);
  } else {
    const text = document.createElementNS(SVG, 'text');
    const fontSize = typedFontSize(value.typed, size);
    text.setAttribute('x', String(size.width / 2));
    text.setAttribute('y', String(size.height / 2 + fontSize * 0.3));
    text.setAttribute('text-anchor', 'middle');
    text.setAttribute('font-size', String(fontSize));
    text.setAttribute('class', 'ink-typed');
    text.setAttribute('fill', '#000');
    text.textContent = value.typed;
    svg.appendChild(text);
  }
  return svg;
}

/**
 * An SVG path through a stroke's points (fractions of `size`), smoothed as the seal smooths it.
 * @param {number[][]} stroke [x, y] fractions of the box
 * @param {{ width: number, height: number }} size
 */
function strokePath(stroke, size) {
  const points = stroke.map((point) => [point[0] * size.width, point[1] * size.height]);
  const round = (/** @type {number} */ value) => Math.round(value * 100) / 100;
  let d = 'M' + round(points[0][0]) + ' ' + round(points[0][1]);
  if (points.length <= 2) {
    const last = points[points.length - 1];
    return d + ' L' + round(last[0]) + ' ' + round(last[1]);
  }
  for (let index = 1; index < points.length - 1; index++) {
    const control = points[index];
    const next = points[index + 1];
    const end = index === points.length - 2 ? next : [(control[0] + next[0]) / 2, (control[1] + next[1]) / 2];
    d += ' Q' + round(control[0]) + ' ' + round(control[1]) + ' ' + round(end[0]) + ' ' + round(end[1]);
  }
  return d;
}

/** @type {CanvasRenderingContext2D | null} */
let measure = null;

/**
 * The size at which typed text fits a box, as the seal fits it: the height's limit, or the width's.
 * @param {string} text
 * @param {{ width: number, height: number }} size
 */
function typedFontSize(text, size) {
  if (measure === null) measure = /** @type {CanvasRenderingContext2D} */ (document.createElement('canvas').getContext('2d'));
  measure.font = '100px Caveat';
  const width = Math.max(1, measure.measureText(text).width / 100);
  const box = { width: size.width - 2 * Math.min(2, size.width * 0.04), height: size.height - 2 * Math.min(1.5, size.height * 0.06) };
  return Math.max(1, Math.min(box.height / 1.35, box.width / width));
}

/**
 * Drawn strokes (pad pixels) fitted into a box of `size` (points) as fractions 0 to 1 of it: the
 * ink's proportions kept, centred, with a margin; within the API's limits on strokes and points.
 * @param {{ strokes: number[][][], box: PadBox }} drawing
 * @param {{ width: number, height: number }} size
 * @returns {number[][][]}
 */
function fitStrokes(drawing, size) {
  const box = drawing.box;
  const margin = 0.1;
  const inkWidth = Math.max(box.right - box.left, 1);
  const inkHeight = Math.max(box.bottom - box.top, 1);
  const scale = Math.min((size.width * (1 - 2 * margin)) / inkWidth, (size.height * (1 - 2 * margin)) / inkHeight);
  const offsetX = (size.width - inkWidth * scale) / 2;
  const offsetY = (size.height - inkHeight * scale) / 2;
  const clamp = (/** @type {number} */ value) => Math.min(1, Math.max(0, value));
  const round = (/** @type {number} */ value) => Math.round(value * 10000) / 10000;
  return drawing.strokes.map((stroke) =>
    stroke.map((point) => [
      round(clamp((offsetX + (point[0] - box.left) * scale) / size.width)),
      round(clamp((offsetY + (point[1] - box.top) * scale) / size.height)),
    ]),
  );
}

/**
 * The pad's strokes as arrays of [x, y] pixels, thinned to the API's limits on points (at most
 * {@link MAX_STROKE_POINTS} a stroke, {@link MAX_POINTS} in all), with their bounding box; `null`
 * when nothing was drawn, `'too-many-strokes'` past {@link MAX_STROKES}.
 * @param {import('./signature_pad.min.js').default} pad
 * @returns {{ strokes: number[][][], box: PadBox } | 'too-many-strokes' | null}
 */
function padDrawing(pad) {
  let strokes = pad
    .toData()
    .map((group) => group.points.map((point) => [point.x, point.y]))
    .filter((stroke) => stroke.length > 0)
    .map((stroke) => (stroke.length === 1 ? [stroke[0], stroke[0]] : stroke));
  if (strokes.length === 0) return null;
  if (strokes.length > MAX_STROKES) return 'too-many-strokes';
  strokes = strokes.map((stroke) => thin(stroke, MAX_STROKE_POINTS));
  for (let share = MAX_POINTS; strokes.reduce((sum, stroke) => sum + stroke.length, 0) > MAX_POINTS; share = Math.floor(share * 0.9)) {
    const total = strokes.reduce((sum, stroke) => sum + stroke.length, 0);
    strokes = strokes.map((stroke) => thin(stroke, Math.max(2, Math.floor((stroke.length * share) / total))));
  }
  const points = strokes.flat();
  const xs = points.map((point) => point[0]);
  const ys = points.map((point) => point[1]);
  return { strokes: strokes, box: { left: Math.min(...xs), right: Math.max(...xs), top: Math.min(...ys), bottom: Math.max(...ys) } };
}

/**
 * At most `limit` (2 or more) of the stroke's points, evenly spread, the first and the last kept.
 * @param {number[][]} stroke
 * @param {number} limit
 */
function thin(stroke, limit) {
  if (stroke.length <= limit) return stroke;
  const kept = [];
  for (let index = 0; index < limit; index++) kept.push(stroke[Math.round((index * (stroke.length - 1)) / (limit - 1))]);
  return kept;
}

/**
 * The API value of an adopted signature for a box of `size` points.
 * @param {Adopted} adopted
 * @param {{ width: number, height: number }} size
 * @returns {SignatureValue}
 */
export function valueFor(adopted, size) {
  if (adopted.typed !== undefined) return { typed: adopted.typed };
  return { strokes: fitStrokes(/** @type {{ strokes: number[][][], box: PadBox }} */ (adopted), size) };
}

/**
 * @param {string} name
 */
function initialsOf(name) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => Array.from(word)[0].toUpperCase())
    .join('')
    .slice(0, 4);
}

/**
 * Selecting a signature field: places the adopted signature (adopting one first), or removes it.
 * @param {string} fieldId
 */
export function toggleSignatureField(fieldId) {
  const entry = state.entries.get(fieldId);
  if (entry.value !== null) {
    entry.value = null;
    paintField(entry);
    updateProgress();
    return;
  }
  const kind = /** @type {SignatureKind} */ (entry.field.type);
  if (state.adopted[kind] === null) {
    openAdoptDialog(kind, entry.element, () => placeSignature(entry));
    return;
  }
  placeSignature(entry);
}

/**
 * @param {Entry} entry
 */
function placeSignature(entry) {
  entry.value = valueFor(state.adopted[/** @type {SignatureKind} */ (entry.field.type)], fieldSize(entry));
  paintField(entry);
  updateProgress();
  entry.element.focus();
}

// ---- The adopt dialog ----------------------------------------------------------------------------

/** @type {(() => void) | null} */
let afterAdopt = null;
/** @type {HTMLElement | null} */
let returnFocus = null;

/**
 * @param {SignatureKind} kind
 * @param {HTMLElement} opener
 * @param {() => void} then
 */
function openAdoptDialog(kind, opener, then) {
  state.adopting = kind;
  afterAdopt = then;
  returnFocus = opener;
  const name = state.view.recipient.name;
  $('adopt-heading').textContent = t('adoptHeading', { kind: kind });
  $('typed-label').textContent = t('typedLabel', { kind: kind });
  $('typed-input').value = kind === 'initials' ? initialsOf(name) : name;
  $('adopt-error').hidden = true;
  $('mode-type').checked = true;
  setMode('type');
  updateTypedPreview();
  $('adopt-dialog').showModal();
  if (state.pad !== null) state.pad.clear();
  $('typed-input').focus();
  $('typed-input').select();
}

/**
 * @param {'type' | 'draw'} mode
 */
export function setMode(mode) {
  $('type-panel').hidden = mode !== 'type';
  $('draw-panel').hidden = mode !== 'draw';
  if (mode === 'draw') preparePad();
}

/** The drawing pad, sized to its box at the screen's pixel density. */
export function preparePad() {
  const canvas = $('signature-pad');
  if (state.pad === null) {
    state.pad = new SignaturePad(canvas, { penColor: '#000', minWidth: 0.8, maxWidth: 2.6, throttle: 8 });
  }
  const ratio = Math.max(window.devicePixelRatio || 1, 1);
  const data = state.pad.toData();
  canvas.width = Math.round(canvas.offsetWidth * ratio);
  canvas.height = Math.round(canvas.offsetHeight * ratio);
  canvas.getContext('2d').scale(ratio, ratio);
  state.pad.clear();
  if (data.length > 0) state.pad.fromData(data);
}

export function updateTypedPreview() {
  $('typed-preview').textContent = $('typed-input').value;
}

/**
 * @param {SubmitEvent} event
 */
export function adopt(event) {
  event.preventDefault();
  const kind = state.adopting;
  const mode = $('mode-draw').checked ? 'draw' : 'type';
  let adopted;
  if (mode === 'type') {
    const typed = $('typed-input').value.trim();
    if (typed === '') return adoptError(t('typeFirst', { kind: kind }), $('typed-input'));
    if (/[\u0000-\u001f\u007f]/.test(typed)) return adoptError(t('noControlCharacters'), $('typed-input'));
    adopted = { typed: typed };
  } else {
    const drawing = state.pad === null ? null : padDrawing(state.pad);
    if (drawing === null) return adoptError(t('drawFirst'), $('mode-draw'));
    if (drawing === 'too-many-strokes') return adoptError(t('tooManyStrokes', { max: MAX_STROKES }), $('clear-pad'));
    adopted = drawing;
  }
  state.adopted[kind] = adopted;
  $('adopt-dialog').close();
  const then = afterAdopt;
  afterAdopt = null;
  if (then) state.fontReady.then(then);
}

/**
 * @param {string} message
 * @param {HTMLElement} focus
 */
function adoptError(message, focus) {
  const box = $('adopt-error');
  box.textContent = message;
  box.hidden = false;
  focus.focus();
}

// ---- The signature for the certificate (a signer without signature fields) -----------------------

export function paintWholeSignature() {
  const button = $('whole-signature-button');
  const signed = state.wholeSignature !== null;
  button.setAttribute('aria-pressed', String(signed));
  button.classList.add('field');
  button.classList.toggle('filled', signed);
  button.textContent = '';
  const name = document.createElement('span');
  name.className = signed ? 'visually-hidden' : 'field-name';
  name.textContent = t('fieldType', { type: 'signature' });
  button.appendChild(name);
  if (signed) button.appendChild(signatureArt(state.wholeSignature, { width: 240, height: 75 }));
  $('whole-signature-state').textContent = t(signed ? 'stateSigned' : 'wholeSignatureRequired');
}

export function toggleWholeSignature() {
  if (state.wholeSignature !== null) {
    state.wholeSignature = null;
    paintWholeSignature();
    return;
  }
  const place = () => {
    state.wholeSignature = valueFor(state.adopted.signature, { width: 240, height: 75 });
    paintWholeSignature();
    $('whole-signature-button').focus();
  };
  if (state.adopted.signature === null) openAdoptDialog('signature', $('whole-signature-button'), place);
  else place();
}

/** Wires the adopt dialog's controls: adopt, cancel, type or draw, the typed preview, clearing the pad. */
export function wireAdoptDialog() {
  $('adopt-form').addEventListener('submit', adopt);
  $('adopt-cancel').addEventListener('click', () => $('adopt-dialog').close());
  $('adopt-dialog').addEventListener('close', () => {
    if (returnFocus !== null) returnFocus.focus();
    returnFocus = null;
  });
  $('mode-type').addEventListener('change', () => setMode('type'));
  $('mode-draw').addEventListener('change', () => setMode('draw'));
  $('typed-input').addEventListener('input', updateTypedPreview);
  $('clear-pad').addEventListener('click', () => { if (state.pad !== null) state.pad.clear(); });
}
