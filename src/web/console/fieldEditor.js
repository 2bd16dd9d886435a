// @ts-check
// The fields card: the document's pages drawn by PDF.js, and the fields placed on them in their
// recipients' colours, for an envelope or a template.
import { $, lockControls, state } from './consoleSession.js';
import { update } from './envelopeActions.js';
import { announce, focusField, keyOnField, renderEditor, rulesFromApi, select, showDetectResult, startDrag } from './fieldEditing.js';
import { recipientColor, signerById } from './recipientStatus.js';
/** @typedef {import('./consoleSession.js').Field} Field */
/** @typedef {import('./consoleSession.js').FieldInput} FieldInput */
/** @typedef {import('./consoleSession.js').Subject} Subject */
/** @typedef {import('./consoleSession.js').EditorField} EditorField */

// ---- Fields ------------------------------------------------------------------------------

export var FIELD_TYPES = ['signature', 'initials', 'date_signed', 'name', 'email', 'text', 'checkbox', 'number', 'date', 'dropdown', 'attachment', 'image'];
/** @type {Record<string, string>} */
export var TYPE_NAMES = {
  signature: 'Signature', initials: 'Initials', date_signed: 'Date signed', name: 'Name', email: 'E-mail', text: 'Text', checkbox: 'Check box',
  number: 'Number', date: 'Date', dropdown: 'Dropdown', attachment: 'File upload', image: 'Photo',
};
/** A new field's size in points, by type (about what each needs on a printed page). */
/** @type {Record<string, number[]>} */
var DEFAULT_SIZE = {
  signature: [170, 45], initials: [60, 34], date_signed: [100, 22], name: [160, 22], email: [190, 22], text: [160, 22], checkbox: [16, 16],
  number: [100, 22], date: [100, 22], dropdown: [140, 22], attachment: [160, 30], image: [150, 110],
};
/** Smallest field a drag makes, and the step of the keyboard, as fractions of the page. */
export var MIN_FRACTION = 0.01;
export var KEY_STEP = 0.01;

/**
 * The fields card's state.
 * @type {{
 *   list: EditorField[], dirty: boolean, selected: string | null, edited: string | null, counter: number, subject: Subject | null,
 *   saveTo: ((payload: FieldInput[]) => Promise<Subject>) | null,
 *   detectWith: (() => Promise<{ fields: Subject['fields'], textTags: number, formFields: number }>) | null,
 *   envelopeId: string | null, documentId: string | null, pdf: import('./pdfPages.js').PdfDocument | null,
 *   layout: { pages: HTMLDivElement[], close: () => void } | null, loading: Promise<unknown> | null,
 *   readOnly: string | null,
 * }}
 */
export var fields = {
  /** The fields being edited: the envelope's, with a local `key` each (new ones have no `id` yet). */
  list: [],
  dirty: false,
  selected: null,
  /** The key of the field the settings form last showed (typing into it keeps what is typed). */
  edited: null,
  counter: 0,
  /**
   * What the fields are placed on, in the shape of an envelope (`id`, `status`, `documentName`,
   * `documentUrl`, `signers`, `fields` by `recipientId`): the open envelope, or the open template with
   * its roles as `signers` (`templateSubject`). The same placement tool serves both.
   */
  subject: null,
  /** Saves `fieldsPayload()` for the subject; resolves to the subject as saved. */
  saveTo: null,
  /**
   * Replaces the subject's fields with those its document places itself (text tags, form fields);
   * resolves to `{fields, textTags, formFields}` once the subject on show has them (`detectAndReopen`).
   * `null`: not offered.
   */
  detectWith: null,
  /** The document on show: for which envelope or template and which of its documents (`<subjectId>/<documentId>`), PDF.js's document, and the page layout. */
  envelopeId: null,
  /** The id of the subject's document on show (docs/api.md#several-documents): fields are placed on it. */
  documentId: null,
  pdf: null,
  layout: null,
  loading: null,
  /** Why the caller may not change the subject's fields (its role: docs/api.md#roles), or null; set before `showFields`. */
  readOnly: null,
};

export function editable() {
  return fields.subject !== null && fields.subject.status === 'draft' && fields.readOnly === null;
}

/**
 * @param {Subject['fields'][number]} field
 * @returns {EditorField}
 */
export function fromApi(field) {
  fields.counter += 1;
  return {
    key: 'f' + fields.counter, id: field.id, recipientId: field.recipientId, documentId: field.documentId, type: field.type, page: field.page,
    x: field.x, y: field.y, width: field.width, height: field.height, required: field.required !== false, label: field.label || '',
    rules: rulesFromApi(field),
  };
}

