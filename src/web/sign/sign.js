// The signing page (GET /api/sign): where a recipient's e-mail link leads.
//
// The link is /api/sign#<token>. The token is read from the fragment (which browsers never send to a
// server), removed from the address bar at once, and kept in this tab's sessionStorage so a reload
// still works. It is sent only as the bearer token of /api/signing. Everything the page loads comes
// from this service; the document and the sealed PDF come from Blob storage through the read-only
// SAS URLs of the recipient's view.
import SignaturePad from './signature_pad.min.js';
import { layoutPages, openPdf } from './pdfPages.js';
import { keepFieldsLaidOut } from './fieldLayout.js';
import { fillRich, formatDate, formatList, isSupported, LOCALE_NAMES, locale, localiseDocument, preferredLocale, t, useLocale } from './i18n.js';

/** /api/, whatever the host's route prefix. */
const API = new URL('../', import.meta.url);
const TOKEN_KEY = 'envelope-signing-token';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

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
  /** The document's download, started as soon as the view says the recipient can act. */
  pdfLoading: null,
  /** Redraws the words of what the page shows now (after a change of language). */
  screen: null,
  /** Whether the reader picked a language with the switch (the page then keeps it). */
  languageChosen: false,
  /** The document's page elements, once laid out. */
  pages: [],
  /** Other recipients' values shown on the pages: {filled, element}. */
  filled: [],
  /** Caveat, loaded: typed signatures are measured in it to fit their fields. */
  fontReady: Promise.resolve(),
  /** The code form: wrong codes still allowed, and whether a one-time code was e-mailed from this page. */
  attemptsLeft: undefined,
  codeSent: false,
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
    $('disclosure').textContent = t('disclosureFailed');
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
    const error = new Error(t('unreachable'));
    error.status = 0;
    throw error;
  }
  const text = await response.text();
  let parsed = null;
  try { parsed = text === '' ? null : JSON.parse(text); } catch (ignored) { parsed = null; }
  if (!response.ok) {
    const error = new Error(parsed && typeof parsed.detail === 'string' ? parsed.detail : t('serviceAnswered', { status: response.status }));
    error.status = response.status;
    error.problem = parsed;
    throw error;
  }
  return parsed;
}

// ---- What to show --------------------------------------------------------------------------------

function show(section) {
  ['loading', 'message', 'authenticate', 'ceremony', 'done'].forEach((id) => { $(id).hidden = id !== section; });
  $('guide').hidden = section !== 'ceremony';
}

function paragraph(text) {
  const element = document.createElement('p');
  element.textContent = text;
  return element;
}

/** A plain message in place of the document. */
function showMessage(heading, lines, options) {
  show('message');
  document.title = t('pageTitle', { heading: heading });
  $('message-heading').textContent = heading;
  const body = $('message-body');
  body.textContent = '';
  lines.forEach((line) => body.appendChild(typeof line === 'string' ? paragraph(line) : line));
  $('message-download').hidden = !(options && options.download);
  $('message-heading').focus();
}

function showInvalidLink() {
  state.screen = showInvalidLink;
  showMessage(t('invalidLinkHeading'), [t('invalidLinkWhy'), t('invalidLinkWhat')]);
}

/** "Ada Lovelace must sign and Bob Builder must approve". */
function listPeople(people) {
  return formatList(people.map((person) => t('waitingPerson', { name: person.name, role: person.role })));
}

/** Who sent the envelope: "Ada Lovelace <ada@example.com>" when the owner gave a name, else the address. */
function sender(envelope) {
  return envelope.ownerName ? envelope.ownerName + ' <' + envelope.ownerEmail + '>' : envelope.ownerEmail;
}

