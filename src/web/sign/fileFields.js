// @ts-check
// Attachment and image fields (docs/api.md#files-from-signers): the file picker, the upload with its
// progress, the file chosen (name and size, a thumbnail for a photo) with Replace and Remove, the
// service's refusals in the recipient's language, and files earlier recipients gave.
import { formatList, locale, t } from './i18n.js';
import { paintField, placeBox, updateProgress } from './ceremony.js';
import { problemOf } from './problems.js';
import { API, state } from './signingSession.js';
/** @typedef {import('./signingSession.js').ViewField} ViewField */
/** @typedef {import('./signingSession.js').FilledField} FilledField */
/** @typedef {import('./signingSession.js').Entry} Entry */

/** Field types whose value is a file the recipient uploads. */
export const FILE_TYPES = ['attachment', 'image'];

/** The types an attachment field takes without `accept`, and an image field always. */
const ALL_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];
const IMAGE_TYPES = ['image/jpeg', 'image/png'];
/** The largest file a field takes without `maxBytes`, bytes (10 MiB). */
const MAX_BYTES = 10 * 1024 * 1024;
/** Each media type by the name people know its files by. */
const TYPE_NAMES = /** @type {Record<string, string>} */ ({ 'application/pdf': 'PDF', 'image/jpeg': 'JPEG', 'image/png': 'PNG' });

/**
 * A file field's state on the page: nothing yet, uploading (`progress` from 0 to 1), uploaded (its
 * name, size in bytes and, for a photo, an object URL of the local file), or refused (the message key
 * of the refusal; an uploaded file before it stays the value).
 * @typedef {{ busy: boolean, progress: number, name: string | null, size: number, preview: string | null, error: string | null }} FileState
 */

/** @type {Map<string, FileState>} by field id */
const files = new Map();

/** @type {Map<string, { panel: HTMLElement, heading: HTMLElement, status: HTMLElement, replace: HTMLButtonElement, remove: HTMLButtonElement, preview: HTMLElement }>} */
const parts = new Map();

/**
 * The media types a file field takes (`accept`, docs/api.md#files-from-signers).
 * @param {Pick<ViewField, 'type' | 'accept'>} field
 * @returns {string[]}
 */
function acceptedTypes(field) {
  if (field.type === 'image') return IMAGE_TYPES;
  return Array.isArray(field.accept) && field.accept.length > 0 ? field.accept : ALL_TYPES;
}

/**
 * A number of bytes in the page's language, grouped as it writes numbers ("12,345 bytes").
 * @param {number} bytes
 */
