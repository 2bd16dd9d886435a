// The signing page (GET /api/sign): where a recipient's e-mail link leads.
//
// The link is /api/sign#<token>. The token is read from the fragment (which browsers never send to a
// server), removed from the address bar at once, and kept in this tab's sessionStorage so a reload
// still works. It is sent only as the bearer token of /api/signing. Everything the page loads comes
// from this service; the document and the sealed PDF come from Blob storage through the read-only
// SAS URLs of the recipient's view.
import SignaturePad from './signature_pad.min.js';
import { layoutPages, openPdf } from './pdfPages.js';

/** /api/, whatever the host's route prefix. */
const API = new URL('../', import.meta.url);
const TOKEN_KEY = 'envelope-signing-token';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A field's accessible name when it has no label (CONTRACT §13). */
const TYPE_NAMES = {
  signature: 'Signature',
  initials: 'Initials',
  date_signed: 'Date signed',
  name: 'Name',
  email: 'E-mail',
  text: 'Text',
  checkbox: 'Check box',
  number: 'Number',
  date: 'Date',
  dropdown: 'Choice',
};

/** The API's limits on a drawn signature (CONTRACT §11.2). */
const MAX_STROKES = 50;
const MAX_STROKE_POINTS = 1000;
const MAX_POINTS = 5000;

const $ = (id) => document.getElementById(id);

const state = {
  token: null,
  view: null,
  /** fieldId -> {field, element, value} for the fields this recipient fills. */
  entries: new Map(),
  /** Adopted signatures, by kind ('signature', 'initials'): {typed} or {strokes, box} (pad pixels). */
  adopted: { signature: null, initials: null },
  /** The signature for the certificate when the signer has no signature field. */
  wholeSignature: null,
  /** Whether the service's disclosure is shown above the consent box (finishing waits for it). */
  disclosureShown: false,
  /** The values of the last complete request, to name the fields the service refused. */
  lastValues: [],
  /** What the adopt dialog was opened for. */
  adopting: null,
  pad: null,
  pdf: null,
  /** Caveat, loaded: typed signatures are measured in it to fit their fields. */
  fontReady: Promise.resolve(),
};

// ---- The token -----------------------------------------------------------------------------------

/** The token from the fragment (then removed from the address bar) or, after a reload, from this tab. */
function readToken() {
  let fragment = window.location.hash.replace(/^#/, '');
  try { fragment = decodeURIComponent(fragment); } catch (ignored) { /* not a token either way */ }
  if (fragment !== '') {
    history.replaceState(history.state, '', window.location.pathname + window.location.search);
    const token = TOKEN_PATTERN.test(fragment) ? fragment : null;
    try {
      if (token === null) sessionStorage.removeItem(TOKEN_KEY);
      else sessionStorage.setItem(TOKEN_KEY, token);
    } catch (ignored) {
      // Storage disabled: the token lives in memory only (a reload then needs the link again).
    }
    return token;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY);
  } catch (ignored) {
    return null;
  }
}

// ---- The API -------------------------------------------------------------------------------------

/**
 * Shows the service's disclosure about electronic records and signatures above the consent box,
 * word for word (`GET /api/disclosure`): the consent recorded with the action names its version.
 * Until it is shown, finishing is refused.
 */
async function showDisclosure() {
  try {
    const response = await fetch(new URL('disclosure', API), { headers: { Accept: 'application/json' }, referrerPolicy: 'no-referrer' });
    if (!response.ok) throw new Error('status ' + response.status);
    const disclosure = await response.json();
    $('disclosure').textContent = disclosure.text;
    state.disclosureShown = true;
  } catch (ignored) {
    $('disclosure').textContent = 'The disclosure about electronic signatures could not be loaded. Reload the page before you agree.';
    state.disclosureShown = false;
  }
}

/**
 * One request to the recipient's API. Resolves with the view; rejects with an Error carrying
 * `status` and the problem body (RFC 9457) for any answer that is not 2xx.
 */
async function signingApi(method, path, body) {
  const headers = { Accept: 'application/json', Authorization: 'Bearer ' + state.token };
  const init = { method: method, headers: headers, cache: 'no-store', referrerPolicy: 'no-referrer' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(new URL(path, API), init);
  } catch (ignored) {
    const error = new Error('The service could not be reached. Check your connection and try again.');
    error.status = 0;
    throw error;
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text === '' ? null : JSON.parse(text); } catch (ignored) { parsed = null; }
  if (!response.ok) {
    const error = new Error(parsed && typeof parsed.detail === 'string' ? parsed.detail : 'The service answered ' + response.status + '.');
    error.status = response.status;
    error.problem = parsed;
    throw error;
  }
  return parsed;
}

// ---- What to show --------------------------------------------------------------------------------

function show(section) {
  ['loading', 'message', 'ceremony', 'done'].forEach((id) => { $(id).hidden = id !== section; });
  $('guide').hidden = section !== 'ceremony';
}

const verbs = {
  signer: { ask: 'sign', done: 'signed', noun: 'signature' },
  approver: { ask: 'approve', done: 'approved', noun: 'approval' },
  viewer: { ask: 'review', done: 'reviewed', noun: 'review' },
  cc: { ask: 'receive a copy of', done: 'received', noun: 'copy' },
};

function paragraph(text) {
  const element = document.createElement('p');
  element.textContent = text;
  return element;
}