/**
 * Shows the fields card for `envelope` (or a template as `templateSubject` shows it): the document's
 * pages (loaded once per subject) and its fields; `saveTo` saves them (default: the open envelope's update);
 * `detectWith` (optional, see `fields.detectWith`) offers "Detect fields".
 * @param {Subject} envelope
 * @param {Subject | null} previous
 * @param {boolean} changed
 * @param {(payload: FieldInput[]) => Promise<Subject>} [saveTo]
 * @param {(() => Promise<{ fields: Subject['fields'], textTags: number, formFields: number }>) | null} [detectWith]
 */
export function showFields(envelope, previous, changed, saveTo, detectWith) {
  var sameEnvelope = fields.subject !== null && fields.subject.id === envelope.id;
  fields.subject = envelope;
  fields.saveTo = saveTo || function (payload) { return update({ fields: payload }).then(function () { return state.envelope; }); };
  fields.detectWith = detectWith || null;
  if (!sameEnvelope) showDetectResult(null);
  if (!sameEnvelope || (changed && !fields.dirty)) {
    fields.list = envelope.fields.map(fromApi);
    fields.selected = null;
    setDirty(false);
  }
  var shown = shownDocument(envelope);
  renderDocumentChoice(envelope, shown);
  renderFieldTools(envelope);
  if (envelope.documentUrl === null) {
    // Its documents were deleted (purged): nothing to show the fields on.
    closeDocument();
    fields.envelopeId = envelope.id;
    $('fields-note').hidden = false;
    $('fields-note').textContent = 'The documents of this envelope were deleted, so its pages can no longer be shown.';
    return;
  }
  if (fields.envelopeId !== envelope.id + '/' + shown.id) loadDocument(envelope, shown, sameEnvelope);
  else renderPlacedFields();
}

/**
 * The subject's document to show: the one on show before, while the subject still has it, else its first.
 * @param {Subject} envelope
 * @returns {{ id: string, name: string, documentUrl: string | null }}
 */
function shownDocument(envelope) {
  var documents = envelope.documents || [];
  var kept = documents.find(function (item) { return item.id === fields.documentId; });
  var chosen = kept || documents[0];
  return chosen ? { id: chosen.id, name: chosen.name, documentUrl: chosen.documentUrl } : { id: envelope.id, name: envelope.documentName, documentUrl: envelope.documentUrl };
}

/**
 * The "Document" choice of the fields card: shown when the subject has several documents; choosing
 * one shows its pages, with the fields placed on it (docs/api.md#several-documents).
 * @param {Subject} envelope
 * @param {{ id: string }} shown
 */
function renderDocumentChoice(envelope, shown) {
  var documents = envelope.documents || [];
  var select = /** @type {HTMLSelectElement} */ ($('field-document'));
  select.textContent = '';
  documents.forEach(function (item) {
    var option = document.createElement('option');
    option.value = item.id;
    option.textContent = item.order + '. ' + item.name;
    select.appendChild(option);
  });
  select.value = shown.id;
  $('field-document-choice').hidden = documents.length < 2;
}

/** Shows the document chosen in the fields card's "Document" choice, keeping the fields as edited. */
export function switchDocument() {
  var envelope = fields.subject;
  if (envelope === null) return;
  fields.documentId = /** @type {HTMLSelectElement} */ ($('field-document')).value;
  var shown = shownDocument(envelope);
  if (fields.envelopeId !== envelope.id + '/' + shown.id) loadDocument(envelope, shown, true);
}

/**
 * Whether `field` is on the document on show (a field without `documentId` is on the first).
 * @param {EditorField} field
 */
function onShownDocument(field) {
  var documents = fields.subject !== null && fields.subject.documents ? fields.subject.documents : [];
  var first = documents.length > 0 ? documents[0].id : null;
  return (field.documentId || first) === fields.documentId || documents.length < 2;
}

/**
 * @param {boolean} [keepList] keep the fields as edited (another document of the same subject comes next)
 */
export function closeDocument(keepList) {
  if (fields.layout !== null) fields.layout.close();
  if (fields.pdf !== null) fields.pdf.destroy();
  fields.layout = null;
  fields.pdf = null;
  fields.envelopeId = null;
  if (keepList !== true) fields.list = [];
  fields.selected = null;
  fields.edited = null;
  $('field-pages').textContent = '';
}