/** Decides what the view allows: the ceremony, or the message that explains why not. */
function render(view) {
  state.view = view;
  state.screen = () => render(view);
  const envelope = view.envelope;
  const recipient = view.recipient;
  const role = recipient.role;
  const documentName = envelope.documentName;
  const acted = ['signed', 'approved', 'viewed', 'declined'].indexOf(recipient.status) >= 0;
  if (recipient.status === 'reassigned') return showReassigned(view);

  if (envelope.status === 'completed') {
    const lines = [t('completedEveryone', { document: documentName })];
    if (acted) lines.push(t('youActedOn', { role: role, date: formatDate(recipient.actedAt) }));
    lines.push(t('completedDownload'));
    showMessage(t('completedHeading'), lines, { download: view.signedUrl !== null });
    return;
  }
  if (envelope.status === 'declined') {
    showMessage(t('declinedHeading'), [
      recipient.status === 'declined'
        ? t('declinedByYou', { date: formatDate(recipient.actedAt), sender: sender(envelope) })
        : t('declinedByOther', { document: documentName, sender: sender(envelope) }),
      t('nothingMore'),
    ]);
    return;
  }
  if (envelope.status === 'voided') {
    showMessage(t('voidedHeading'), [t('voidedBody', { sender: sender(envelope), document: documentName }), t('voidedWhat')]);
    return;
  }
  if (envelope.status === 'expired' || (envelope.status === 'sent' && !view.canAct && envelope.expiresAt !== null && Date.parse(envelope.expiresAt) <= Date.now() && !acted)) {
    showMessage(t('expiredHeading'), [
      t('expiredBody', { document: documentName, date: formatDate(envelope.expiresAt) }),
      t('expiredWhat', { sender: sender(envelope) }),
    ]);
    return;
  }
  if (acted) {
    showMessage(t('alreadyHeading', { role: role }), [
      t('alreadyBody', { role: role, document: documentName, date: formatDate(recipient.actedAt) }),
      t(getsCompletedEmail(recipient) ? 'signedComesByEmail' : 'nothingMore'),
    ]);
    return;
  }
  if (recipient.role === 'cc') {
    showMessage(t('ccHeading'), [t('ccBody', { sender: sender(envelope), document: documentName }), t(getsCompletedEmail(recipient) ? 'signedComesByEmail' : 'nothingMore')]);
    return;
  }
  if (!view.canAct) {
    const lines = view.waitingFor.length > 0
      ? [t('waitingFor', { people: listPeople(view.waitingFor), document: documentName })]
      : [t('waitingForSomeone', { document: documentName })];
    lines.push(t(recipient.delivery === 'embedded' ? 'waitingEmbedded' : 'waitingEmail'));
    showMessage(t('notYourTurnHeading'), lines);
    return;
  }
  startCeremony(view).catch(showDocumentError);
}

/**
 * Whether the completed e-mail (with the signed document) reaches the recipient: always by e-mail
 * delivery; an embedded recipient only with `notifyOnCompletion`.
 */
function getsCompletedEmail(recipient) {
  return recipient.delivery !== 'embedded' || recipient.notifyOnCompletion === true;
}

// ---- The ceremony --------------------------------------------------------------------------------

function fieldName(field) {
  if (field.label) return field.label;
  return ['number', 'date', 'dropdown'].indexOf(field.type) >= 0 ? t('fieldTypeValue', { type: field.type }) : t('fieldType', { type: field.type });
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
  const fillable = view.fields.slice().sort(readingOrder);
  state.screen = relabelCeremony;
  ceremonyTexts(view, fillable);
  $('document-link').addEventListener('click', openDocument);
  offerReassignment(view);

  void showDisclosure();
  state.fontReady = document.fonts.load('100px Caveat').catch(() => []);
  $('decline-button').hidden = role === 'viewer';
  const hasSignatureField = fillable.some((field) => field.type === 'signature' || field.type === 'initials');
  $('whole-signature').hidden = !(role === 'signer' && !hasSignatureField);
  $('request-heading').setAttribute('tabindex', '-1');
  $('request-heading').focus();
  updateProgress();

  state.pdf = await (state.pdfLoading || openPdf(view.documentUrl));
  state.pdfLoading = null;
  const layout = await layoutPages(state.pdf, $('pages'), {
    pageLabel: (number, count) => t('pageOf', { number: number, count: count }),
  });
  state.pages = layout.pages;
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
    if (pageElement === undefined) return;
    const element = filledElement(filled, pageElement);
    state.filled.push({ filled: filled, element: element });
    pageElement.appendChild(element);
  });
  state.entries.forEach((entry) => paintField(entry));
  layOutForTouch(layout.pages);
  updateProgress();
  $('pages').dataset.ready = 'true';
}

/** Each page's fields as boxes at their true size with hit areas for a finger around them (fieldLayout.js). */
function layOutForTouch(pageElements) {
  const entries = Array.from(state.entries.values());
  keepFieldsLaidOut(pageElements.map((pageElement) => ({ pageElement: pageElement, entries: entries.filter((entry) => entry.page === pageElement) })));
}

