// @ts-check
// The ceremony: the document's pages with the recipient's fields on them, other recipients' values,
// the guide from one field to the next, and the service's disclosure above the consent box.
import { keepFieldsLaidOut } from './fieldLayout.js';
import { fillRich, locale, t } from './i18n.js';
import { layoutPages, openPdf } from './pdfPages.js';
import { needsCode, showAuthentication } from './authentication.js';
import { offerReassignment } from './reassign.js';
import { sender, show } from './screens.js';
import { paintWholeSignature, signatureArt, toggleSignatureField } from './signatures.js';
import { $, signingApi, state } from './signingSession.js';
import { FILE_TYPES, fileFieldElement, fileHint, filledFileText, paintFile } from './fileFields.js';
import { readOnlyFieldElement, VALUE_TYPES, valueFieldElement, valueHints } from './valueFields.js';
/** @typedef {import('./signingSession.js').RecipientView} RecipientView */
/** @typedef {import('./signingSession.js').Schemas} Schemas */
/** @typedef {import('./signingSession.js').ViewField} ViewField */
/** @typedef {import('./signingSession.js').FilledField} FilledField */
/** @typedef {import('./signingSession.js').Entry} Entry */
/** @typedef {import('./signingSession.js').SignatureValue} SignatureValue */

// ---- The API -------------------------------------------------------------------------------------

/**
 * Shows the disclosure about electronic records and signatures above the consent box, word for word,
 * in the page's language (`GET /api/signing/disclosure?locale=`: the organisation's own text for
 * that language, else the service's). Finishing sends that language with the consent, so the service
 * records the very text shown. Until it is shown, finishing is refused; a switch of language shows
 * the new language's text.
 */
async function showDisclosure() {
  const wanted = locale();
  state.disclosureShown = false;
  state.disclosureLocale = wanted;
  try {
    /** @type {Schemas['Disclosure']} */
    const disclosure = await signingApi('GET', 'signing/disclosure?locale=' + encodeURIComponent(wanted));
    // Switched again meanwhile: the newer request shows its own text.
    if (state.disclosureLocale !== wanted) return;
    $('disclosure').textContent = disclosure.text;
    $('disclosure').lang = disclosure.locale;
    state.disclosureShown = true;
  } catch (ignored) {
    if (state.disclosureLocale !== wanted) return;
    $('disclosure').textContent = t('disclosureFailed');
    state.disclosureShown = false;
  }
}

// ---- The ceremony --------------------------------------------------------------------------------

/**
 * @param {Pick<ViewField, 'label' | 'type'>} field
 */
export function fieldName(field) {
  if (field.label) return field.label;
  return ['number', 'date', 'dropdown'].indexOf(field.type) >= 0 ? t('fieldTypeValue', { type: field.type }) : t('fieldType', { type: field.type });
}

/**
 * Fields in reading order: page, then top to bottom, then left to right.
 * @param {Pick<ViewField, 'page' | 'x' | 'y'>} a
 * @param {Pick<ViewField, 'page' | 'x' | 'y'>} b
 */
export function readingOrder(a, b) {
  return a.page - b.page || a.y - b.y || a.x - b.x;
}

/**
 * @param {RecipientView} view
 */
