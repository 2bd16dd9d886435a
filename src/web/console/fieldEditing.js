// @ts-check
// Editing the placed fields: selection, dragging and resizing with the pointer and the keyboard,
// the settings form (with each type's rules and prefilled value), saving, and field detection.
import { $, api, describeError, showStatus } from './consoleSession.js';
import { confirmAction } from './envelopeActions.js';
import { addField, clamp, describeField, editable, FIELD_TYPES, fields, fit, fromApi, KEY_STEP, MIN_FRACTION, newField, pageElement, percent, placeBox, renderPlacedFields, setDirty, TYPE_NAMES } from './fieldEditor.js';
/** @typedef {import('./consoleSession.js').Field} Field */
/** @typedef {import('./consoleSession.js').FieldInput} FieldInput */
/** @typedef {import('./problems.js').ApiError} ApiError */
/** @typedef {import('./consoleSession.js').Subject} Subject */
/** @typedef {import('./consoleSession.js').EditorRules} EditorRules */
/** @typedef {import('./consoleSession.js').EditorField} EditorField */

/**
 * @param {string} key
 */
export function focusField(key) {
  var element = /** @type {HTMLElement | null} */ (document.querySelector('.placed-field[data-key="' + key + '"]'));
  if (element) element.focus();
}

/**
 * @param {string | null} key
 */
export function select(key) {
  fields.selected = key;
}

export function selectedField() {
  return fields.list.find(function (field) { return field.key === fields.selected; }) || null;
}

/**
 * Moves (or, from the corner handle, resizes) a field with the pointer.
 * @param {PointerEvent} event
 * @param {EditorField} field
 * @param {HTMLElement} box
 * @param {boolean} resizing
 */
export function startDrag(event, field, box, resizing) {
  if (event.button !== 0) return;
  event.preventDefault();
  event.stopPropagation();
  var element = pageElement(field.page);
  var rect = element.getBoundingClientRect();
  var origin = { x: event.clientX, y: event.clientY, field: { x: field.x, y: field.y, width: field.width, height: field.height } };
  var moved = false;
  box.setPointerCapture(event.pointerId);
  select(field.key);
  box.classList.add('selected');
  var move = function (/** @type {PointerEvent} */ moveEvent) {
    var dx = (moveEvent.clientX - origin.x) / rect.width;
    var dy = (moveEvent.clientY - origin.y) / rect.height;
    if (!moved && Math.abs(moveEvent.clientX - origin.x) + Math.abs(moveEvent.clientY - origin.y) < 3) return;
    moved = true;
    if (resizing) {
      field.width = clamp(origin.field.width + dx, MIN_FRACTION, 1 - field.x);
      field.height = clamp(origin.field.height + dy, MIN_FRACTION, 1 - field.y);
    } else {
      field.x = clamp(origin.field.x + dx, 0, 1 - field.width);
      field.y = clamp(origin.field.y + dy, 0, 1 - field.height);
    }
    placeBox(box, field);
  };
  var up = function () {
    box.removeEventListener('pointermove', move);
    box.removeEventListener('pointerup', up);
    box.removeEventListener('pointercancel', up);
    if (moved) {
      setDirty(true);
      announce(describeField(field) + (resizing ? ' resized.' : ' moved.'));
    }
    renderPlacedFields();
    focusField(field.key);
  };
  box.addEventListener('pointermove', move);
  box.addEventListener('pointerup', up);
  box.addEventListener('pointercancel', up);
}

/**
 * The keyboard on a field: arrows move it, Shift with arrows resizes it, Delete or Backspace removes it.
 * @param {KeyboardEvent} event
 * @param {EditorField} field
 */
export function keyOnField(event, field) {
  /** @type {Record<string, number[]>} */
  var deltas = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
  if (event.key === 'Delete' || event.key === 'Backspace') {
    event.preventDefault();
    deleteField(field.key);
    return;
  }
  var delta = deltas[event.key];
  if (!delta) return;
  event.preventDefault();
  select(field.key);
  if (event.shiftKey) {
    field.width += delta[0] * KEY_STEP;
    field.height += delta[1] * KEY_STEP;
  } else {
    field.x += delta[0] * KEY_STEP;
    field.y += delta[1] * KEY_STEP;
  }
  fit(field);
  setDirty(true);
  renderPlacedFields();
  focusField(field.key);
  announce(event.shiftKey ? percent(field.width) + ' wide, ' + percent(field.height) + ' high.' : percent(field.x) + ' from the left, ' + percent(field.y) + ' from the top.');
}

/**
 * @param {string} key
 */