/** The ceremony's words for this recipient's role, in the page's language. */
function ceremonyTexts(view, fillable) {
  const envelope = view.envelope;
  const recipient = view.recipient;
  const role = recipient.role;
  const words = { role: role, document: envelope.documentName, sender: sender(envelope), name: recipient.name, email: recipient.email };
  document.title = t('pageTitle', { heading: t('requestHeading', words) });
  $('request-heading').textContent = t('requestHeading', words);
  $('request-line').textContent = t('requestLine', words);
  $('recipient-line').textContent = t('recipientLine', words);
  fillRich($('document-hint'), 'openDocument', {
    link: (text) => {
      const link = $('document-link');
      link.textContent = text;
      link.href = view.documentUrl;
      return link;
    },
  });
  if (role === 'signer') $('instructions').textContent = t(fillable.length > 0 ? 'instructionsFields' : 'instructionsNoFields');
  else $('instructions').textContent = t(role === 'approver' ? 'instructionsApprover' : 'instructionsViewer');
  $('consent-label').textContent = t('consent', words);
  $('finish-button').textContent = t('finishButton', words);
  $('decline-heading').textContent = t('declineHeading', words);
  $('reassign-button').textContent = t('reassignOffer', words);
}

/** After a change of language: every word of the ceremony again, the recipient's work kept. */
function relabelCeremony() {
  const view = state.view;
  ceremonyTexts(view, view.fields);
  if (state.disclosureShown !== true) $('disclosure').textContent = t('disclosureFailed');
  state.pages.forEach((pageElement) => pageElement.setAttribute('aria-label', t('pageOf', { number: Number(pageElement.dataset.page), count: state.pages.length })));
  state.entries.forEach((entry) => { labelField(entry.field, entry.element); paintField(entry); });
  state.filled.forEach((item) => labelFilled(item.filled, item.element));
  paintWholeSignature();
  updateProgress();
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
  element.setAttribute('role', 'img');
  if (filled.type === 'signature' || filled.type === 'initials') {
    const size = { width: filled.width * Number(pageElement.dataset.width), height: filled.height * Number(pageElement.dataset.height) };
    element.appendChild(signatureArt(filled.value, size));
  } else if (filled.type === 'checkbox') {
    element.classList.add('field-filled-check');
    element.dataset.checked = String(filled.value === true);
  } else {
    const text = document.createElement('span');
    text.dir = 'auto';
    text.textContent = String(filled.value);
    element.appendChild(text);
  }
  labelFilled(filled, element);
  placeBox(element, filled);
  return element;
}

/** The accessible name (and tooltip) of another recipient's value. */
function labelFilled(filled, element) {
  const words = { name: fieldName(filled), person: filled.recipient.name };
  if (filled.type === 'signature' || filled.type === 'initials') {
    element.setAttribute('aria-label', 'typed' in filled.value ? t('filledSignature', { ...words, typed: filled.value.typed }) : t('filledSignatureDrawn', words));
  } else if (filled.type === 'checkbox') {
    element.setAttribute('aria-label', t('filledCheck', { ...words, ticked: String(filled.value === true) }));
  } else {
    element.title = t('filledText', words);
    element.setAttribute('aria-label', t('filledTextValue', { ...words, value: String(filled.value) }));
  }
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
    if (needsCode(fresh)) {
      if (opened) opened.close();
      return showAuthentication(fresh);
    }
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
  box.textContent = t('documentError', { message: error.message });
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
    element = readOnlyFieldElement(field);
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
    element.dir = 'auto';
    element.value = typeof field.value === 'string' && field.value !== '' ? field.value : field.type === 'name' ? recipient.name : field.type === 'email' ? recipient.email : new Date().toISOString().slice(0, 10);
  }
  labelField(field, element);
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