function pdfPages() {
  return import('./pdfPages.js');
}

/**
 * @param {Subject} envelope
 * @param {{ id: string, name: string, documentUrl: string | null }} shown the document of `envelope` to show
 * @param {boolean} keepList keep the fields as edited (another document of the same subject)
 */
function loadDocument(envelope, shown, keepList) {
  var kept = fields.list;
  closeDocument(keepList);
  fields.list = keepList ? kept : envelope.fields.map(fromApi);
  fields.envelopeId = envelope.id + '/' + shown.id;
  fields.documentId = shown.id;
  var note = $('fields-note');
  note.hidden = false;
  note.textContent = 'Loading the document’s pages…';
  var loading = pdfPages().then(function (module) {
    return module.openPdf(/** @type {string} */ (shown.documentUrl)).then(function (pdf) {
      if (fields.loading !== loading) { pdf.destroy(); return; }
      fields.pdf = pdf;
      return module.layoutPages(pdf, $('field-pages'), {
        pageLabel: function (number, count) { return 'Page ' + number + ' of ' + count + ' of ' + shown.name; },
      }).then(function (layout) {
        if (fields.loading !== loading) { layout.close(); return; }
        fields.layout = layout;
        layout.pages.forEach(preparePage);
        renderFieldTools(fields.subject);
        renderPlacedFields();
        $('field-pages').dataset.ready = 'true';
      });
    });
  }).catch(function () {
    if (fields.loading !== loading) return;
    note.hidden = false;
    note.textContent = 'The document’s pages cannot be shown: it has not been uploaded yet, or it is not a PDF this page can read.';
  });
  fields.loading = loading;
  $('field-pages').dataset.ready = 'false';
}

/**
 * @param {Subject} envelope
 */
function renderFieldTools(envelope) {
  var signers = envelope.signers.filter(function (signer) { return signer.role === 'signer'; });
  $('field-recipient-label').textContent = envelope.kind === 'template' ? 'Role' : 'Recipient';
  $('detect-tag-example').textContent = envelope.kind === 'template'
    ? '{{signature;r=Client;label=Signature}} (r: a role’s name)'
    : '{{signature;r=2;label=Signature}} (r: the recipient’s place in the list, 1 for the first)';
  var select = $('field-recipient');
  var chosen = select.value;
  select.textContent = '';
  signers.forEach(function (signer) {
    var option = document.createElement('option');
    option.value = signer.id;
    option.textContent = signer.email ? signer.name + ' (' + signer.email + ')' : signer.name;
    select.appendChild(option);
  });
  if (signers.some(function (signer) { return signer.id === chosen; })) select.value = chosen;
  updateSwatch();
  var pageSelect = $('field-page');
  var pageCount = fields.layout ? fields.layout.pages.length : 0;
  if (pageSelect.options.length !== pageCount) {
    var current = pageSelect.value;
    pageSelect.textContent = '';
    for (var number = 1; number <= pageCount; number++) {
      var option = document.createElement('option');
      option.value = String(number);
      option.textContent = String(number);
      pageSelect.appendChild(option);
    }
    if (current && Number(current) <= pageCount) pageSelect.value = current;
  }
  var note = $('fields-note');
  if (fields.layout !== null) {
    if (envelope.status !== 'draft') {
      note.hidden = false;
      note.textContent = 'The envelope has been sent: its fields are shown as the recipients see them, and can no longer change.';
    } else if (fields.readOnly !== null) {
      note.hidden = false;
      note.textContent = fields.readOnly;
    } else if (signers.length === 0) {
      note.hidden = false;
      note.textContent = envelope.kind === 'template'
        ? 'Save at least one role with the role “signer” first: fields belong to a role.'
        : 'Save at least one signer with the role “signer” first: fields belong to a signer.';
    } else {
      note.hidden = true;
    }
  }
  setFieldControls(envelope);
}

export function updateSwatch() {
  var id = $('field-recipient').value;
  $('field-recipient-swatch').style.background = id ? recipientColor(id).ink : 'transparent';
}

/**
 * @param {Subject} envelope
 */