/** A plain message in place of the document. */
function showMessage(heading, lines, options) {
  show('message');
  document.title = heading + ' · Envelope Signing Service';
  $('message-heading').textContent = heading;
  const body = $('message-body');
  body.textContent = '';
  lines.forEach((line) => body.appendChild(typeof line === 'string' ? paragraph(line) : line));
  $('message-download').hidden = !(options && options.download);
  $('message-heading').focus();
}

function showInvalidLink() {
  showMessage('This link no longer works', [
    'The link may be out of date: when a new invitation is sent, the older links stop working, and a link stops working 30 days after the envelope was closed.',
    'Use the link in your newest e-mail about this envelope, or ask its sender for a new one.',
  ]);
}

/** "Ada Lovelace must sign and Bob Builder must approve". */
function listPeople(people) {
  const parts = people.map((person) => person.name + ' must ' + verbs[person.role].ask);
  if (parts.length <= 1) return parts.join('');
  return parts.slice(0, -1).join(', ') + ' and ' + parts[parts.length - 1];
}

/** A time in the reader's language and time zone, naming the zone ("25 November 2026 at 14:05 CET"). */
function formatDate(iso) {
  if (!iso) return '';
  return new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
}

/** Who sent the envelope: "Ada Lovelace <ada@example.com>" when the owner gave a name, else the address. */
function sender(envelope) {
  return envelope.ownerName ? envelope.ownerName + ' <' + envelope.ownerEmail + '>' : envelope.ownerEmail;
}

/** Decides what the view allows: the ceremony, or the message that explains why not. */
function render(view) {
  state.view = view;
  const envelope = view.envelope;
  const recipient = view.recipient;
  const documentName = envelope.documentName;
  const acted = ['signed', 'approved', 'viewed', 'declined'].indexOf(recipient.status) >= 0;

  if (envelope.status === 'completed') {
    const lines = ['Everyone has acted on ' + documentName + ', and it has been sealed.'];
    if (acted) lines.push('You ' + verbs[recipient.role].done + ' it on ' + formatDate(recipient.actedAt) + '.');
    lines.push('You can download the signed PDF; it carries a certificate of completion and a digital seal.');
    showMessage('This envelope is completed', lines, { download: view.signedUrl !== null });
    return;
  }
  if (envelope.status === 'declined') {
    showMessage('This envelope was declined', [
      recipient.status === 'declined'
        ? 'You declined it on ' + formatDate(recipient.actedAt) + '. Its sender, ' + sender(envelope) + ', was told your reason.'
        : 'A recipient declined ' + documentName + ', so it can no longer be signed. Its sender, ' + sender(envelope) + ', has been told.',
      'There is nothing more to do here.',
    ]);
    return;
  }
  if (envelope.status === 'voided') {
    showMessage('This envelope was withdrawn', [
      'Its sender, ' + sender(envelope) + ', withdrew (voided) ' + documentName + ', so it can no longer be signed.',
      'There is nothing more to do here. If you expected to sign it, contact the sender.',
    ]);
    return;
  }
  if (envelope.status === 'expired' || (envelope.status === 'sent' && !view.canAct && envelope.expiresAt !== null && Date.parse(envelope.expiresAt) <= Date.now() && !acted)) {
    showMessage('This envelope has expired', [
      documentName + ' was not finished by ' + formatDate(envelope.expiresAt) + ', so it can no longer be signed.',
      'Ask its sender, ' + sender(envelope) + ', to send it again if it is still needed.',
    ]);
    return;
  }
  if (acted) {
    showMessage('You already ' + verbs[recipient.role].done + ' this document', [
      'You ' + verbs[recipient.role].done + ' ' + documentName + ' on ' + formatDate(recipient.actedAt) + '.',
      'Once everyone has acted, the signed document comes to you by e-mail.',
    ]);
    return;
  }
  if (recipient.role === 'cc') {
    showMessage('You will receive a copy', [
      sender(envelope) + ' sent you ' + documentName + ' for your information. There is nothing to sign.',
      'Once everyone has acted, the signed document comes to you by e-mail.',
    ]);
    return;
  }
  if (!view.canAct) {
    const lines = view.waitingFor.length > 0
      ? [listPeople(view.waitingFor) + ' ' + documentName + ' first.']
      : ['Someone else has to act on ' + documentName + ' first.'];
    lines.push('You will get an e-mail when it is your turn; this link will work then.');
    showMessage('It is not your turn yet', lines);
    return;
  }
  startCeremony(view).catch(showDocumentError);
}

// ---- The ceremony --------------------------------------------------------------------------------

function fieldName(field) {
  return field.label ? field.label : TYPE_NAMES[field.type] || field.type;
}

/** Fields in reading order: page, then top to bottom, then left to right. */
function readingOrder(a, b) {
  return a.page - b.page || a.y - b.y || a.x - b.x;
}