/** A field's accessible name (its label, else its type), and its placeholder or tooltip. */
function labelField(field, element) {
  const name = fieldName(field);
  if (field.readOnly !== true && (field.type === 'signature' || field.type === 'initials')) return;
  element.setAttribute('aria-label', name);
  if (field.readOnly === true) element.title = t('readOnlyFieldTitle', { name: name });
  else if (field.type === 'text') element.placeholder = name;
  else if (field.type === 'number') element.placeholder = t('numberPlaceholder', { name: name });
  else if (field.type === 'dropdown') element.options[0].textContent = name;
  else if (VALUE_TYPES.indexOf(field.type) < 0 && field.type !== 'checkbox') element.title = t('autoFieldTitle', { name: name });
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
  const pageText = t('statePage', { page: field.page });
  element.classList.toggle('filled', needsInput(entry) && filled);
  if (field.type === 'signature' || field.type === 'initials') {
    element.setAttribute('aria-pressed', String(filled));
    element.textContent = '';
    const name = document.createElement('span');
    name.className = filled ? 'visually-hidden' : 'field-name';
    name.textContent = fieldName(field);
    element.appendChild(name);
    if (filled) element.appendChild(signatureArt(entry.value, fieldSize(entry)));
    description.textContent = [t(required ? 'stateRequired' : 'stateOptional'), t(filled ? 'stateSigned' : 'stateNotSigned'), pageText].join(' ');
  } else if (field.readOnly === true) {
    description.textContent = [t('stateReadOnly'), pageText].join(' ');
  } else if (needsInput(entry)) {
    description.textContent = [t(required ? 'stateRequired' : 'stateOptional')].concat(valueHints(field), [pageText]).join(' ');
  } else {
    description.textContent = [t('stateAuto'), pageText].join(' ');
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
    $('progress').textContent = t(role === 'approver' ? 'progressApprover' : 'progressViewer');
    next.textContent = t('goToEnd');
    return;
  }
  if (required.length === 0) {
    $('progress').textContent = t(entries.length > 0 ? 'progressNoneRequired' : 'progressNoFields');
  } else {
    $('progress').textContent = t('progress', { done: done, total: required.length });
  }
  next.textContent = t(done < required.length ? 'nextField' : 'goToFinish');
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
  name.textContent = t('fieldType', { type: 'signature' });
  button.appendChild(name);
  if (signed) button.appendChild(signatureArt(state.wholeSignature, { width: 240, height: 75 }));
  $('whole-signature-state').textContent = t(signed ? 'stateSigned' : 'wholeSignatureRequired');
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
      element.dir = field.type === 'number' ? 'ltr' : 'auto';
      if (field.type === 'number') element.inputMode = 'decimal';
      element.maxLength = field.type === 'text' && typeof field.maxLength === 'number' ? field.maxLength : 500;
      if (field.type === 'text' && typeof field.minLength === 'number') element.minLength = field.minLength;
    }
  }
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
function readOnlyFieldElement(field) {
  const element = document.createElement('input');
  element.className = 'field field-auto field-fixed';
  if (field.type === 'checkbox') {
    element.type = 'checkbox';
    element.classList.add('field-check');
    element.checked = field.value === true;
    element.setAttribute('aria-readonly', 'true');
    element.addEventListener('click', (event) => event.preventDefault());
  } else {
    element.type = 'text';
    element.readOnly = true;
    element.dir = 'auto';
    element.value = String(field.value);
  }
  return element;
}

/**
 * What the recipient should know about a field's rules, as sentences (the service judges them). The
 * catalogues write a number's bounds with the language's decimal sign but no grouping
 * (`::group-off`): a German "100.000" typed back would be a hundred to the API.
 */
function valueHints(field) {
  const hints = [];
  if (field.type === 'number') {
    hints.push(t('hintNumber'));
    if (typeof field.min === 'number' && typeof field.max === 'number') hints.push(t('hintRange', { min: field.min, max: field.max }));
    else if (typeof field.min === 'number') hints.push(t('hintMin', { min: field.min }));
    else if (typeof field.max === 'number') hints.push(t('hintMax', { max: field.max }));
  } else if (field.type === 'date') {
    hints.push(t('hintDate'));
  } else if (field.type === 'dropdown') {
    hints.push(t('hintOptions', { count: (field.options || []).length }));
  } else if (field.type === 'text') {
    if (typeof field.minLength === 'number' && field.minLength > 0) hints.push(t('hintMinLength', { count: field.minLength }));
    if (typeof field.maxLength === 'number') hints.push(t('hintMaxLength', { count: field.maxLength }));
    if (typeof field.pattern === 'string') hints.push(t('hintPattern'));
  }
  return hints;
}

/**
 * Why the service refused a field's value, in the page's language: the service's message (English,
 * as src/lib/envelopes/fieldRules.ts words it, e.g. `must be at least 10`) is recognised by its
 * opening words and told again from the field's own rules; a message the page does not know is shown
 * as the service wrote it.
 */