export async function startCeremony(view) {
  const envelope = view.envelope;
  const recipient = view.recipient;
  const role = recipient.role;
  show('ceremony');
  // Several documents (docs/api.md#several-documents): in their order, each field on its own.
  const documents = view.documents.length > 1 ? view.documents : null;
  const documentOrder = new Map(view.documents.map((entry) => [entry.id, entry.order]));
  const fillable = view.fields.slice().sort((a, b) => (documentOrder.get(a.documentId || '') || 1) - (documentOrder.get(b.documentId || '') || 1) || readingOrder(a, b));
  state.screen = relabelCeremony;
  ceremonyTexts(view, fillable);
  $('document-link').addEventListener('click', openDocument);
  offerReassignment(view);

  void showDisclosure();
  state.fontReady = document.fonts.load('100px Caveat').catch(() => /** @type {FontFace[]} */ ([]));
  $('decline-button').hidden = role === 'viewer';
  const hasSignatureField = fillable.some((field) => field.type === 'signature' || field.type === 'initials');
  $('whole-signature').hidden = !(role === 'signer' && !hasSignatureField);
  $('request-heading').setAttribute('tabindex', '-1');
  $('request-heading').focus();
  updateProgress();

  /** @type {Map<string, HTMLElement[]>} each document's pages, by its id (one document: under ''). */
  const pagesOf = new Map();
  if (documents === null) {
    state.pdf = await (state.pdfLoading || openPdf(view.documentUrl));
    state.pdfLoading = null;
    const layout = await layoutPages(state.pdf, $('pages'), { pageLabel: (number, count) => pageLabel(number, count, null) });
    pagesOf.set('', layout.pages);
  } else {
    state.pdfLoading = null;
    for (const [id, pages] of await layoutDocuments(documents)) pagesOf.set(id, pages);
  }
  state.pages = Array.from(pagesOf.values()).flat();
  pagesOf.forEach((pages) => {
    pages.forEach((pageElement) => {
      pageElement.dataset.count = String(pages.length);
      const number = document.createElement('span');
      number.className = 'page-number';
      number.setAttribute('aria-hidden', 'true');
      number.textContent = pageElement.dataset.page + ' / ' + pages.length;
      pageElement.appendChild(number);
    });
  });
  /** @param {{ page: number, documentId?: string }} item */
  const pageFor = (item) => (pagesOf.get(documents === null ? '' : item.documentId || documents[0].id) || [])[item.page - 1];
  fillable.forEach((field) => {
    const pageElement = pageFor(field);
    if (pageElement === undefined) return;
    const element = createFieldElement(field, recipient, pageElement);
    pageElement.appendChild(element);
    state.entries.set(field.id, { field: field, element: element, value: field.value === undefined ? null : field.value, page: pageElement });
  });
  // What earlier recipients filled in, read-only, in place: what this recipient sees is what gets sealed.
  (view.filled || []).forEach((filled) => {
    const pageElement = pageFor(filled);
    if (pageElement === undefined) return;
    const element = filledElement(filled, pageElement);
    state.filled.push({ filled: filled, element: element });
    pageElement.appendChild(element);
  });
  state.entries.forEach((entry) => paintField(entry));
  layOutForTouch(state.pages);
  updateProgress();
  $('pages').dataset.ready = 'true';
}

/**
 * A page's accessible name: "Page 2 of 3", preceded by its document's name when there are several.
 * @param {number} number
 * @param {number} count
 * @param {string | null} documentName
 */
function pageLabel(number, count, documentName) {
  const page = t('pageOf', { number: number, count: count });
  return documentName === null ? page : documentName + ': ' + page;
}

/**
 * Several documents (docs/api.md#several-documents): a list of their names linking to each, then each
 * in a section of its own, headed by its name, its pages laid out as one document's are.
 * @param {RecipientView['documents']} documents
 * @returns {Promise<Map<string, HTMLElement[]>>} each document's pages, by its id, in order
 */
async function layoutDocuments(documents) {
  const root = $('pages');
  root.textContent = '';
  const list = document.createElement('ol');
  list.className = 'document-list';
  list.id = 'document-list';
  root.appendChild(list);
  /** @type {Map<string, HTMLElement[]>} */
  const pages = new Map();
  for (const entry of documents) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = '#document-' + entry.id;
    link.textContent = entry.name;
    link.dir = 'auto';
    // The page's fragment holds the signing token: the link moves to the document without touching it.
    link.addEventListener('click', (event) => {
      event.preventDefault();
      const heading = $('document-name-' + entry.id);
      heading.scrollIntoView({ block: 'start' });
      heading.focus({ preventScroll: true });
    });
    item.appendChild(link);
    list.appendChild(item);
    const section = document.createElement('section');
    section.className = 'document';
    section.id = 'document-' + entry.id;
    section.dataset.documentId = entry.id;
    const heading = document.createElement('h3');
    heading.className = 'document-name';
    heading.id = 'document-name-' + entry.id;
    heading.textContent = entry.name;
    heading.dir = 'auto';
    heading.tabIndex = -1;
    section.setAttribute('aria-labelledby', heading.id);
    const container = document.createElement('div');
    container.className = 'pages';
    section.append(heading, container);
    root.appendChild(section);
    const layout = await layoutPages(await openPdf(entry.documentUrl), container, { pageLabel: (number, count) => pageLabel(number, count, entry.name) });
    layout.pages.forEach((pageElement) => { pageElement.dataset.documentName = entry.name; });
    pages.set(entry.id, layout.pages);
  }
  return pages;
}

/**
 * Each page's fields as boxes at their true size with hit areas for a finger around them (fieldLayout.js).
 * @param {HTMLElement[]} pageElements
 */
