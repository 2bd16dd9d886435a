// @ts-check
// Value fields (text, number, date, dropdown) and read-only values: their inputs, their hints, and
// the field a refusal of the service names.
import { t } from './i18n.js';
import { fieldName, paintField, updateProgress } from './ceremony.js';
import { $, state } from './signingSession.js';
/** @typedef {import('./signingSession.js').ViewField} ViewField */
/** @typedef {import('./signingSession.js').FieldValue} FieldValue */
/** @typedef {import('./signingSession.js').Entry} Entry */
/** @typedef {import('./problems.js').Problem} Problem */

// ---- Value fields: text, number, date, dropdown; read-only values -----------------------------------

/** Types whose value is a string the recipient types or picks. */
export const VALUE_TYPES = ['text', 'number', 'date', 'dropdown'];

/**
 * The control of a text, number, date or dropdown field: a text input (with the field's `maxLength`),
 * a decimal input (a phone shows its number keyboard), a date picker, or the native select. The
 * sender's default, if any, is filled in. The page checks nothing the service does not: the
 * service judges every value (a number's bounds, a text's pattern) and the page shows its answer.
 * @param {ViewField} field
 * @param {string} name
 */
export function valueFieldElement(field, name) {
  /** @type {HTMLInputElement | HTMLSelectElement} */
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

/**
 * A value the sender set and the recipient cannot change: shown in place, focusable, never editable.
 * @param {ViewField} field
 */
export function readOnlyFieldElement(field) {
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
 * @param {ViewField} field
 */
export function valueHints(field) {
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
 * A refusal of a field's value in the recipient's language, by the `rule` and `params` the service
 * names beside its message (docs/api.md#errors): never by the English wording, which may change.
 * A rule the page does not know keeps the service's own message.
 * @param {ViewField} field
 * @param {{ message: string, rule?: string, params?: Record<string, unknown> }} item
 * @returns {string}
 */
function refusalReason(field, item) {
  const params = item.params || {};
  switch (item.rule) {
    case 'required':
      return field.type === 'checkbox' ? t('refusalCheck') : t('refusalEmpty');
    case 'format':
      return params.format === 'date' ? t('refusalDate') : t('hintNumber');
    case 'type':
      return field.type === 'number' ? t('hintNumber') : item.message;
    case 'minLength':
      return t('hintMinLength', { count: typeof params.min === 'number' ? params.min : field.minLength });
    case 'maxLength':
      return t('hintMaxLength', { count: typeof params.max === 'number' ? params.max : field.maxLength });
    case 'min':
      return t('hintMin', { min: typeof params.min === 'number' ? params.min : field.min });
    case 'max':
      return t('hintMax', { max: typeof params.max === 'number' ? params.max : field.max });
    case 'options':
      return t('refusalOption');
    case 'pattern':
      return t('hintPattern');
    case 'attachment':
      return t('refusalAttachment');
    default:
      return item.message;
  }
}

/**
 * The value of a text, number, date or dropdown field as the API takes it ("" leaves it empty).
 * @param {Entry} entry
 */
export function valueToSend(entry) {
  const value = typeof entry.value === 'string' ? entry.value.trim() : '';
  // A decimal comma (what many phone keyboards offer) is the API's decimal point.
  return entry.field.type === 'number' ? value.replace(/^(-?[0-9]+),([0-9]+)$/, '$1.$2') : value;
}

/**
 * The service's complaints as lines, each naming the field by its name on the page where it can.
 * @param {Partial<Problem> | null} problem
 * @returns {string[]}
 */
export function refusalItems(problem) {
  if (!problem || !Array.isArray(problem.errors)) return [];
  return problem.errors.map((item) => {
    const entry = refusedEntry(item.path, state.lastValues);
    // The service names the field by label and id at the end of its message; the page names it first.
    if (!entry) return item.path + ': ' + item.message;
    const reason = refusalReason(entry.field, { ...item, message: item.message.replace(/ \(field [^()]*\)$/, '') });
    return t('refusalItem', { name: fieldName(entry.field), page: entry.field.page, message: reason });
  });
}

/**
 * Marks the fields the service refused (`values.N.value`) invalid and returns the first, to focus.
 * @param {Partial<Problem> | null} problem
 * @param {{ values?: FieldValue[] } | undefined} body
 * @returns {HTMLElement | null}
 */
export function refusedField(problem, body) {
  if (!problem || !Array.isArray(problem.errors) || !body || !Array.isArray(body.values)) return null;
  /** @type {HTMLElement | null} */
  let first = null;
  problem.errors.forEach((item) => {
    const entry = refusedEntry(item.path, body.values);
    if (!entry) return;
    entry.element.setAttribute('aria-invalid', 'true');
    if (first === null) first = entry.element;
  });
  return first;
}

/**
 * The entry a problem path `values.N...` points at, through the values the page sent.
 * @param {string} path
 * @param {FieldValue[]} values
 */
function refusedEntry(path, values) {
  const match = /^values\.([0-9]+)/.exec(path || '');
  if (!match || !Array.isArray(values) || !values[Number(match[1])]) return null;
  return state.entries.get(values[Number(match[1])].fieldId) || null;
}