function refusalReason(field, message) {
  if (/^must not be empty/.test(message)) return t('refusalEmpty');
  if (/^must be true/.test(message)) return t('refusalCheck');
  if (/^must be a (decimal number|string such as)/.test(message)) return t('hintNumber');
  if (/^must be at least [0-9]+ characters/.test(message) && typeof field.minLength === 'number') return t('hintMinLength', { count: field.minLength });
  if (/^must be at most [0-9]+ characters/.test(message)) return t('hintMaxLength', { count: typeof field.maxLength === 'number' ? field.maxLength : Number(/[0-9]+/.exec(message)[0]) });
  if (/^must be at least /.test(message) && typeof field.min === 'number') return t('hintMin', { min: field.min });
  if (/^must be at most /.test(message) && typeof field.max === 'number') return t('hintMax', { max: field.max });
  if (/^must be a date/.test(message)) return t('refusalDate');
  if (/^must be one of the options/.test(message)) return t('refusalOption');
  if (/^must match the pattern/.test(message)) return t('hintPattern');
  return message;
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
    if (!entry) return item.path + ': ' + item.message;
    const reason = refusalReason(entry.field, item.message.replace(/ \(field [^()]*\)$/, ''));
    return t('refusalItem', { name: fieldName(entry.field), page: entry.field.page, message: reason });
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
      t('missingFields', { count: missing.length }),
      missing.map((entry) => t('missingField', { name: fieldName(entry.field), page: entry.field.page })),
      missing[0].element,
    );
    return;
  }
  if (!$('whole-signature').hidden && state.wholeSignature === null) {
    finishError(t('adoptFirst'), [], $('whole-signature-button'));
    return;
  }
  if (state.disclosureShown !== true) {
    finishError(t('disclosureFailed'), [], $('consent'));
    return;
  }
  if (!$('consent').checked) {
    $('consent').setAttribute('aria-invalid', 'true');
    finishError(t('tickConsent', { role: view.recipient.role }), [], $('consent'));
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
    $('decline-error').textContent = t('declineReasonMissing');
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
    afterEmbeddedAction(view);
  } catch (error) {
    if (error.status === 401) return showInvalidLink();
    if (error.status === 423) return showLocked();
    if (error.status === 409 || error.status === 403) {
      try {
        showViewOrCode(await signingApi('GET', 'signing'));
      } catch (again) {
        if (again.status === 401) return showInvalidLink();
      }
      return;
    }
    const refused = refusedField(error.problem, body);
    finishError(refused ? t('refusalHeading') : error.message, refusalItems(error.problem), refused);
  } finally {
    button.disabled = false;
  }
}

function showDone(view, kind) {
  state.screen = () => showDone(view, kind);
  show('done');
  const envelope = view.envelope;
  const role = view.recipient.role;
  const body = $('done-body');
  body.textContent = '';
  if (kind === 'decline') {
    $('done-heading').textContent = t('declinedDoneHeading', { document: envelope.documentName });
    body.appendChild(paragraph(t('declinedDoneBody', { sender: sender(envelope) })));
    $('done-download').hidden = true;
  } else {
    $('done-heading').textContent = t('doneHeading', { role: role, document: envelope.documentName });
    body.appendChild(paragraph(t('recordedOn', { date: formatDate(view.recipient.actedAt) })));
    if (envelope.status === 'completed' && view.signedUrl !== null) {
      body.appendChild(paragraph(t(getsCompletedEmail(view.recipient) ? 'doneSealed' : 'doneSealedNoEmail')));
      $('done-download').hidden = false;
    } else {
      body.appendChild(paragraph(t(getsCompletedEmail(view.recipient) ? 'doneWaiting' : 'doneWaitingNoEmail')));
      $('done-download').hidden = true;
    }
  }
  document.title = t('pageTitle', { heading: $('done-heading').textContent });
  $('done-heading').focus();
  window.scrollTo(0, 0);
}

/** Saves the sealed PDF, through a fresh read-only URL. */
async function download(button) {
  button.disabled = true;
  $('download-status').textContent = t('downloading');
  try {
    const view = await signingApi('GET', 'signing');
    if (needsCode(view)) return showAuthentication(view);
    if (view.signedUrl === null) throw new Error(t('notReady'));
    const response = await fetch(view.signedUrl, { referrerPolicy: 'no-referrer' });
    if (!response.ok) throw new Error(t('storageAnswered', { status: response.status }));
    const blob = await response.blob();
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
    link.download = view.envelope.documentName.replace(/\.pdf$/i, '') + '-signed.pdf';
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    $('download-status').textContent = t('downloaded', { file: link.download });
  } catch (error) {
    if (error.status === 401) return showInvalidLink();
    $('download-status').textContent = t('downloadFailed', { message: error.message });
  } finally {
    button.disabled = false;
  }
}