async function startCeremony(view) {
  const envelope = view.envelope;
  const recipient = view.recipient;
  const role = recipient.role;
  show('ceremony');
  const verb = verbs[role].ask;
  document.title = 'Please ' + verb + ' ' + envelope.documentName + ' · Envelope Signing Service';
  $('request-heading').textContent = 'Please ' + verb + ' ' + envelope.documentName;
  $('request-line').textContent = sender(envelope) + ' asks you to ' + verb + ' ' + envelope.documentName + '.';
  $('recipient-line').textContent = 'You ' + (role === 'viewer' ? 'review it' : verb === 'sign' ? 'sign' : verb) + ' as ' + recipient.name + ' (' + recipient.email + ').';
  $('document-link').href = view.documentUrl;
  $('document-link').addEventListener('click', openDocument);

  void showDisclosure();
  const fillable = view.fields.slice().sort(readingOrder);
  state.fontReady = document.fonts.load('100px Caveat').catch(() => []);
  if (role === 'signer') {
    $('instructions').textContent = fillable.length > 0
      ? 'Fill in the highlighted fields (“Next field” takes you from one to the next), then finish at the end of the document.'
      : 'Read the document, adopt your signature at the end of it, and finish.';
    $('consent-label').textContent = 'I agree to sign this document electronically. My electronic signature counts as my handwritten signature.';
    $('finish-button').textContent = 'Finish';
  } else if (role === 'approver') {
    $('instructions').textContent = 'Read the document, then approve it (or decline) at the end.';
    $('consent-label').textContent = 'I agree to approve this document electronically.';
    $('finish-button').textContent = 'Approve';
  } else {
    $('instructions').textContent = 'Read the document, then confirm at the end that you have read it.';
    $('consent-label').textContent = 'I agree to confirm electronically that I have read this document.';
    $('finish-button').textContent = 'Confirm I have read it';
  }
  $('decline-button').hidden = role === 'viewer';
  $('decline-heading').textContent = role === 'approver' ? 'Decline to approve' : 'Decline to sign';
  const hasSignatureField = fillable.some((field) => field.type === 'signature' || field.type === 'initials');
  $('whole-signature').hidden = !(role === 'signer' && !hasSignatureField);
  $('request-heading').setAttribute('tabindex', '-1');
  $('request-heading').focus();
  updateProgress();

  state.pdf = await openPdf(view.documentUrl);
  const layout = await layoutPages(state.pdf, $('pages'), {
    pageLabel: (number, count) => 'Page ' + number + ' of ' + count,
  });
  layout.pages.forEach((pageElement) => {
    const number = document.createElement('span');
    number.className = 'page-number';
    number.setAttribute('aria-hidden', 'true');
    number.textContent = pageElement.dataset.page + ' / ' + layout.pages.length;
    pageElement.appendChild(number);
  });
  fillable.forEach((field) => {
    const pageElement = layout.pages[field.page - 1];
    if (pageElement === undefined) return;
    const element = createFieldElement(field, recipient, pageElement);
    pageElement.appendChild(element);
    state.entries.set(field.id, { field: field, element: element, value: field.value === undefined ? null : field.value, page: pageElement });
  });
  // What earlier recipients filled in, read-only, in place: what this recipient sees is what gets sealed.
  (view.filled || []).forEach((filled) => {
    const pageElement = layout.pages[filled.page - 1];
    if (pageElement !== undefined) pageElement.appendChild(filledElement(filled, pageElement));
  });
  state.entries.forEach((entry) => paintField(entry));
  updateProgress();
  $('pages').dataset.ready = 'true';
}

/**
 * A value another recipient gave (`view.filled`), shown read-only where the seal will draw it:
 * a signature as drawn or typed, a tick, or the text. Named for screen readers, never focusable.
 */
function filledElement(filled, pageElement) {
  const element = document.createElement('div');
  element.className = 'field field-filled';
  element.dataset.fieldId = filled.fieldId;
  element.dataset.type = filled.type;
  const by = filled.recipient.name;
  const name = fieldName(filled);
  element.setAttribute('role', 'img');
  if (filled.type === 'signature' || filled.type === 'initials') {
    const size = { width: filled.width * Number(pageElement.dataset.width), height: filled.height * Number(pageElement.dataset.height) };
    element.appendChild(signatureArt(filled.value, size));
    element.setAttribute('aria-label', name + ' of ' + by + ('typed' in filled.value ? ': ' + filled.value.typed : ', drawn'));
  } else if (filled.type === 'checkbox') {
    element.classList.add('field-filled-check');
    element.dataset.checked = String(filled.value === true);
    element.setAttribute('aria-label', name + ', ' + (filled.value === true ? 'ticked' : 'not ticked') + ' by ' + by);
  } else {
    const text = document.createElement('span');
    text.textContent = String(filled.value);
    element.appendChild(text);
    element.title = name + ', filled in by ' + by;
    element.setAttribute('aria-label', name + ', filled in by ' + by + ': ' + String(filled.value));
  }
  placeBox(element, filled);
  return element;
}

/**
 * Opens the frozen document in the browser's own viewer with a fresh read URL (the one the page
 * loaded with lasts 15 minutes): reads the view again first.
 */
async function openDocument(event) {
  event.preventDefault();
  // Opened at once, within the click, so no pop-up blocker stops it; pointed at the document once known.
  const opened = window.open('', '_blank');
  try {
    const fresh = await signingApi('GET', 'signing');
    if (opened) {
      opened.opener = null;
      opened.location.href = fresh.documentUrl;
    } else {
      window.location.href = fresh.documentUrl;
    }
  } catch (error) {
    if (opened) opened.close();
    showDocumentError(error);
  }
}

function showDocumentError(error) {
  const box = $('document-error');
  box.textContent = 'The document could not be shown: ' + error.message + ' You can still open it in your own PDF viewer with the link above.';
  box.hidden = false;
}