export function formatBytes(bytes) {
  return new Intl.NumberFormat(locale(), { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(bytes);
}

/**
 * The control of an attachment or image field: a file input (its accessible name the field's, set by
 * the caller) limited to the types the field takes, an invisible hit area over the field like every
 * field's. Beside it: the preview in the field's rectangle on `pageElement` (the file's name, or the
 * photo), and under the page (never over the document) a panel named by the field with the upload's
 * progress, a refusal, or the file's name and size with Replace and Remove.
 * @param {ViewField} field
 * @param {HTMLElement} pageElement
 * @returns {HTMLInputElement}
 */
export function fileFieldElement(field, pageElement) {
  const element = document.createElement('input');
  element.type = 'file';
  element.className = 'field field-file';
  element.accept = acceptedTypes(field).join(',');
  files.set(field.id, { busy: false, progress: 0, name: null, size: 0, preview: null, error: null });

  const preview = made('div', 'field-file-preview');
  preview.setAttribute('aria-hidden', 'true');
  placeBox(preview, field);

  const panel = made('div', 'file-panel');
  panel.setAttribute('role', 'group');
  const heading = made('strong', 'file-field-name');
  heading.dir = 'auto';
  const status = made('p', 'file-status');
  status.setAttribute('aria-live', 'polite');
  const replace = /** @type {HTMLButtonElement} */ (made('button', 'secondary'));
  replace.type = 'button';
  replace.addEventListener('click', () => element.click());
  const remove = /** @type {HTMLButtonElement} */ (made('button', 'secondary'));
  remove.type = 'button';
  remove.addEventListener('click', () => {
    const entry = /** @type {Entry} */ (state.entries.get(field.id));
    forget(field.id);
    entry.value = null;
    element.value = '';
    element.removeAttribute('aria-invalid');
    paintField(entry);
    updateProgress();
    element.focus();
  });
  const buttons = document.createElement('div');
  buttons.className = 'button-row';
  buttons.append(replace, remove);
  panel.append(heading, status, buttons);
  pageElement.append(preview);
  // Under the page, never over the document: the panels of the page's file fields, in reading order.
  let panels = pageElement.nextElementSibling;
  if (!(panels instanceof HTMLElement) || !panels.classList.contains('file-panels')) {
    panels = document.createElement('div');
    panels.className = 'file-panels';
    pageElement.after(panels);
  }
  panels.appendChild(panel);
  parts.set(field.id, { panel, heading, status, replace, remove, preview });

  element.addEventListener('change', () => {
    const file = element.files && element.files[0];
    if (file) void choose(/** @type {Entry} */ (state.entries.get(field.id)), file);
  });
  return element;
}

/**
 * A new element of `tag` with the class `className`.
 * @param {string} tag
 * @param {string} className
 * @returns {HTMLElement}
 */
function made(tag, className) {
  const element = document.createElement(tag);
  element.className = className;
  return element;
}

/**
 * Drops what the page holds of a field's file (its preview's object URL freed).
 * @param {string} fieldId
 */
function forget(fieldId) {
  const held = /** @type {FileState} */ (files.get(fieldId));
  if (held.preview !== null) URL.revokeObjectURL(held.preview);
  files.set(fieldId, { busy: false, progress: 0, name: null, size: 0, preview: null, error: null });
}

/**
 * Uploads the file the recipient picked; on success it becomes the field's value (`{attachmentId}`),
 * on a refusal the field keeps the file it had and the panel says why.
 * @param {Entry} entry
 * @param {File} file
 */
async function choose(entry, file) {
  const id = entry.field.id;
  const held = /** @type {FileState} */ (files.get(id));
  let refused = false;
  files.set(id, { ...held, busy: true, progress: 0, error: null });
  entry.element.setAttribute('aria-busy', 'true');
  /** @type {HTMLInputElement} */ (entry.element).disabled = true;
  paintFile(entry);
  try {
    const uploaded = await upload(id, file, (progress) => {
      files.set(id, { .../** @type {FileState} */ (files.get(id)), progress });
      paintFile(entry);
    });
    forget(id);
    files.set(id, {
      busy: false,
      progress: 1,
      name: uploaded.name,
      size: uploaded.size,
      preview: entry.field.type === 'image' ? URL.createObjectURL(file) : null,
      error: null,
    });
    entry.value = { attachmentId: uploaded.attachmentId };
    entry.element.removeAttribute('aria-invalid');
  } catch (error) {
    files.set(id, { .../** @type {FileState} */ (files.get(id)), busy: false, error: refusalKey(/** @type {{ status: number, slug: string }} */ (error)) });
    // The field is marked, and the panel under the page that says why is brought into sight.
    entry.element.setAttribute('aria-invalid', 'true');
    refused = true;
  } finally {
    entry.element.removeAttribute('aria-busy');
    /** @type {HTMLInputElement} */ (entry.element).disabled = false;
    /** @type {HTMLInputElement} */ (entry.element).value = '';
  }
  paintField(entry);
  updateProgress();
  const part = parts.get(id);
  if (refused && part) part.panel.scrollIntoView({ block: 'nearest' });
}

/**
 * The message key of an upload's refusal, by the problem's type (docs/api.md#files-from-signers),
 * never by the service's English words.
 * @param {{ status: number, slug: string }} failure
 */
function refusalKey(failure) {
  switch (failure.slug) {
    case 'attachment-too-large':
    case 'payload-too-large':
      return 'fileTooLarge';
    case 'attachment-type':
      return 'fileWrongType';
    case 'image-too-many-pixels':
      return 'fileTooManyPixels';
    default:
      return failure.status === 422 ? 'fileUnreadable' : 'fileUploadFailed';
  }
}

/**
 * `POST /api/signing/attachments?fieldId=` with the file's bytes as the body, its type as
 * `Content-Type` and its name as `Content-Disposition` (`filename*`, RFC 8187), reporting the
 * upload's progress (0 to 1). XMLHttpRequest, since fetch reports no upload progress.
 * @param {string} fieldId
 * @param {File} file
 * @param {(progress: number) => void} onProgress
 * @returns {Promise<{ attachmentId: string, name: string, size: number }>} the 201's body; rejects with `{status, slug}`
 *   (status 0 when nothing answered; slug the problem's type without `urn:problem:`, or '')
 */
function upload(fieldId, file, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', new URL('signing/attachments?fieldId=' + encodeURIComponent(fieldId), API));
    request.setRequestHeader('Accept', 'application/json');
    if (state.token !== null) request.setRequestHeader('Authorization', 'Bearer ' + state.token);
    request.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    request.setRequestHeader('Content-Disposition', "attachment; filename*=UTF-8''" + encodeURIComponent(file.name).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()));
    request.upload.addEventListener('progress', (event) => { if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total); });
    request.addEventListener('load', () => {
      /** @type {unknown} */
      let body = null;
      try { body = request.responseText === '' ? null : JSON.parse(request.responseText); } catch (ignored) { body = null; }
      if (request.status === 201 && body !== null && typeof body === 'object') return resolve(/** @type {{ attachmentId: string, name: string, size: number }} */ (body));
      const problem = problemOf(body);
      reject({ status: request.status, slug: problem && typeof problem.type === 'string' ? problem.type.replace(/^urn:problem:/, '') : '' });
    });
    request.addEventListener('error', () => reject({ status: 0, slug: '' }));
    request.send(file);
  });
}