// ---- Embedded signing ------------------------------------------------------------------------------
//
// A view opened by the sender's application (/api/sign/v/<viewId>) carries, in <meta name="signing-view">,
// the origins allowed to frame it (the page's Content-Security-Policy frame-ancestors) and where to go
// after acting in a top-level window. Framed, the page tells its parent what happens with
// {source: "envelope-signing", event, envelopeId, recipientId}, posted only to the allowed origins
// (a message to any other origin is dropped by the browser); never the token.

/** The view's context, or none (the e-mail link's page). */
function embedContext() {
  const meta = document.querySelector('meta[name="signing-view"]');
  if (meta === null) return { frameAncestors: [], returnUrl: null };
  try {
    const parsed = JSON.parse(meta.getAttribute('content'));
    return {
      frameAncestors: Array.isArray(parsed.frameAncestors) ? parsed.frameAncestors.filter((origin) => typeof origin === 'string') : [],
      returnUrl: typeof parsed.returnUrl === 'string' ? parsed.returnUrl : null,
    };
  } catch (ignored) {
    return { frameAncestors: [], returnUrl: null };
  }
}

function isFramed() {
  try { return window.parent !== window; } catch (ignored) { return true; }
}

/** Posts one event to the parent window, at each allowed origin (only the parent's own receives it). */
function notifyParent(event, view) {
  if (!isFramed()) return;
  const message = {
    source: 'envelope-signing',
    event: event,
    envelopeId: view ? view.envelope.id : null,
    recipientId: view ? view.recipient.id : null,
  };
  embedContext().frameAncestors.forEach((origin) => {
    try { window.parent.postMessage(message, origin); } catch (ignored) { /* an origin the browser refuses */ }
  });
}

/** After an action: the events for the parent, or, in a top-level window, the view's return URL. */
function afterEmbeddedAction(view) {
  const event = view.recipient.status;
  if (['signed', 'approved', 'viewed', 'declined'].indexOf(event) < 0) return;
  if (isFramed()) {
    notifyParent(event, view);
    if (view.envelope.status === 'completed') notifyParent('completed', view);
    return;
  }
  const returnUrl = embedContext().returnUrl;
  if (returnUrl === null) return;
  const target = new URL(returnUrl);
  target.searchParams.set('event', event);
  target.searchParams.set('envelopeId', view.envelope.id);
  target.searchParams.set('recipientId', view.recipient.id);
  window.location.assign(target.href);
}

// ---- Reassignment --------------------------------------------------------------------------------

/** Offers "Someone else should sign this" when the envelope allows it and the recipient may act. */
function offerReassignment(view) {
  const role = view.recipient.role;
  $('reassign-offer').hidden = !(view.envelope.allowReassign === true && view.canAct && (role === 'signer' || role === 'approver'));
  $('reassign-button').textContent = t('reassignOffer', { role: role });
}

function reassignError(message, focus) {
  $('reassign-error').textContent = message;
  $('reassign-error').hidden = false;
  if (focus) {
    focus.setAttribute('aria-invalid', 'true');
    focus.focus();
  }
}

async function reassign(event) {
  event.preventDefault();
  ['reassign-name', 'reassign-email', 'reassign-reason'].forEach((id) => $(id).removeAttribute('aria-invalid'));
  $('reassign-error').hidden = true;
  const oneLine = (value) => value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  const name = oneLine($('reassign-name').value);
  const email = $('reassign-email').value.trim();
  const reason = oneLine($('reassign-reason').value);
  if (name === '') return reassignError(t('reassignNameMissing'), $('reassign-name'));
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return reassignError(t('reassignEmailInvalid'), $('reassign-email'));
  if (reason === '') return reassignError(t('reassignReasonMissing'), $('reassign-reason'));
  $('reassign-confirm').disabled = true;
  try {
    const view = await signingApi('POST', 'signing/reassign', { email: email, name: name, reason: reason });
    state.view = view;
    $('reassign-dialog').close();
    showReassigned(view, { name: name, email: email });
  } catch (error) {
    if (error.status === 401) { $('reassign-dialog').close(); return showInvalidLink(); }
    if (error.status === 423) { $('reassign-dialog').close(); return showLocked(); }
    if (error.status === 409 && error.problem && error.problem.type === 'urn:problem:recipient-exists') return reassignError(error.message, $('reassign-email'));
    if (error.status === 409 && error.problem && error.problem.type === 'urn:problem:recipient-limit') return reassignError(error.message, null);
    if (error.status === 403 || error.status === 409) {
      $('reassign-dialog').close();
      try { render(await signingApi('GET', 'signing')); } catch (again) { if (again.status === 401) showInvalidLink(); }
      return;
    }
    const field = error.problem && Array.isArray(error.problem.errors) && error.problem.errors[0] ? error.problem.errors[0].path : '';
    reassignError(error.message, field === 'email' ? $('reassign-email') : field === 'name' ? $('reassign-name') : field === 'reason' ? $('reassign-reason') : null);
  } finally {
    $('reassign-confirm').disabled = false;
  }
}