function placeBox(element, field) {
  element.style.left = field.x * 100 + '%';
  element.style.top = field.y * 100 + '%';
  element.style.width = field.width * 100 + '%';
  element.style.height = field.height * 100 + '%';
}

function createFieldElement(field, recipient, pageElement) {
  const name = fieldName(field);
  const required = field.required !== false;
  let element;
  if (field.readOnly === true) {
    element = readOnlyFieldElement(field, name);
  } else if (VALUE_TYPES.indexOf(field.type) >= 0) {
    element = valueFieldElement(field, name);
  } else if (field.type === 'signature' || field.type === 'initials') {
    element = document.createElement('button');
    element.type = 'button';
    element.className = 'field field-button';
    element.setAttribute('aria-pressed', 'false');
    element.addEventListener('click', () => toggleSignatureField(field.id));
  } else if (field.type === 'checkbox') {
    element = document.createElement('input');
    element.type = 'checkbox';
    element.className = 'field field-check';
    element.setAttribute('aria-label', name);
    element.checked = field.value === true;
    element.addEventListener('change', () => {
      state.entries.get(field.id).value = element.checked;
      element.removeAttribute('aria-invalid');
      paintField(state.entries.get(field.id));
      updateProgress();
    });
  } else {
    // name, email, date_signed: the service fills them in; shown as they will read.
    element = document.createElement('input');
    element.type = 'text';
    element.readOnly = true;
    element.className = 'field field-auto';
    element.setAttribute('aria-label', name);
    element.value = typeof field.value === 'string' && field.value !== '' ? field.value : field.type === 'name' ? recipient.name : field.type === 'email' ? recipient.email : new Date().toISOString().slice(0, 10);
    element.title = name + ': filled in for you';
  }
  element.id = 'field-' + field.id;
  element.dataset.fieldId = field.id;
  element.dataset.type = field.type;
  if (!required) element.classList.add('optional');
  if ((element.tagName === 'INPUT' || element.tagName === 'SELECT') && !element.readOnly && field.readOnly !== true) {
    element.required = required;
    if (field.type === 'checkbox' && required) element.setAttribute('aria-required', 'true');
  }
  const description = document.createElement('span');
  description.className = 'visually-hidden';
  description.id = 'field-' + field.id + '-state';
  pageElement.appendChild(description);
  element.setAttribute('aria-describedby', description.id);
  placeBox(element, field);
  return element;
}

function isFilled(entry) {
  const type = entry.field.type;
  if (type === 'signature' || type === 'initials') return entry.value !== null;
  if (VALUE_TYPES.indexOf(type) >= 0) return typeof entry.value === 'string' && entry.value.trim() !== '';
  if (type === 'checkbox') return entry.value === true;
  return true;
}

/** Whether the recipient has to do something to this field. */
function needsInput(entry) {
  if (entry.field.readOnly === true) return false;
  return ['signature', 'initials', 'checkbox'].concat(VALUE_TYPES).indexOf(entry.field.type) >= 0;
}

/** Shows a field's value and state (visually and for screen readers). */
function paintField(entry) {
  const field = entry.field;
  const element = entry.element;
  const filled = isFilled(entry);
  const required = field.required !== false;
  const description = document.getElementById(element.id + '-state');
  const pageText = 'Page ' + field.page + '.';
  element.classList.toggle('filled', needsInput(entry) && filled);
  if (field.type === 'signature' || field.type === 'initials') {
    element.setAttribute('aria-pressed', String(filled));
    element.textContent = '';
    const name = document.createElement('span');
    name.className = filled ? 'visually-hidden' : 'field-name';
    name.textContent = fieldName(field);
    element.appendChild(name);
    if (filled) element.appendChild(signatureArt(entry.value, fieldSize(entry)));
    description.textContent = (required ? 'Required. ' : 'Optional. ') + (filled ? 'Signed; select it again to remove the signature. ' : 'Not signed yet. ') + pageText;
  } else if (field.readOnly === true) {
    description.textContent = 'Filled in by the sender; it cannot be changed. ' + pageText;
  } else if (needsInput(entry)) {
    description.textContent = (required ? 'Required. ' : 'Optional. ') + valueHints(field) + pageText;
  } else {
    description.textContent = 'Filled in for you when you finish. ' + pageText;
  }
}

/** The field's size in points (the page's shown size times the fractions). */
function fieldSize(entry) {
  return {
    width: entry.field.width * Number(entry.page.dataset.width),
    height: entry.field.height * Number(entry.page.dataset.height),
  };
}

function updateProgress() {
  const role = state.view ? state.view.recipient.role : 'signer';
  const entries = Array.from(state.entries.values()).filter(needsInput);
  const required = entries.filter((entry) => entry.field.required !== false);
  const done = required.filter(isFilled).length;
  const next = $('next-field');
  if (role !== 'signer') {
    $('progress').textContent = role === 'approver' ? 'Read the document, then approve it at the end.' : 'Read the document, then confirm at the end.';
    next.textContent = 'Go to the end';
    return;
  }
  if (required.length === 0) {
    $('progress').textContent = entries.length > 0 ? 'No field is required.' : 'No fields to fill in.';
  } else {
    $('progress').textContent = done + ' of ' + required.length + ' required ' + (required.length === 1 ? 'field' : 'fields') + ' done';
  }
  next.textContent = done < required.length ? 'Next field' : 'Go to Finish';
}

