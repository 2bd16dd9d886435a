// @ts-check
// The documents: the first one's upload to Blob storage through the SAS URL the API hands out, the
// documents card (add, rename, move, remove, output) of an envelope or a template, and the download
// of the sealed PDF.
import { $, action, api, saveBytes, sha256Hex, showError, showStatus, state } from './consoleSession.js';
import { confirmAction } from './envelopeActions.js';
import { loadEnvelopes, openEnvelope, showEnvelope } from './envelopes.js';
import { percent } from './fieldEditor.js';

// ---- Upload ------------------------------------------------------------------------------

export function upload() {
  var file = $('upload-file').files[0];
  if (!file) throw new Error('Choose a PDF document first.');
  setProgress(0);
  return api('POST', 'GetUploadUrl', { json: { filename: file.name, mimetype: file.type || 'application/pdf' } }).then(function (response) {
    var ticket = response.body;
    showStatus('Uploading ' + file.name + '…');
    return putToBlobStorage(ticket.uploadUrl, file).then(function () {
      $('upload-form').reset();
      showStatus('Uploaded ' + file.name + ': a draft envelope. Name its signers next.');
      return loadEnvelopes().then(function () { return openEnvelope(ticket.envelopeId, true); });
    });
  });
}

/**
 * PUT of the file to its SAS URL, as Blob storage requires (docs/api.md#create-an-envelope-and-upload-its-document), reporting progress.
 * @param {string} uploadUrl
 * @param {File} file
 * @returns {Promise<void>}
 */
export function putToBlobStorage(uploadUrl, file) {
  return new Promise(function (resolve, reject) {
    var request = new XMLHttpRequest();
    request.open('PUT', uploadUrl);
    request.setRequestHeader('x-ms-blob-type', 'BlockBlob');
    request.setRequestHeader('Content-Type', 'application/pdf');
    request.upload.addEventListener('progress', function (event) {
      if (event.lengthComputable) setProgress(Math.round((event.loaded / event.total) * 100));
    });
    request.addEventListener('load', function () {
      if (request.status === 201) {
        setProgress(100);
        resolve();
      } else {
        reject(new Error('Blob storage refused the upload (' + request.status + '): ' + storageMessage(request.responseText)));
      }
    });
    request.addEventListener('error', function () {
      reject(new Error('The upload did not reach Blob storage (network or CORS).'));
    });
    request.send(file);
  });
}

/**
 * The `<Message>` of a Blob storage error document.
 * @param {string} xml
 */
function storageMessage(xml) {
  var parsed = new DOMParser().parseFromString(xml || '<Error/>', 'application/xml');
  var message = parsed.querySelector('Message');
  return message ? message.textContent.split('\n')[0] : 'no explanation given.';
}

/**
 * @param {number | null} percent
 */
function setProgress(percent) {
  $('upload-progress').value = percent;
  $('upload-progress').textContent = percent + '%';
  $('upload-percent').textContent = percent + '%';
}

// ---- Download ----------------------------------------------------------------------------

/** Fetches a fresh signed URL's PDF, shows its SHA-256 beside the API's, and saves it. */
export function download() {
  var envelope = state.envelope;
  return api('GET', 'envelopes/' + encodeURIComponent(envelope.id))
    .then(function (response) {
      showEnvelope(response.body, response.headers.get('ETag'));
      return fetch(response.body.signedUrl);
    })
    .then(function (response) {
      if (!response.ok) throw new Error('Blob storage answered ' + response.status + ' for the sealed PDF.');
      return response.arrayBuffer();
    })
    .then(function (bytes) {
      var saved = function () { saveBytes(bytes, 'application/pdf', sealedFileName(state.envelope.documentName)); };
      if (!window.crypto || !window.crypto.subtle) {
        saved();
        showStatus('Downloaded. This page is not a secure context, so it cannot compute the SHA-256: compare with sha256sum.');
        return;
      }
      return sha256Hex(bytes).then(function (hex) {
        var matches = hex === state.envelope.hash;
        $('download-hash').textContent = hex;
        $('download-verdict').textContent = matches ? 'matches the API.' : 'does NOT match the API.';
        $('download-verdict').className = matches ? 'ok' : 'bad';
        $('download-result').hidden = false;
        saved();
        showStatus(matches ? 'Downloaded the sealed PDF; its SHA-256 matches.' : 'Downloaded, but the SHA-256 differs from the API\'s.');
      });
    });
}

/**
 * @param {string} documentName
 */
function sealedFileName(documentName) {
  return documentName.replace(/\.pdf$/i, '') + '-sealed.pdf';
}

// ---- Several documents -------------------------------------------------------------------

/**
 * What the documents card shows and changes: the open envelope's documents or the open template's
 * (docs/api.md#several-documents, docs/api.md#documents-of-a-template); both take the same requests
 * under their own path.
 * @typedef {object} DocumentsSubject
 * @property {string} path `envelopes/<id>` or `templates/<id>`
 * @property {import('./consoleSession.js').Schemas['EnvelopeDocument'][]} documents
 * @property {'separate' | 'combined'} output
 * @property {string | null} blocker why nothing may change (not a draft, the caller's role), or null
 * @property {() => Promise<unknown>} reopen reads the envelope or template again and shows it
 * @property {(output: 'separate' | 'combined') => Promise<unknown>} saveOutput
 */

/** @type {DocumentsSubject | null} */
var shownDocuments = null;

/**
 * The documents card serves envelopes and templates alike, as the fields card does: it moves into the
 * section on show, `before` the given element.
 * @param {HTMLElement} section
 * @param {HTMLElement} before
 */
export function placeDocumentsCard(section, before) {
  var card = $('documents-card');
  if (card.parentNode === before.parentNode && card.nextElementSibling === before) return;
  section.insertBefore(card, before);
}