/** The recipient handed its part on: nothing more to do here. */
function showReassigned(view, to) {
  state.screen = () => showReassigned(view, to);
  const documentName = view.envelope.documentName;
  const lines = [
    to
      ? t('reassignedTo', { role: view.recipient.role, name: to.name, email: to.email, document: documentName })
      : t('reassignedOn', { document: documentName, date: formatDate(view.recipient.actedAt) }),
    t('reassignedWhat', { sender: sender(view.envelope) }),
  ];
  showMessage(t('reassignedHeading'), lines);
}

function wireReassignment() {
  $('reassign-button').addEventListener('click', () => {
    $('reassign-error').hidden = true;
    $('reassign-dialog').showModal();
    $('reassign-name').focus();
  });
  $('reassign-form').addEventListener('submit', reassign);
  $('reassign-cancel').addEventListener('click', () => {
    $('reassign-dialog').close();
    $('reassign-button').focus();
  });
}

// ---- Signer authentication: the code before the document -----------------------------------------
// A recipient with an access code or e-mailed one-time codes sees only who asks it to act until it
// enters its code; five wrong codes lock the link until the sender sends a new one (423).

/** The view, or the code form when the recipient must (again) enter its code. */
function showViewOrCode(view) {
  if (needsCode(view)) showAuthentication(view);
  else render(view);
}

/** Whether the view is the restricted one (nothing of the document before the code). */
function needsCode(view) {
  return Boolean(view && view.authentication && view.authentication.verified === false);
}

function showAuthentication(view) {
  state.screen = () => relabelAuthentication(view);
  show('authenticate');
  relabelAuthentication(view);
  const otp = view.authentication.method === 'emailOtp';
  const code = $('auth-code');
  if (otp) {
    code.setAttribute('inputmode', 'numeric');
    code.setAttribute('pattern', '[0-9]*');
    code.setAttribute('maxlength', '6');
  } else {
    code.removeAttribute('inputmode');
    code.removeAttribute('pattern');
    code.setAttribute('maxlength', '64');
  }
  $('auth-send').hidden = !otp;
  state.attemptsLeft = view.authentication.attemptsLeft;
  showAttemptsLeft(state.attemptsLeft);
  $('auth-heading').focus();
}

/** The code form's words in the page's language (again after a switch of language). */
function relabelAuthentication(view) {
  const otp = view.authentication.method === 'emailOtp';
  document.title = t('pageTitle', { heading: t('authHeading') });
  $('auth-request').textContent = t('authRequest', { sender: view.envelope.ownerEmail, document: view.envelope.documentName });
  $('auth-hint').textContent = otp ? t('authHintEmailOtp') : t('authHintAccessCode');
  $('auth-label').textContent = otp ? t('authLabelEmailOtp') : t('authLabelAccessCode');
  $('auth-send-button').textContent = state.codeSent ? t('authSendNewCode') : t('authSendCode');
  if (state.attemptsLeft !== undefined) showAttemptsLeft(state.attemptsLeft);
}

function showAttemptsLeft(left) {
  state.attemptsLeft = left;
  $('auth-attempts').textContent = left >= 5 ? '' : t('authAttemptsLeft', { count: left });
}

function authError(message) {
  const error = $('auth-error');
  error.textContent = message;
  error.hidden = false;
  $('auth-code').setAttribute('aria-invalid', 'true');
  $('auth-code').focus();
}

function showLocked() {
  state.screen = showLocked;
  showMessage(t('lockedHeading'), [t('lockedWhy'), t('lockedWhat')]);
}