export function deleteField(key) {
  var field = fields.list.find(function (candidate) { return candidate.key === key; });
  if (!field) return;
  fields.list = fields.list.filter(function (candidate) { return candidate.key !== key; });
  if (fields.selected === key) fields.selected = null;
  setDirty(true);
  renderPlacedFields();
  announce(describeField(field) + ' deleted.');
  $('field-type').focus();
}

/**
 * @param {string} text
 */
export function announce(text) {
  $('field-announcer').textContent = text;
}

/** The selected field's settings, as a form: the keyboard's full alternative to dragging. */
export function renderEditor() {
  var field = selectedField();
  var editor = $('field-editor');
  editor.hidden = field === null || !editable();
  if (field === null) return;
  // A field typed into keeps what is being typed; another field (newly placed or selected) shows its own values.
  var sameField = fields.edited === field.key;
  fields.edited = field.key;
  $('field-editor-heading').textContent = 'Selected field: ' + describeField(field);
  var recipient = $('edit-recipient');
  recipient.textContent = '';
  fields.subject.signers.filter(function (signer) { return signer.role === 'signer'; }).forEach(function (signer) {
    var option = document.createElement('option');
    option.value = signer.id;
    option.textContent = signer.name;
    recipient.appendChild(option);
  });
  recipient.value = field.recipientId;
  var type = $('edit-type');
  if (type.options.length === 0) {
    FIELD_TYPES.forEach(function (name) {
      var option = document.createElement('option');
      option.value = name;
      option.textContent = TYPE_NAMES[name];
      type.appendChild(option);
    });
  }
  type.value = field.type;
  if (!sameField || document.activeElement !== $('edit-label')) $('edit-label').value = field.label;
  $('edit-required').checked = field.required;
  /** @type {[string, 'x' | 'y' | 'width' | 'height'][]} */ ([['edit-x', 'x'], ['edit-y', 'y'], ['edit-width', 'width'], ['edit-height', 'height']]).forEach(function (pair) {
    var input = /** @type {HTMLInputElement} */ ($(pair[0]));
    if (!sameField || document.activeElement !== input) input.value = String(Math.round(field[pair[1]] * 1000) / 10);
  });
  renderRuleEditor(field, sameField);
}

// ---- Field rules and prefilled values (number, date, dropdown, text limits) -----------------------

/**
 * Which rule inputs each type offers; the service refuses a rule on any other type.
 * @type {Partial<Record<Field['type'], string[]>>}
 */
var RULES_BY_TYPE = {
  text: ['minLength', 'maxLength', 'pattern', 'value', 'readOnly'],
  number: ['min', 'max', 'value', 'readOnly'],
  date: ['value', 'readOnly'],
  dropdown: ['options', 'value', 'readOnly'],
  checkbox: ['valueCheck', 'readOnly'],
  attachment: ['accept', 'maxBytes'],
  image: ['maxBytes'],
  // name, email and date_signed take none: the service fills them in, and refuses a prefilled value.
};
/** The media types an `attachment` field may take (docs/api.md#files-from-signers); none ticked off: all three. */
var ATTACHMENT_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];
var MIB = 1024 * 1024;
/** Rule key -> the editor's input id. */
var RULE_INPUTS = {
  options: 'edit-options', min: 'edit-min', max: 'edit-max', minLength: 'edit-min-length', maxLength: 'edit-max-length',
  pattern: 'edit-pattern', value: 'edit-value', valueCheck: 'edit-value-check',
};

/**
 * A field's rules as the editor holds them: strings as typed (options one per line), readOnly a boolean.
 * @param {Partial<Field>} field
 * @returns {EditorRules}
 */
export function rulesFromApi(field) {
  var text = function (/** @type {unknown} */ value) { return value === undefined || value === null ? '' : String(value); };
  var maxBytesShown = typeof field.maxBytes === 'number' ? String(Math.round((field.maxBytes / MIB) * 100) / 100) : '';
  return {
    options: Array.isArray(field.options) ? field.options.join('\n') : '', min: text(field.min), max: text(field.max),
    minLength: text(field.minLength), maxLength: text(field.maxLength), pattern: text(field.pattern),
    value: typeof field.value === 'string' ? field.value : '', valueCheck: typeof field.value === 'boolean' ? String(field.value) : '',
    readOnly: field.readOnly === true,
    accept: Array.isArray(field.accept) ? field.accept.slice() : ATTACHMENT_TYPES.slice(),
    maxBytes: maxBytesShown, maxBytesExact: typeof field.maxBytes === 'number' ? field.maxBytes : null, maxBytesShown: maxBytesShown,
  };
}

/**
 * Adds the rules the field's type takes to its request payload (numbers as JSON numbers, the rest as typed).
 * @param {Record<string, unknown>} payload
 * @param {EditorField} field
 */