function layOutForTouch(pageElements) {
  const entries = Array.from(state.entries.values());
  keepFieldsLaidOut(pageElements.map((pageElement) => ({ pageElement: pageElement, entries: entries.filter((entry) => entry.page === pageElement) })));
}

/**
 * The ceremony's words for this recipient's role, in the page's language.
 * @param {RecipientView} view
 * @param {ViewField[]} fillable
 */
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
  if (state.disclosureLocale !== locale()) void showDisclosure();
  else if (state.disclosureShown !== true) $('disclosure').textContent = t('disclosureFailed');
  state.pages.forEach((pageElement) => pageElement.setAttribute('aria-label', pageLabel(Number(pageElement.dataset.page), Number(pageElement.dataset.count), pageElement.dataset.documentName || null)));
  state.entries.forEach((entry) => { labelField(entry.field, entry.element); paintField(entry); });
  state.filled.forEach((item) => labelFilled(item.filled, item.element));
  paintWholeSignature();
  updateProgress();
}

/**
 * A value another recipient gave (`view.filled`), shown read-only where the seal will draw it:
 * a signature as drawn or typed, a tick, or the text. Named for screen readers, never focusable.
 * @param {FilledField} filled
 * @param {HTMLElement} pageElement
 * @returns {HTMLElement}
 */