async function submitCode(event) {
  event.preventDefault();
  const code = $('auth-code').value.trim();
  $('auth-error').hidden = true;
  $('auth-code').removeAttribute('aria-invalid');
  if (code === '') {
    authError(t('authEmpty'));
    return;
  }
  const button = $('auth-submit');
  button.disabled = true;
  try {
    const view = await signingApi('POST', 'signing/authenticate', { code: code });
    $('auth-code').value = '';
    // Now the recipient's own language is known: the page takes it, unless the reader chose one.
    if (!state.languageChosen) await switchLanguage(viewLocale(view));
    render(view);
  } catch (error) {
    if (error.status === 423) showLocked();
    else if (error.status === 401) showInvalidLink();
    else {
      if (error.problem && typeof error.problem.attemptsLeft === 'number') showAttemptsLeft(error.problem.attemptsLeft);
      authError(error.status === 403 ? t('authWrong') : error.message);
    }
  } finally {
    button.disabled = false;
  }
}

async function sendCode() {
  const button = $('auth-send-button');
  button.disabled = true;
  $('auth-status').textContent = '';
  try {
    await signingApi('POST', 'signing/otp');
    state.codeSent = true;
    $('auth-status').textContent = t('authCodeSent');
    button.textContent = t('authSendNewCode');
    $('auth-code').focus();
  } catch (error) {
    if (error.status === 423) showLocked();
    else if (error.status === 401) showInvalidLink();
    else $('auth-status').textContent = error.message;
  } finally {
    button.disabled = false;
  }
}

function wireAuthentication() {
  $('auth-form').addEventListener('submit', submitCode);
  $('auth-send-button').addEventListener('click', () => { sendCode(); });
  $('auth-code').addEventListener('input', () => $('auth-code').removeAttribute('aria-invalid'));
}

// ---- Language ----------------------------------------------------------------------------------

/**
 * The recipient's language: its own `locale`, else the envelope's. Before the recipient entered its
 * code the view names neither (only the restricted view), so the page speaks the browser's language:
 * the supported locale that best matches `navigator.languages` (else English).
 */
function viewLocale(view) {
  const candidates = [view.recipient && view.recipient.locale, view.envelope && view.envelope.locale];
  return candidates.find(isSupported) || readerLocale();
}

/** The supported locale closest to the browser's preferred languages (`navigator.languages`), else English. */
function readerLocale() {
  const tags = Array.isArray(navigator.languages) && navigator.languages.length > 0 ? navigator.languages : [navigator.language];
  return preferredLocale(tags);
}

/** Puts the page in `tag` (for this page only: nothing is stored) and redraws what it shows. */
async function switchLanguage(tag) {
  const now = await useLocale(tag);
  localiseDocument(document);
  $('language').value = now;
  paintWholeSignature();
  if (state.screen !== null) state.screen();
}

/** The language switch: every supported language, each by its own name. */
function fillLanguageSwitch() {
  const select = $('language');
  Object.keys(LOCALE_NAMES).forEach((tag) => {
    const option = document.createElement('option');
    option.value = tag;
    option.lang = tag;
    option.textContent = LOCALE_NAMES[tag];
    select.appendChild(option);
  });
  select.value = locale();
  select.addEventListener('change', () => {
    state.languageChosen = true;
    void switchLanguage(select.value);
  });
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
  fillLanguageSwitch();
  // Another link opened in this tab: start again with its token.
  window.addEventListener('hashchange', () => {
    if (window.location.hash.length > 1) {
      readToken();
      window.location.reload();
    }
  });
  paintWholeSignature();
  state.token = readToken();
  wireReassignment();
  if (state.token === null) {
    await switchLanguage(readerLocale());
    notifyParent('error', null);
    state.screen = () => showMessage(t('noLinkHeading'), [t('noLinkBody')]);
    state.screen();
    return;
  }
  wireAuthentication();
  let view;
  try {
    view = await signingApi('GET', 'signing');
  } catch (error) {
    // No view, so no recipient's language: the browser's.
    await switchLanguage(readerLocale());
    if (error.status === 401) showInvalidLink();
    else if (error.status === 423) showLocked();
    else {
      state.screen = () => showMessage(t('loadFailedHeading'), [error.message, t('reloadToRetry')]);
      state.screen();
    }
    notifyParent('error', null);
    return;
  }
  // The document downloads while the page's language loads (the two do not wait for each other).
  if (view.canAct) {
    state.pdfLoading = openPdf(view.documentUrl);
    state.pdfLoading.catch(() => undefined);
  }
  await switchLanguage(viewLocale(view));
  showViewOrCode(view);
  notifyParent('loaded', view);
}

start();