/**
 * Shows `subject`'s documents in order, each with its name (typing a new one renames it), arrows to
 * move it and a button to remove it; the file chooser adds one; the output choice.
 * @param {DocumentsSubject} subject
 */
export function showDocuments(subject) {
  shownDocuments = subject;
  var list = $('document-list');
  list.textContent = '';
  var locked = subject.blocker !== null;
  var count = subject.documents.length;
  subject.documents.forEach(function (item, index) {
    var entry = document.createElement('li');
    entry.dataset.documentId = item.id;
    var name = document.createElement('input');
    name.type = 'text';
    name.value = item.name;
    name.maxLength = 200;
    name.disabled = locked;
    name.setAttribute('aria-label', 'Name of document ' + (index + 1));
    name.addEventListener('change', runOnDocument(name, function () {
      var wanted = name.value.trim();
      if (wanted === '' || wanted === item.name) { name.value = item.name; return Promise.resolve(); }
      return changeDocument(item.id, { name: wanted }, 'Renamed document ' + (index + 1) + ' to ' + wanted + '.');
    }));
    entry.appendChild(name);
    if (item.pageCount !== null) {
      var pages = document.createElement('span');
      pages.className = 'hint';
      pages.textContent = item.pageCount + (item.pageCount === 1 ? ' page' : ' pages');
      entry.appendChild(pages);
    }
    entry.appendChild(documentButton('↑', 'Move ' + item.name + ' up', locked || index === 0, function () {
      return changeDocument(item.id, { order: index }, 'Moved ' + item.name + ' to place ' + index + '.');
    }));
    entry.appendChild(documentButton('↓', 'Move ' + item.name + ' down', locked || index === count - 1, function () {
      return changeDocument(item.id, { order: index + 2 }, 'Moved ' + item.name + ' to place ' + (index + 2) + '.');
    }));
    entry.appendChild(documentButton('Remove', 'Remove ' + item.name, locked || count === 1, function () {
      return removeDocument(item);
    }));
    list.appendChild(entry);
  });
  /** @type {HTMLInputElement} */ ($('document-file')).disabled = locked;
  /** @type {HTMLButtonElement} */ ($('add-document')).disabled = locked;
  var output = /** @type {HTMLSelectElement} */ ($('document-output'));
  output.value = subject.output;
  output.disabled = locked;
  $('documents-hint').textContent = locked
    ? subject.blocker
    : 'Documents are shown, signed and sealed in this order. Rename one by typing its new name, move it with the arrows, remove it with its fields. They can change only while this is a draft.';
}

/**
 * @param {string} text
 * @param {string} label
 * @param {boolean} disabled
 * @param {() => Promise<unknown>} run
 */
function documentButton(text, label, disabled, run) {
  var button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = text;
  button.setAttribute('aria-label', label);
  button.disabled = disabled;
  button.addEventListener('click', action(button, run));
  return button;
}

/**
 * @param {HTMLInputElement} control
 * @param {() => Promise<unknown>} run
 */
function runOnDocument(control, run) {
  return function () {
    run().catch(function (/** @type {Error} */ error) { showError(error, control); });
  };
}

/**
 * @param {string} documentId
 * @param {{ name?: string, order?: number }} changes
 * @param {string} done
 */
function changeDocument(documentId, changes, done) {
  var subject = /** @type {DocumentsSubject} */ (shownDocuments);
  return api('PATCH', subject.path + '/documents/' + encodeURIComponent(documentId), { json: changes }).then(function () {
    return subject.reopen().then(function () { showStatus(done); });
  });
}

/**
 * Removes a document after the sender confirms (its fields go with it).
 * @param {import('./consoleSession.js').Schemas['EnvelopeDocument']} item
 */
function removeDocument(item) {
  var subject = /** @type {DocumentsSubject} */ (shownDocuments);
  return confirmAction({ title: 'Remove ' + item.name + '?', paragraphs: ['The document is removed with every field placed on it.'], confirm: 'Remove document' }).then(function (confirmed) {
    if (!confirmed) return;
    return api('DELETE', subject.path + '/documents/' + encodeURIComponent(item.id)).then(function (response) {
      var removed = response.body.removedFieldIds.length;
      return subject.reopen().then(function () {
        showStatus('Removed ' + item.name + (removed === 0 ? '.' : ' and its ' + removed + (removed === 1 ? ' field.' : ' fields.')));
      });
    });
  });
}

/** Adds the chosen PDF as the last document of the envelope or template on show, and uploads it. */
export function addDocument() {
  var subject = /** @type {DocumentsSubject} */ (shownDocuments);
  var file = /** @type {HTMLInputElement} */ ($('document-file')).files[0];
  if (!file) throw new Error('Choose a PDF document to add first.');
  return api('POST', subject.path + '/documents', { json: { filename: file.name, mimetype: file.type || 'application/pdf' } }).then(function (response) {
    showStatus('Uploading ' + file.name + '…');
    return putToBlobStorage(response.body.uploadUrl, file).then(function () {
      /** @type {HTMLInputElement} */ ($('document-file')).value = '';
      return subject.reopen().then(function () { showStatus('Added ' + file.name + '.'); });
    });
  });
}

/** Saves the output chosen for the envelope or template on show. */
export function saveOutput() {
  var subject = /** @type {DocumentsSubject} */ (shownDocuments);
  var output = /** @type {'separate' | 'combined'} */ (/** @type {HTMLSelectElement} */ ($('document-output')).value);
  return subject.saveOutput(output).then(function () {
    showStatus(output === 'combined' ? 'Output: one PDF of all documents.' : 'Output: each document sealed on its own.');
  });
}
