// @ts-check
// The signers' files of the envelope on show (docs/api.md#files-from-signers): each with its field,
// who gave it and its SHA-256; a download is checked against that SHA-256 before it is saved.
import { $, action, api, formatTime, saveBytes, sha256Hex, showStatus, state } from './consoleSession.js';
/** @typedef {import('./consoleSession.js').Envelope} Envelope */
/** @typedef {import('./consoleSession.js').Schemas['ListedAttachment']} ListedAttachment */

/**
 * Shows the card of the envelope's files (hidden while it has no `attachment` or `image` field, is a
 * draft, or was purged: no signer can have given a file then, or the files are gone).
 * @param {Envelope} envelope
 * @returns {Promise<void>}
 */
export function showAttachments(envelope) {
  var card = $('attachments-card');
  var takesFiles = envelope.fields.some(function (field) { return field.type === 'attachment' || field.type === 'image'; });
  if (!takesFiles || envelope.status === 'draft' || envelope.purgedAt !== null) {
    card.hidden = true;
    return Promise.resolve();
  }
  return api('GET', 'envelopes/' + encodeURIComponent(envelope.id) + '/attachments').then(function (response) {
    // Another envelope may be on show by the time the list arrives.
    if (state.envelope === null || state.envelope.id !== envelope.id) return;
    renderAttachments(envelope.id, response.body.attachments);
    card.hidden = false;
  });
}

/**
 * One block per file: its name; its field and size; who gave it and when; its SHA-256; "Download".
 * @param {string} envelopeId
 * @param {ListedAttachment[]} attachments
 */
function renderAttachments(envelopeId, attachments) {
  var list = $('attachment-list');
  list.textContent = '';
  attachments.forEach(function (attachment) {
    var item = document.createElement('li');
    var name = document.createElement('p');
    name.className = 'file-name';
    name.textContent = attachment.name;
    item.appendChild(name);
    var field = attachment.fieldLabel || (attachment.fieldType === 'image' ? 'Photo' : 'File upload');
    [field + ' · ' + formatSize(attachment.size), 'Given by ' + attachment.recipientName + ', ' + formatTime(attachment.uploadedAt)].forEach(function (text) {
      var line = document.createElement('p');
      line.textContent = text;
      item.appendChild(line);
    });
    var hash = document.createElement('p');
    hash.textContent = 'SHA-256 ';
    var code = document.createElement('code');
    code.className = 'hash';
    code.textContent = attachment.sha256;
    hash.appendChild(code);
    item.appendChild(hash);
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.textContent = 'Download';
    button.setAttribute('aria-label', 'Download ' + attachment.name);
    button.addEventListener('click', action(button, function () { return downloadAttachment(envelopeId, attachment); }));
    item.appendChild(button);
    list.appendChild(item);
  });
  list.hidden = attachments.length === 0;
  $('attachments-empty').hidden = attachments.length > 0;
}

/**
 * A size in bytes as people read it: bytes, KiB or MiB.
 * @param {number} bytes
 */
function formatSize(bytes) {
  if (bytes < 1024) return bytes + ' bytes';
  if (bytes < 1024 * 1024) return (bytes / 1024).toFixed(1) + ' KiB';
  return (bytes / (1024 * 1024)).toFixed(1) + ' MiB';
}

/**
 * Reads the file through a fresh read-only URL, checks its SHA-256 against the one listed, and saves
 * it under its name; a file that does not match is not saved.
 * @param {string} envelopeId
 * @param {ListedAttachment} attachment
 */
function downloadAttachment(envelopeId, attachment) {
  return api('GET', 'envelopes/' + encodeURIComponent(envelopeId) + '/attachments/' + encodeURIComponent(attachment.attachmentId))
    .then(function (response) { return fetch(response.body.url); })
    .then(function (response) {
      if (!response.ok) throw new Error('Blob storage answered ' + response.status + ' for ' + attachment.name + '.');
      return response.arrayBuffer();
    })
    .then(function (bytes) {
      if (!window.crypto || !window.crypto.subtle) {
        saveBytes(bytes, attachment.contentType, attachment.name);
        showStatus('Downloaded ' + attachment.name + '. This page is not a secure context, so it cannot compute the SHA-256: compare with sha256sum.');
        return;
      }
      return sha256Hex(bytes).then(function (hex) {
        if (hex !== attachment.sha256) throw new Error('The file read from storage is not the one the signer gave (its SHA-256 differs), so it was not saved.');
        saveBytes(bytes, attachment.contentType, attachment.name);
        showStatus('Downloaded ' + attachment.name + '; its SHA-256 matches the one recorded at its upload.');
      });
    });
}