function addRules(payload, field) {
  var rules = field.rules || rulesFromApi({});
  var offered = RULES_BY_TYPE[field.type] || [];
  var has = function (/** @type {string} */ key) { return offered.indexOf(key) >= 0; };
  var number = function (/** @type {'min' | 'max' | 'minLength' | 'maxLength'} */ key) {
    var raw = String(rules[key]).trim();
    if (has(key) && raw !== '') payload[key] = Number.isFinite(Number(raw)) ? Number(raw) : raw;
  };
  if (has('options')) {
    payload.options = rules.options.split('\n').map(function (line) { return line.trim(); }).filter(function (line) { return line !== ''; });
  }
  /** @type {('min' | 'max' | 'minLength' | 'maxLength')[]} */ (['min', 'max', 'minLength', 'maxLength']).forEach(number);
  if (has('pattern') && rules.pattern !== '') payload.pattern = rules.pattern;
  if (has('value') && rules.value !== '') payload.value = rules.value;
  if (has('valueCheck') && rules.valueCheck !== '') payload.value = rules.valueCheck === 'true';
  if (has('readOnly') && rules.readOnly) payload.readOnly = true;
  // All three types ticked is the default: sent as nothing. None ticked is sent, and refused with its reason.
  if (has('accept') && rules.accept.length < ATTACHMENT_TYPES.length) payload.accept = rules.accept.slice();
  if (has('maxBytes')) {
    var mib = rules.maxBytes.trim();
    if (mib !== '' && mib === rules.maxBytesShown && rules.maxBytesExact !== null) payload.maxBytes = rules.maxBytesExact;
    else if (mib !== '') payload.maxBytes = Number.isFinite(Number(mib)) ? Math.round(Number(mib) * MIB) : mib;
  }
}

/**
 * Shows the rule inputs the selected field's type takes, with its values (what is being typed stays).
 * @param {EditorField} field
 * @param {boolean} sameField
 */
function renderRuleEditor(field, sameField) {
  if (!field.rules) field.rules = rulesFromApi({});
  var offered = RULES_BY_TYPE[field.type] || [];
  $('edit-rules').hidden = offered.length === 0;
  document.querySelectorAll('#edit-rules [data-rule]').forEach(function (element) {
    var block = /** @type {HTMLElement} */ (element);
    block.hidden = offered.indexOf(block.dataset.rule) < 0;
  });
  /** @type {(keyof typeof RULE_INPUTS)[]} */ (Object.keys(RULE_INPUTS)).forEach(function (key) {
    var input = /** @type {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} */ ($(RULE_INPUTS[key]));
    if (!sameField || document.activeElement !== input) input.value = field.rules[key];
  });
  $('edit-read-only').checked = field.rules.readOnly;
  var accept = field.rules.accept;
  document.querySelectorAll('#edit-rules [data-accept]').forEach(function (element) {
    var box = /** @type {HTMLInputElement} */ (element);
    box.checked = accept.indexOf(box.dataset.accept || '') >= 0;
  });
  var maxBytes = /** @type {HTMLInputElement} */ ($('edit-max-bytes'));
  if (!sameField || document.activeElement !== maxBytes) maxBytes.value = field.rules.maxBytes;
}

/** Wires the rule inputs to the selected field. */
export function wireRuleEditor() {
  /** @type {(keyof typeof RULE_INPUTS)[]} */ (Object.keys(RULE_INPUTS)).forEach(function (key) {
    var input = /** @type {HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement} */ ($(RULE_INPUTS[key]));
    input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', function () {
      editSelected(function (field) { field.rules[key] = input.value; });
    });
  });
  $('edit-read-only').addEventListener('change', function () {
    editSelected(function (field) { field.rules.readOnly = $('edit-read-only').checked; });
  });
  document.querySelectorAll('#edit-rules [data-accept]').forEach(function (element) {
    var box = /** @type {HTMLInputElement} */ (element);
    box.addEventListener('change', function () {
      editSelected(function (field) {
        field.rules.accept = ATTACHMENT_TYPES.filter(function (type) {
          var other = /** @type {HTMLInputElement} */ (document.querySelector('#edit-rules [data-accept="' + type + '"]'));
          return other.checked;
        });
      });
    });
  });
  var maxBytes = /** @type {HTMLInputElement} */ ($('edit-max-bytes'));
  maxBytes.addEventListener('input', function () {
    editSelected(function (field) { field.rules.maxBytes = maxBytes.value; });
  });
}

/**
 * @param {(field: EditorField) => void} change
 */
export function editSelected(change) {
  var field = selectedField();
  if (field === null) return;
  change(field);
  fit(field);
  setDirty(true);
  renderPlacedFields();
}