/**
 * Moves to the next required field still empty after the one that has the focus (in reading order,
 * wrapping around); when all are done, to the consent box.
 */
function nextField() {
  const entries = Array.from(state.entries.values()).filter(needsInput).sort((a, b) => readingOrder(a.field, b.field));
  const open = entries.filter((entry) => entry.field.required !== false && !isFilled(entry));
  if (open.length === 0) {
    goToFinish();
    return;
  }
  const current = entries.findIndex((entry) => entry.element === document.activeElement);
  const after = current < 0 ? open[0] : open.find((entry) => entries.indexOf(entry) > current) || open[0];
  guide(after.element);
}

/** Scrolls to a field and focuses it, ringed until it loses the focus. */
function guide(element) {
  element.scrollIntoView({ block: 'center', behavior: prefersMotion() ? 'smooth' : 'auto' });
  element.classList.add('guided');
  element.addEventListener('blur', () => element.classList.remove('guided'), { once: true });
  element.focus({ preventScroll: true });
}

function goToFinish() {
  guide($('whole-signature').hidden || state.wholeSignature !== null ? $('consent') : $('whole-signature-button'));
}

function prefersMotion() {
  return !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}

// ---- Signatures ----------------------------------------------------------------------------------

const SVG = 'http://www.w3.org/2000/svg';

/**
 * The picture of a signature in a box of `size` (points): ink strokes as the seal draws them
 * (smooth curves through the points, 3.5 % of the height wide), or the typed text in Caveat.
 */