export function setFieldControls(envelope) {
  var draft = envelope.status === 'draft' && fields.readOnly === null;
  var hasSigners = $('field-recipient').options.length > 0;
  var ready = fields.layout !== null;
  ['field-recipient', 'field-type', 'field-page'].forEach(function (id) { /** @type {HTMLSelectElement} */ ($(id)).disabled = !draft || !hasSigners; });
  $('add-field').disabled = !draft || !hasSigners || !ready;
  $('save-fields').disabled = !draft || !ready;
  $('detect-tools').hidden = !draft || fields.detectWith === null;
  $('field-tools').hidden = !draft;
  $('fields-hint').hidden = !draft;
  document.querySelectorAll('#field-editor input, #field-editor select, #field-editor button').forEach(function (element) { /** @type {HTMLInputElement} */ (element).disabled = !draft; });
  if (!draft) $('field-editor').hidden = true;
  lockControls([$('save-fields'), $('detect-fields'), $('add-field')], fields.readOnly);
}

/**
 * @param {boolean} dirty
 */
export function setDirty(dirty) {
  fields.dirty = dirty;
  $('fields-dirty').hidden = !dirty;
  // What "Detect fields" said no longer describes fields changed since.
  if (dirty) showDetectResult(null);
}

/**
 * @param {number} number
 * @returns {HTMLElement | null}
 */
export function pageElement(number) {
  return fields.layout ? fields.layout.pages[number - 1] || null : null;
}

/**
 * The page's size in points.
 * @param {HTMLElement} element
 */
function pageSize(element) {
  return { width: Number(element.dataset.width), height: Number(element.dataset.height) };
}

/**
 * A pointer position as fractions of the page element, clamped to it.
 * @param {HTMLElement} element
 * @param {MouseEvent} event
 */
function fractionAt(element, event) {
  var rect = element.getBoundingClientRect();
  return {
    x: clamp((event.clientX - rect.left) / rect.width, 0, 1),
    y: clamp((event.clientY - rect.top) / rect.height, 0, 1),
  };
}

/**
 * @param {number} value
 * @param {number} low
 * @param {number} high
 */
export function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}

/**
 * Keeps a field inside its page and at least the minimum size.
 * @param {EditorField} field
 * @returns {EditorField}
 */
export function fit(field) {
  field.width = clamp(field.width, MIN_FRACTION, 1);
  field.height = clamp(field.height, MIN_FRACTION, 1);
  field.x = clamp(field.x, 0, 1 - field.width);
  field.y = clamp(field.y, 0, 1 - field.height);
  return field;
}

/**
 * A new field of the chosen recipient and type, `at` its centre (fractions), of the type's usual size.
 * @param {number} number the page
 * @param {{ x: number, y: number }} at fractions of the page
 * @returns {EditorField}
 */
export function newField(number, at) {
  var size = pageSize(pageElement(number));
  var type = /** @type {Field['type']} */ ($('field-type').value);
  var points = DEFAULT_SIZE[type];
  var width = points[0] / size.width;
  var height = points[1] / size.height;
  fields.counter += 1;
  return fit({
    key: 'f' + fields.counter, recipientId: $('field-recipient').value, documentId: fields.documentId || undefined, type: type, page: number,
    x: at.x - width / 2, y: at.y - height / 2, width: width, height: height, required: true, label: '',
  });
}

/**
 * @param {EditorField} field
 */
export function addField(field) {
  fields.list.push(field);
  setDirty(true);
  select(field.key);
  renderPlacedFields();
  var element = /** @type {HTMLElement | null} */ (document.querySelector('[data-key="' + field.key + '"]'));
  if (element) element.focus();
  announce(describeField(field) + ' placed.');
}

/**
 * Pointer handling on a page: a click places a field there, a drag places one of the dragged size.
 * @param {HTMLElement} element
 */