/**
 * Shows a file field's state: the preview in its rectangle, and the panel's words and buttons.
 * @param {Entry} entry
 */
export function paintFile(entry) {
  const field = entry.field;
  const held = files.get(field.id);
  const part = parts.get(field.id);
  if (!held || !part) return;
  const name = /** @type {string} */ (entry.element.getAttribute('aria-label'));
  part.panel.setAttribute('aria-label', name);
  part.heading.textContent = name;
  part.panel.setAttribute('aria-busy', String(held.busy));
  part.replace.textContent = t('fileReplace');
  part.remove.textContent = t('fileRemove');
  part.replace.disabled = held.busy;
  part.remove.disabled = held.busy;
  part.replace.parentElement.hidden = held.busy || entry.value === null;
  part.status.classList.toggle('file-error', held.error !== null);
  if (held.busy) part.status.textContent = t('fileUploading', { progress: held.progress });
  else if (held.error !== null) part.status.textContent = t(held.error, { types: typeNames(field), size: formatBytes(maxBytes(field)) });
  else if (held.name !== null) part.status.textContent = t('fileUploaded', { file: held.name, size: formatBytes(held.size) });
  else part.status.textContent = '';
  part.panel.hidden = part.status.textContent === '' && entry.value === null;
  part.preview.textContent = '';
  part.preview.classList.toggle('field-file-empty', held.name === null && !held.busy);
  if (held.busy) {
    // The progress in place too, where the recipient is looking.
    const text = document.createElement('span');
    text.textContent = new Intl.NumberFormat(locale(), { style: 'percent' }).format(held.progress);
    part.preview.appendChild(text);
  } else if (held.preview !== null) {
    const image = document.createElement('img');
    image.src = held.preview;
    image.alt = '';
    part.preview.appendChild(image);
  } else {
    // The file's name, else (nothing given yet) the field's, as other fields show theirs.
    const text = document.createElement('span');
    text.dir = 'auto';
    text.textContent = held.name !== null ? held.name : name;
    part.preview.appendChild(text);
  }
}

/**
 * The field's rules as a sentence: the types it takes and its largest file.
 * @param {ViewField} field
 */
export function fileHint(field) {
  return t('hintFile', { types: typeNames(field), size: formatBytes(maxBytes(field)) });
}

/** @param {ViewField} field */
function typeNames(field) {
  return formatList(acceptedTypes(field).map((type) => TYPE_NAMES[type] || type));
}

/** @param {ViewField} field */
function maxBytes(field) {
  return typeof field.maxBytes === 'number' ? field.maxBytes : MAX_BYTES;
}

/**
 * An earlier recipient's file (`{attachmentId, name, contentType, size}` in the view's `filled`):
 * its words, "Passport, given by Ada: scan.pdf (PDF, 12,345 bytes)", never the file itself.
 * @param {FilledField} filled
 * @param {string} name the field's name on the page
 */
export function filledFileText(filled, name) {
  const value = /** @type {{ name?: string, contentType?: string, size?: number }} */ (filled.value);
  return t('filledFile', {
    name,
    person: filled.recipient.name,
    file: String(value.name || ''),
    type: TYPE_NAMES[String(value.contentType)] || String(value.contentType || ''),
    size: formatBytes(typeof value.size === 'number' ? value.size : 0),
  });
}