function signatureArt(value, size) {
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

/** An SVG path through a stroke's points (fractions of `size`), smoothed as the seal smooths it. */
function strokePath(stroke, size) {
  const points = stroke.map((point) => [point[0] * size.width, point[1] * size.height]);
  const round = (value) => Math.round(value * 100) / 100;
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

let measure = null;

/** The size at which typed text fits a box, as the seal fits it: the height's limit, or the width's. */
function typedFontSize(text, size) {
  if (measure === null) measure = document.createElement('canvas').getContext('2d');
  measure.font = '100px Caveat';
  const width = Math.max(1, measure.measureText(text).width / 100);
  const box = { width: size.width - 2 * Math.min(2, size.width * 0.04), height: size.height - 2 * Math.min(1.5, size.height * 0.06) };
  return Math.max(1, Math.min(box.height / 1.35, box.width / width));
}

/**
 * Drawn strokes (pad pixels) fitted into a box of `size` (points) as fractions 0 to 1 of it: the
 * ink's proportions kept, centred, with a margin; within the API's limits on strokes and points.
 */
function fitStrokes(drawing, size) {
  const box = drawing.box;
  const margin = 0.1;
  const inkWidth = Math.max(box.right - box.left, 1);
  const inkHeight = Math.max(box.bottom - box.top, 1);
  const scale = Math.min((size.width * (1 - 2 * margin)) / inkWidth, (size.height * (1 - 2 * margin)) / inkHeight);
  const offsetX = (size.width - inkWidth * scale) / 2;
  const offsetY = (size.height - inkHeight * scale) / 2;
  const clamp = (value) => Math.min(1, Math.max(0, value));
  const round = (value) => Math.round(value * 10000) / 10000;
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

/** At most `limit` (2 or more) of the stroke's points, evenly spread, the first and the last kept. */
function thin(stroke, limit) {
  if (stroke.length <= limit) return stroke;
  const kept = [];
  for (let index = 0; index < limit; index++) kept.push(stroke[Math.round((index * (stroke.length - 1)) / (limit - 1))]);
  return kept;
}

/** The API value of an adopted signature for a box of `size` points. */
function valueFor(adopted, size) {
  if (adopted.typed !== undefined) return { typed: adopted.typed };
  return { strokes: fitStrokes(adopted, size) };
}

function initialsOf(name) {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => Array.from(word)[0].toUpperCase())
    .join('')
    .slice(0, 4);
}

/** Selecting a signature field: places the adopted signature (adopting one first), or removes it. */
function toggleSignatureField(fieldId) {
  const entry = state.entries.get(fieldId);
  if (entry.value !== null) {
    entry.value = null;
    paintField(entry);
    updateProgress();
    return;
  }
  const kind = entry.field.type;
  if (state.adopted[kind] === null) {
    openAdoptDialog(kind, entry.element, () => placeSignature(entry));
    return;
  }
  placeSignature(entry);
}

function placeSignature(entry) {
  entry.value = valueFor(state.adopted[entry.field.type], fieldSize(entry));
  paintField(entry);
  updateProgress();
  entry.element.focus();
}

// ---- The adopt dialog ----------------------------------------------------------------------------

let afterAdopt = null;
let returnFocus = null;

function openAdoptDialog(kind, opener, then) {
  state.adopting = kind;
  afterAdopt = then;
  returnFocus = opener;
  const name = state.view.recipient.name;
  $('adopt-heading').textContent = kind === 'initials' ? 'Adopt your initials' : 'Adopt your signature';
  $('typed-label').textContent = kind === 'initials' ? 'Your initials, typed' : 'Your signature, typed';
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

function setMode(mode) {
  $('type-panel').hidden = mode !== 'type';
  $('draw-panel').hidden = mode !== 'draw';
  if (mode === 'draw') preparePad();
}

/** The drawing pad, sized to its box at the screen's pixel density. */
function preparePad() {
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

function updateTypedPreview() {
  $('typed-preview').textContent = $('typed-input').value;
}

function adopt(event) {
  event.preventDefault();
  const kind = state.adopting;
  const mode = $('mode-draw').checked ? 'draw' : 'type';
  let adopted;
  if (mode === 'type') {
    const typed = $('typed-input').value.trim();
    if (typed === '') return adoptError('Type your ' + (kind === 'initials' ? 'initials' : 'signature') + ' first, or choose to draw it.', $('typed-input'));
    if (/[\u0000-\u001f\u007f]/.test(typed)) return adoptError('Your signature cannot contain control characters.', $('typed-input'));
    adopted = { typed: typed };
  } else {
    const drawing = state.pad === null ? null : padDrawing(state.pad);
    if (drawing === null) return adoptError('Draw in the box first, or choose to type it.', $('mode-draw'));
    if (drawing === 'too-many-strokes') return adoptError('The drawing has more than ' + MAX_STROKES + ' strokes: clear it and draw it again with fewer.', $('clear-pad'));
    adopted = drawing;
  }
  state.adopted[kind] = adopted;
  $('adopt-dialog').close();
  const then = afterAdopt;
  afterAdopt = null;
  if (then) state.fontReady.then(then);
}

function adoptError(message, focus) {
  const box = $('adopt-error');
  box.textContent = message;
  box.hidden = false;
  focus.focus();
}

// ---- The signature for the certificate (a signer without signature fields) -----------------------

function paintWholeSignature() {
  const button = $('whole-signature-button');
  const signed = state.wholeSignature !== null;
  button.setAttribute('aria-pressed', String(signed));
  button.classList.add('field');
  button.classList.toggle('filled', signed);
  button.textContent = '';
  const name = document.createElement('span');
  name.className = signed ? 'visually-hidden' : 'field-name';
  name.textContent = 'Signature';
  button.appendChild(name);
  if (signed) button.appendChild(signatureArt(state.wholeSignature, { width: 240, height: 75 }));
  $('whole-signature-state').textContent = signed ? 'Signed; select it again to remove the signature.' : 'Required, not signed yet.';
}

function toggleWholeSignature() {
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

// ---- Value fields: text, number, date, dropdown; read-only values -----------------------------------

/** Types whose value is a string the recipient types or picks. */
const VALUE_TYPES = ['text', 'number', 'date', 'dropdown'];

/**
 * The control of a text, number, date or dropdown field: a text input (with the field's `maxLength`),
 * a decimal input (a phone shows its number keyboard), a date picker, or the native select. The
 * sender's default, if any, is filled in. The page checks nothing the service does not: the
 * service judges every value (a number's bounds, a text's pattern) and the page shows its answer.
 */
function valueFieldElement(field, name) {
  let element;
  if (field.type === 'dropdown') {
    element = document.createElement('select');
    element.className = 'field field-choice';
    const none = document.createElement('option');
    none.value = '';
    none.textContent = name;
    element.appendChild(none);
    (field.options || []).forEach((option) => {
      const item = document.createElement('option');
      item.value = option;
      item.textContent = option;
      element.appendChild(item);
    });
  } else {
    element = document.createElement('input');
    element.className = 'field field-text';
    element.autocomplete = 'off';
    if (field.type === 'date') {
      element.type = 'date';
      element.classList.add('field-date');
    } else {
      element.type = 'text';
      element.placeholder = field.type === 'number' ? name + ' (0.00)' : name;
      if (field.type === 'number') element.inputMode = 'decimal';
      element.maxLength = field.type === 'text' && typeof field.maxLength === 'number' ? field.maxLength : 500;
      if (field.type === 'text' && typeof field.minLength === 'number') element.minLength = field.minLength;
    }
  }
  element.setAttribute('aria-label', name);
  if (typeof field.value === 'string') element.value = field.value;
  element.addEventListener(field.type === 'dropdown' || field.type === 'date' ? 'change' : 'input', () => {
    const entry = state.entries.get(field.id);
    entry.value = element.value;
    element.removeAttribute('aria-invalid');
    paintField(entry);
    updateProgress();
  });
  // A date picker reports its value on each change; typing it segment by segment fires input too.
  if (field.type === 'date') element.addEventListener('input', () => { state.entries.get(field.id).value = element.value; updateProgress(); });
  return element;
}

/** A value the sender set and the recipient cannot change: shown in place, focusable, never editable. */
function readOnlyFieldElement(field, name) {
  const element = document.createElement('input');
  element.className = 'field field-auto field-fixed';
  element.setAttribute('aria-label', name);
  if (field.type === 'checkbox') {
    element.type = 'checkbox';
    element.classList.add('field-check');
    element.checked = field.value === true;
    element.setAttribute('aria-readonly', 'true');
    element.addEventListener('click', (event) => event.preventDefault());
  } else {
    element.type = 'text';
    element.readOnly = true;
    element.value = String(field.value);
  }
  element.title = name + ': set by the sender';
  return element;
}

/** What the recipient should know about a field's rules, as words (the service judges them). */
function valueHints(field) {
  const hints = [];
  if (field.type === 'number') {
    hints.push('A number, such as 12.50.');
    if (typeof field.min === 'number' && typeof field.max === 'number') hints.push('From ' + field.min + ' to ' + field.max + '.');
    else if (typeof field.min === 'number') hints.push('At least ' + field.min + '.');
    else if (typeof field.max === 'number') hints.push('At most ' + field.max + '.');
  } else if (field.type === 'date') {
    hints.push('A date.');
  } else if (field.type === 'dropdown') {
    hints.push('Choose one of ' + (field.options || []).length + ' options.');
  } else if (field.type === 'text') {
    if (typeof field.minLength === 'number' && field.minLength > 0) hints.push('At least ' + field.minLength + ' characters.');
    if (typeof field.maxLength === 'number') hints.push('At most ' + field.maxLength + ' characters.');
    if (typeof field.pattern === 'string') hints.push('Must be in the format the sender asks for.');
  }
  return hints.length > 0 ? hints.join(' ') + ' ' : '';
}

/** The value of a text, number, date or dropdown field as the API takes it ("" leaves it empty). */
function valueToSend(entry) {
  const value = typeof entry.value === 'string' ? entry.value.trim() : '';
  // A decimal comma (what many phone keyboards offer) is the API's decimal point.
  return entry.field.type === 'number' ? value.replace(/^(-?[0-9]+),([0-9]+)$/, '$1.$2') : value;
}

/** The service's complaints as lines, each naming the field by its name on the page where it can. */
function refusalItems(problem) {
  if (!problem || !Array.isArray(problem.errors)) return [];
  return problem.errors.map((item) => {
    const entry = refusedEntry(item.path, state.lastValues);
    // The service names the field by label and id at the end of its message; the page names it first.
    return entry ? fieldName(entry.field) + ' (page ' + entry.field.page + '): ' + item.message.replace(/ \(field [^()]*\)$/, '') : item.path + ': ' + item.message;
  });
}

/** Marks the fields the service refused (`values.N.value`) invalid and returns the first, to focus. */
function refusedField(problem, body) {
  if (!problem || !Array.isArray(problem.errors) || !body || !Array.isArray(body.values)) return null;
  let first = null;
  problem.errors.forEach((item) => {
    const entry = refusedEntry(item.path, body.values);
    if (!entry) return;
    entry.element.setAttribute('aria-invalid', 'true');
    if (first === null) first = entry.element;
  });
  return first;
}

/** The entry a problem path `values.N...` points at, through the values the page sent. */
function refusedEntry(path, values) {
  const match = /^values\.([0-9]+)/.exec(path || '');
  if (!match || !Array.isArray(values) || !values[Number(match[1])]) return null;
  return state.entries.get(values[Number(match[1])].fieldId) || null;
}

// ---- Finish and decline --------------------------------------------------------------------------

function finishError(message, items, focus) {
  const box = $('finish-error');
  box.textContent = '';
  box.appendChild(paragraph(message));
  if (items && items.length > 0) {
    const list = document.createElement('ul');
    items.forEach((item) => {
      const entry = document.createElement('li');
      entry.textContent = item;
      list.appendChild(entry);
    });
    box.appendChild(list);
  }
  box.hidden = false;
  if (focus) {
    focus.scrollIntoView({ block: 'center' });
    focus.focus({ preventScroll: true });
  }
}

async function finish() {
  const view = state.view;
  $('finish-error').hidden = true;
  const values = [];
  const missing = [];
  Array.from(state.entries.values())
    .filter(needsInput)
    .sort((a, b) => readingOrder(a.field, b.field))
    .forEach((entry) => {
      const required = entry.field.required !== false;
      if (required && !isFilled(entry)) {
        missing.push(entry);
        if (entry.element.tagName === 'INPUT' || entry.element.tagName === 'SELECT') entry.element.setAttribute('aria-invalid', 'true');
        return;
      }
      if (entry.field.type === 'checkbox') values.push({ fieldId: entry.field.id, value: entry.value === true });
      else if (VALUE_TYPES.indexOf(entry.field.type) >= 0) values.push({ fieldId: entry.field.id, value: valueToSend(entry) });
      else if (entry.value !== null) values.push({ fieldId: entry.field.id, value: entry.value });
    });
  if (missing.length > 0) {
    finishError(
      missing.length === 1 ? 'One required field is still empty:' : missing.length + ' required fields are still empty:',
      missing.map((entry) => fieldName(entry.field) + ', page ' + entry.field.page),
      missing[0].element,
    );
    return;
  }
  if (!$('whole-signature').hidden && state.wholeSignature === null) {
    finishError('Adopt your signature first: select the signature box.', [], $('whole-signature-button'));
    return;
  }
  if (state.disclosureShown !== true) {
    finishError('The disclosure about electronic signatures could not be loaded. Reload the page before you agree.', [], $('consent'));
    return;
  }
  if (!$('consent').checked) {
    $('consent').setAttribute('aria-invalid', 'true');
    finishError('Tick the box to agree to ' + verbs[view.recipient.role].ask + ' electronically.', [], $('consent'));
    return;
  }
  const body = { consent: true, values: view.recipient.role === 'signer' ? values : [] };
  if (view.recipient.role === 'signer') {
    const signature = state.wholeSignature || (state.adopted.signature ? valueFor(state.adopted.signature, { width: 240, height: 75 }) : null);
    if (signature !== null) body.signature = signature;
  }
  state.lastValues = body.values;
  await act($('finish-button'), 'signing/complete', body, 'finish');
}

async function decline(event) {
  event.preventDefault();
  // A reason is one line for the API (no line breaks or other control characters): the lines a
  // person typed in the box are joined with spaces.
  const reason = $('decline-reason').value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  if (reason === '') {
    $('decline-error').textContent = 'Please say why you are declining: the sender will receive your reason.';
    $('decline-error').hidden = false;
    $('decline-reason').setAttribute('aria-invalid', 'true');
    $('decline-reason').focus();
    return;
  }
  $('decline-dialog').close();
  await act($('decline-button'), 'signing/decline', { reason: reason }, 'decline');
}

/** Sends an action; on success shows what happened, on a 409 shows why the page's state was out of date. */
async function act(button, path, body, kind) {
  button.disabled = true;
  try {
    const view = await signingApi('POST', path, body);
    state.view = view;
    showDone(view, kind);
  } catch (error) {
    if (error.status === 401) return showInvalidLink();
    if (error.status === 409 || error.status === 403) {
      try {
        render(await signingApi('GET', 'signing'));
      } catch (again) {
        if (again.status === 401) return showInvalidLink();
      }
      return;
    }
    const refused = refusedField(error.problem, body);
    finishError(refused ? 'Some of your entries were not accepted. Correct them and finish again:' : error.message, refusalItems(error.problem), refused);
  } finally {
    button.disabled = false;
  }
}

function showDone(view, kind) {
  show('done');
  const envelope = view.envelope;
  const role = view.recipient.role;
  const body = $('done-body');
  body.textContent = '';
  if (kind === 'decline') {
    $('done-heading').textContent = 'You declined ' + envelope.documentName;
    body.appendChild(paragraph('The envelope is closed. Its sender, ' + sender(envelope) + ', has been told your reason.'));
    $('done-download').hidden = true;
  } else {
    $('done-heading').textContent = 'Thank you: you ' + verbs[role].done + ' ' + envelope.documentName;
    body.appendChild(paragraph('Recorded on ' + formatDate(view.recipient.actedAt) + '.'));
    if (envelope.status === 'completed' && view.signedUrl !== null) {
      body.appendChild(paragraph('Everyone has now acted, and the document has been sealed. Download it here; a copy is also on its way to you by e-mail.'));
      $('done-download').hidden = false;
    } else {
      body.appendChild(paragraph('Once everyone has acted, the signed document comes to you by e-mail. You can close this page.'));
      $('done-download').hidden = true;
    }
  }
  document.title = $('done-heading').textContent + ' · Envelope Signing Service';
  $('done-heading').focus();
  window.scrollTo(0, 0);
}

/** Saves the sealed PDF, through a fresh read-only URL. */
async function download(button) {
  button.disabled = true;
  $('download-status').textContent = 'Downloading the signed PDF…';
  try {
    const view = await signingApi('GET', 'signing');
    if (view.signedUrl === null) throw new Error('The signed PDF is not ready yet.');
    const response = await fetch(view.signedUrl, { referrerPolicy: 'no-referrer' });
    if (!response.ok) throw new Error('Storage answered ' + response.status + ' for the signed PDF.');
    const blob = await response.blob();
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
    link.download = view.envelope.documentName.replace(/\.pdf$/i, '') + '-signed.pdf';
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    $('download-status').textContent = 'Downloaded ' + link.download + '.';
  } catch (error) {
    if (error.status === 401) return showInvalidLink();
    $('download-status').textContent = 'The download failed: ' + error.message;
  } finally {
    button.disabled = false;
  }
}

// ---- Wiring --------------------------------------------------------------------------------------

function wire() {
  $('next-field').addEventListener('click', () => {
    if (state.view && state.view.recipient.role !== 'signer') goToFinish();
    else nextField();
  });
  $('finish-button').addEventListener('click', () => { finish(); });
  $('consent').addEventListener('change', () => $('consent').removeAttribute('aria-invalid'));
  $('decline-button').addEventListener('click', () => {
    $('decline-error').hidden = true;
    $('decline-reason').removeAttribute('aria-invalid');
    $('decline-dialog').showModal();
    $('decline-reason').focus();
  });
  $('decline-form').addEventListener('submit', decline);
  $('decline-cancel').addEventListener('click', () => {
    $('decline-dialog').close();
    $('decline-button').focus();
  });
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
  $('whole-signature-button').addEventListener('click', toggleWholeSignature);
  $('message-download-button').addEventListener('click', () => download($('message-download-button')));
  $('done-download-button').addEventListener('click', () => download($('done-download-button')));
  window.addEventListener('resize', () => { if (!$('draw-panel').hidden) preparePad(); });
}

async function start() {
  wire();
  // Another link opened in this tab: start again with its token.
  window.addEventListener('hashchange', () => {
    if (window.location.hash.length > 1) {
      readToken();
      window.location.reload();
    }
  });
  paintWholeSignature();
  state.token = readToken();
  if (state.token === null) {
    showMessage('This page needs the link from your e-mail', [
      'Open the signing link in the e-mail you received about the envelope: it carries your personal key to the document.',
    ]);
    return;
  }
  try {
    render(await signingApi('GET', 'signing'));
  } catch (error) {
    if (error.status === 401) showInvalidLink();
    else showMessage('The envelope could not be loaded', [error.message, 'Reload the page to try again.']);
  }
}

start();