function filledElement(filled, pageElement) {
  const element = document.createElement('div');
  element.className = 'field field-filled';
  element.dataset.fieldId = filled.fieldId;
  element.dataset.type = filled.type;
  element.setAttribute('role', 'img');
  if (filled.type === 'signature' || filled.type === 'initials') {
    const size = { width: filled.width * Number(pageElement.dataset.width), height: filled.height * Number(pageElement.dataset.height) };
    // A signature field's value is a signature.
    element.appendChild(signatureArt(/** @type {SignatureValue} */ (filled.value), size));
  } else if (filled.type === 'checkbox') {
    element.classList.add('field-filled-check');
    element.dataset.checked = String(filled.value === true);
  } else if (FILE_TYPES.indexOf(filled.type) >= 0) {
    // A file another recipient gave: its name (its type and size in the accessible name), never the
    // file; at the size of a label (a div: not fitted to the box as values are).
    const text = document.createElement('div');
    text.className = 'field-filled-file';
    text.dir = 'auto';
    text.textContent = String(/** @type {{ name?: string }} */ (filled.value).name || '');
    element.appendChild(text);
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

/**
 * The accessible name (and tooltip) of another recipient's value.
 * @param {FilledField} filled
 * @param {HTMLElement} element
 */
function labelFilled(filled, element) {
  const words = { name: fieldName(filled), person: filled.recipient.name };
  if (filled.type === 'signature' || filled.type === 'initials') {
    const value = /** @type {SignatureValue} */ (filled.value);
    element.setAttribute('aria-label', 'typed' in value ? t('filledSignature', { ...words, typed: value.typed }) : t('filledSignatureDrawn', words));
  } else if (filled.type === 'checkbox') {
    element.setAttribute('aria-label', t('filledCheck', { ...words, ticked: String(filled.value === true) }));
  } else if (FILE_TYPES.indexOf(filled.type) >= 0) {
    element.title = filledFileText(filled, words.name);
    element.setAttribute('aria-label', element.title);
  } else {
    element.title = t('filledText', words);
    element.setAttribute('aria-label', t('filledTextValue', { ...words, value: String(filled.value) }));
  }
}

/**
 * Opens the frozen document in the browser's own viewer with a fresh read URL (the one the page
 * loaded with lasts 15 minutes): reads the view again first.
 * @param {Event} event
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

/**
 * @param {Error} error
 */
export function showDocumentError(error) {
  const box = $('document-error');
  box.textContent = t('documentError', { message: error.message });
  box.hidden = false;
}

/**
 * Places `element` over the field's rectangle (percentages of its page).
 * @param {HTMLElement} element
 * @param {Pick<ViewField, 'x' | 'y' | 'width' | 'height'>} field
 */
export function placeBox(element, field) {
  element.style.left = field.x * 100 + '%';
  element.style.top = field.y * 100 + '%';
  element.style.width = field.width * 100 + '%';
  element.style.height = field.height * 100 + '%';
}

/**
 * @param {ViewField} field
 * @param {RecipientView['recipient']} recipient
 * @param {HTMLElement} pageElement
 * @returns {Entry['element']}
 */
function createFieldElement(field, recipient, pageElement) {
  const name = fieldName(field);
  const required = field.required !== false;
  /** @type {Entry['element']} */
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
  } else if (FILE_TYPES.indexOf(field.type) >= 0) {
    element = fileFieldElement(field, pageElement);
  } else if (field.type === 'checkbox') {
    element = document.createElement('input');
    element.type = 'checkbox';
    element.className = 'field field-check';
    element.checked = field.value === true;
    element.addEventListener('change', () => {
      state.entries.get(field.id).value = /** @type {HTMLInputElement} */ (element).checked;
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
  if ((element instanceof HTMLInputElement || element instanceof HTMLSelectElement) && !(element instanceof HTMLInputElement && element.readOnly) && field.readOnly !== true) {
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

/**
 * A field's accessible name (its label, else its type), and its placeholder or tooltip.
 * @param {ViewField} field
 * @param {Entry['element']} element
 */
function labelField(field, element) {
  const name = fieldName(field);
  if (field.readOnly !== true && (field.type === 'signature' || field.type === 'initials')) return;
  element.setAttribute('aria-label', name);
  if (field.readOnly === true) element.title = t('readOnlyFieldTitle', { name: name });
  else if (field.type === 'text') /** @type {HTMLInputElement} */ (element).placeholder = name;
  else if (field.type === 'number') /** @type {HTMLInputElement} */ (element).placeholder = t('numberPlaceholder', { name: name });
  else if (field.type === 'dropdown') /** @type {HTMLSelectElement} */ (element).options[0].textContent = name;
  else if (VALUE_TYPES.indexOf(field.type) < 0 && FILE_TYPES.indexOf(field.type) < 0 && field.type !== 'checkbox') element.title = t('autoFieldTitle', { name: name });
}

/**
 * @param {Entry} entry
 */
export function isFilled(entry) {
  const type = entry.field.type;
  if (type === 'signature' || type === 'initials') return entry.value !== null;
  if (VALUE_TYPES.indexOf(type) >= 0) return typeof entry.value === 'string' && entry.value.trim() !== '';
  if (type === 'checkbox') return entry.value === true;
  if (FILE_TYPES.indexOf(type) >= 0) return entry.value !== null;
  return true;
}

/**
 * Whether the recipient has to do something to this field.
 * @param {Entry} entry
 */
export function needsInput(entry) {
  if (entry.field.readOnly === true) return false;
  return ['signature', 'initials', 'checkbox'].concat(VALUE_TYPES, FILE_TYPES).indexOf(entry.field.type) >= 0;
}

/**
 * Shows a field's value and state (visually and for screen readers).
 * @param {Entry} entry
 */
export function paintField(entry) {
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
    if (filled) element.appendChild(signatureArt(/** @type {SignatureValue} */ (entry.value), fieldSize(entry)));
    description.textContent = [t(required ? 'stateRequired' : 'stateOptional'), t(filled ? 'stateSigned' : 'stateNotSigned'), pageText].join(' ');
  } else if (field.readOnly === true) {
    description.textContent = [t('stateReadOnly'), pageText].join(' ');
  } else if (FILE_TYPES.indexOf(field.type) >= 0) {
    paintFile(entry);
    description.textContent = [t(required ? 'stateRequired' : 'stateOptional'), fileHint(field), pageText].join(' ');
  } else if (needsInput(entry)) {
    description.textContent = [t(required ? 'stateRequired' : 'stateOptional')].concat(valueHints(field), [pageText]).join(' ');
  } else {
    description.textContent = [t('stateAuto'), pageText].join(' ');
  }
}

/**
 * The field's size in points (the page's shown size times the fractions).
 * @param {Entry} entry
 * @returns {{ width: number, height: number }}
 */
export function fieldSize(entry) {
  return {
    width: entry.field.width * Number(entry.page.dataset.width),
    height: entry.field.height * Number(entry.page.dataset.height),
  };
}

export function updateProgress() {
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
export function nextField() {
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

/**
 * Scrolls to a field and focuses it, ringed until it loses the focus.
 * @param {HTMLElement} element
 */
function guide(element) {
  element.scrollIntoView({ block: 'center', behavior: prefersMotion() ? 'smooth' : 'auto' });
  element.classList.add('guided');
  element.addEventListener('blur', () => element.classList.remove('guided'), { once: true });
  element.focus({ preventScroll: true });
}

export function goToFinish() {
  guide($('whole-signature').hidden || state.wholeSignature !== null ? $('consent') : $('whole-signature-button'));
}

function prefersMotion() {
  return !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
}