/** @returns {FieldInput[]} */
export function fieldsPayload() {
  var round = function (/** @type {number} */ value) { return Math.floor(value * 10000) / 10000; };
  return fields.list.map(function (field) {
    /** @type {FieldInput & Record<string, unknown>} */
    var payload = {
      recipientId: field.recipientId, type: field.type, page: field.page,
      x: round(field.x), y: round(field.y), width: Math.max(0.0001, round(field.width)), height: Math.max(0.0001, round(field.height)),
      required: field.required,
    };
    if (field.id) payload.id = field.id;
    if (field.documentId) payload.documentId = field.documentId;
    if (field.label.trim() !== '') payload.label = field.label.trim();
    addRules(payload, field);
    return payload;
  });
}

export function saveFields() {
  return fields.saveTo(fieldsPayload()).then(function (saved) {
    fields.list = saved.fields.map(fromApi);
    fields.selected = null;
    setDirty(false);
    renderPlacedFields();
    showStatus('Fields saved: ' + saved.fields.length + '.');
  });
}

/**
 * "Detect fields": after the sender agrees to lose the fields on show (if any), replaces them with
 * those the document places itself, and says what was found (or, from the problem's `errors`, which
 * tag on which page was refused).
 */
export function detectFields() {
  var placed = fields.list.length;
  var asked = placed === 0 && !fields.dirty ? Promise.resolve(true) : confirmAction({
    title: 'Replace the fields?',
    paragraphs: [
      (placed === 1 ? 'The field placed now is' : 'The ' + placed + ' fields placed now are') + ' replaced by those found in the document' + (fields.dirty ? ', and unsaved changes are lost.' : '.'),
    ],
    confirm: 'Detect fields',
  });
  return asked.then(function (confirmed) {
    if (!confirmed) return;
    showDetectResult(null);
    return fields.detectWith().then(function (found) {
      fields.list = found.fields.map(fromApi);
      fields.selected = null;
      setDirty(false);
      renderPlacedFields();
      showDetectResult(detectionSummary(found));
    }, function (error) {
      // Shown beside the button (the page's error notice is far above); a lost session ends it there.
      if (error.status === 401) throw error;
      showDetectResult(null, error);
    });
  });
}

/**
 * `POST <path>/fields/detect` for the envelope or template at `path` (as `api` takes it, e.g.
 * `envelopes/<id>`) with `If-Match: etag`, then `reopen()` (a promise) shows it as saved; resolves to
 * `{fields, textTags, formFields}`, the fields as the placement tool holds them (by `recipientId`).
 * On 412 it shows the current version too, then rejects with the error.
 * @param {string} path
 * @param {string | null} etag
 * @param {() => Promise<unknown>} reopen
 */
export function detectAndReopen(path, etag, reopen) {
  return api('POST', path + '/fields/detect', { ifMatch: etag }).then(function (response) {
    return reopen().then(function () {
      return { fields: fields.subject.fields, textTags: response.body.textTags, formFields: response.body.formFields };
    });
  }, function (error) {
    if (error.status !== 412) throw error;
    return reopen().then(function () { throw error; });
  });
}

/**
 * Says beside "Detect fields" what was found (`summary`) or what was wrong (`error`); neither: nothing.
 * @param {string | null} summary
 * @param {ApiError | Error} [error]
 */
export function showDetectResult(summary, error) {
  var box = $('detect-result');
  box.textContent = '';
  box.hidden = summary === null && !error;
  if (error) {
    box.className = 'notice notice-error';
    describeError(box, error);
  } else if (summary !== null) {
    box.className = 'notice notice-ok';
    box.textContent = summary;
  }
}

/**
 * What detection found, in a sender's words.
 * @param {{ fields: Subject['fields'], textTags: number, formFields: number }} found
 */
function detectionSummary(found) {
  var count = function (/** @type {number} */ number, /** @type {string} */ one, /** @type {string} */ many) { return number + ' ' + (number === 1 ? one : many); };
  if (found.fields.length === 0) {
    return 'No fields found: the document has no text tags and no form fields, so it has no fields now. Place them by hand, or write text tags such as {{signature}} in the document.';
  }
  return 'Found ' + count(found.fields.length, 'field', 'fields') + ' in the document (' + count(found.textTags, 'text tag', 'text tags') + ', ' +
    count(found.formFields, 'form field', 'form fields') + '), saved and shown on the pages. Select one to change it.';
}

export function addFieldByKeyboard() {
  var number = Number($('field-page').value || '1');
  if (pageElement(number) === null) return;
  addField(newField(number, { x: 0.5, y: 0.5 }));
  pageElement(number).scrollIntoView({ block: 'nearest' });
}