function preparePage(element) {
  var number = Number(element.dataset.page);
  element.classList.add('editable-page');
  element.addEventListener('pointerdown', function (event) {
    if (!editable() || event.button !== 0 || /** @type {Element} */ (event.target).closest('.placed-field')) return;
    if ($('field-recipient').value === '') return;
    event.preventDefault();
    var start = fractionAt(element, event);
    var startX = event.clientX;
    var startY = event.clientY;
    var ghost = document.createElement('div');
    ghost.className = 'field-ghost';
    ghost.style.borderColor = recipientColor($('field-recipient').value).ink;
    element.appendChild(ghost);
    element.setPointerCapture(event.pointerId);
    var dragged = false;
    var move = function (/** @type {PointerEvent} */ moveEvent) {
      if (Math.abs(moveEvent.clientX - startX) + Math.abs(moveEvent.clientY - startY) > 6) dragged = true;
      if (!dragged) return;
      var point = fractionAt(element, moveEvent);
      placeBox(ghost, { x: Math.min(start.x, point.x), y: Math.min(start.y, point.y), width: Math.abs(point.x - start.x), height: Math.abs(point.y - start.y) });
    };
    var up = function (/** @type {PointerEvent} */ upEvent) {
      element.removeEventListener('pointermove', move);
      element.removeEventListener('pointerup', up);
      element.removeEventListener('pointercancel', up);
      ghost.remove();
      if (upEvent.type === 'pointercancel') return;
      var field;
      if (dragged) {
        var point = fractionAt(element, upEvent);
        var type = /** @type {Field['type']} */ ($('field-type').value);
        fields.counter += 1;
        field = fit({
          key: 'f' + fields.counter, recipientId: $('field-recipient').value, type: type, page: number,
          x: Math.min(start.x, point.x), y: Math.min(start.y, point.y), width: Math.abs(point.x - start.x), height: Math.abs(point.y - start.y),
          required: true, label: '',
        });
      } else {
        field = newField(number, start);
      }
      $('field-page').value = String(number);
      addField(field);
    };
    element.addEventListener('pointermove', move);
    element.addEventListener('pointerup', up);
    element.addEventListener('pointercancel', up);
  });
}

/**
 * @param {HTMLElement} element
 * @param {{ x: number, y: number, width: number, height: number }} box
 */
export function placeBox(element, box) {
  element.style.left = box.x * 100 + '%';
  element.style.top = box.y * 100 + '%';
  element.style.width = box.width * 100 + '%';
  element.style.height = box.height * 100 + '%';
}

/**
 * @param {number} value
 */
export function percent(value) {
  return Math.round(value * 1000) / 10 + '%';
}

/**
 * @param {EditorField} field
 */
export function describeField(field) {
  var signer = signerById(field.recipientId);
  return (field.label || TYPE_NAMES[field.type]) + ' for ' + (signer ? signer.name : 'a removed signer') + ' on page ' + field.page;
}

/**
 * @param {EditorField} field
 */
function describePosition(field) {
  return 'Page ' + field.page + ', ' + percent(field.x) + ' from the left, ' + percent(field.y) + ' from the top, ' +
    percent(field.width) + ' wide, ' + percent(field.height) + ' high. ' + (field.required ? 'Required.' : 'Optional.');
}

/** Draws every field on its page, in the recipient's colour. */
export function renderPlacedFields() {
  if (fields.layout === null) return;
  fields.layout.pages.forEach(function (element) {
    element.querySelectorAll('.placed-field, .placed-field-state').forEach(function (old) { old.remove(); });
  });
  var active = /** @type {HTMLElement | null} */ (document.activeElement);
  var focusedKey = active && active.dataset ? active.dataset.key : null;
  fields.list.forEach(function (field) {
    if (!onShownDocument(field)) return;
    var element = pageElement(field.page);
    if (element === null) return;
    var color = recipientColor(field.recipientId);
    var signer = signerById(field.recipientId);
    var box = document.createElement('button');
    box.type = 'button';
    box.className = 'placed-field' + (field.key === fields.selected ? ' selected' : '') + (field.required ? '' : ' optional');
    box.dataset.key = field.key;
    box.style.borderColor = color.ink;
    box.style.background = color.tint;
    box.style.color = color.ink;
    var text = document.createElement('span');
    text.className = 'placed-field-text';
    text.textContent = (field.label || TYPE_NAMES[field.type]) + ' · ' + (signer ? signer.name : '?');
    box.appendChild(text);
    var position = document.createElement('span');
    position.className = 'visually-hidden placed-field-state';
    position.id = 'state-' + field.key;
    position.textContent = describePosition(field);
    element.appendChild(position);
    box.setAttribute('aria-describedby', position.id);
    box.setAttribute('aria-pressed', String(field.key === fields.selected));
    if (editable()) {
      var handle = document.createElement('span');
      handle.className = 'resize-handle';
      handle.setAttribute('aria-hidden', 'true');
      handle.style.background = color.ink;
      box.appendChild(handle);
      box.addEventListener('pointerdown', function (event) { startDrag(event, field, box, event.target === handle); });
      box.addEventListener('keydown', function (event) { keyOnField(event, field); });
    }
    box.addEventListener('click', function () {
      select(field.key);
      renderPlacedFields();
      focusField(field.key);
    });
    placeBox(box, field);
    element.appendChild(box);
  });
  if (focusedKey) focusField(focusedKey);
  renderEditor();
}
