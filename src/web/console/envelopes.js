// @ts-check
// The envelope list, and one envelope on show with the controls its status allows.
import { $, action, api, formatTime, state, statusBadge } from './consoleSession.js';
import { detectEnvelopeFields, showSettings, speaksLocales } from './envelopeActions.js';
import { setFieldControls, showFields } from './fieldEditor.js';
import { renderRecipients } from './recipientStatus.js';
import { renderSigners } from './signers.js';
import { placeFieldsCard } from './templates.js';
/** @typedef {import('./consoleSession.js').Envelope} Envelope */

// ---- Envelopes ---------------------------------------------------------------------------

export function loadEnvelopes() {
  return api('GET', 'envelopes').then(function (response) {
    state.envelopes = response.body;
    renderEnvelopeList();
  });
}

export function renderEnvelopeList() {
  var rows = $('envelope-rows');
  rows.textContent = '';
  state.envelopes.forEach(function (envelope) {
    var row = document.createElement('tr');
    if (state.envelope && state.envelope.id === envelope.id) row.className = 'selected';
    [envelope.documentName, null, String(envelope.signers.length), formatTime(envelope.createdAt)].forEach(function (value, index) {
      var cell = document.createElement(index === 0 ? 'th' : 'td');
      if (index === 0) cell.scope = 'row';
      if (index === 1) {
        cell.appendChild(statusBadge(envelope.status));
        if (envelope.purgedAt !== null) {
          var purged = document.createElement('span');
          purged.className = 'hint reason';
          purged.textContent = 'documents deleted';
          cell.appendChild(purged);
        }
      }
      else cell.textContent = value;
      row.appendChild(cell);
    });
    var open = document.createElement('button');
    open.type = 'button';
    open.className = 'secondary';
    open.textContent = 'Open';
    open.setAttribute('aria-label', 'Open ' + envelope.documentName + ' (' + envelope.status + ', created ' + formatTime(envelope.createdAt) + ')');
    open.addEventListener('click', action(open, function () { return openEnvelope(envelope.id, true); }));
    var cell = document.createElement('td');
    cell.appendChild(open);
    row.appendChild(cell);
    rows.appendChild(row);
  });
  $('envelope-table').hidden = state.envelopes.length === 0;
  $('envelopes-empty').hidden = state.envelopes.length > 0;
}

/**
 * @param {string} id
 * @param {boolean} [focus]
 */
export function openEnvelope(id, focus) {
  return api('GET', 'envelopes/' + encodeURIComponent(id)).then(function (response) {
    showEnvelope(response.body, response.headers.get('ETag'));
    // The address names the open envelope, so it can be bookmarked or reloaded (after logging in).
    if (window.location.hash !== '#envelope=' + id) history.replaceState(null, '', '#envelope=' + id);
    if (focus) $('envelope-heading').focus();
  });
}

/**
 * @param {Envelope} envelope
 * @param {string | null} etag
 */
export function showEnvelope(envelope, etag) {
  var previous = state.envelope;
  placeFieldsCard($('envelope'), $('recipients-card'));
  $('template').hidden = true;
  state.template = null;
  state.envelope = envelope;
  state.etag = etag;
  $('envelope').hidden = false;
  $('envelope-heading').textContent = 'Envelope: ' + envelope.documentName;
  $('envelope-document').textContent = envelope.documentName;
  var badge = $('envelope-status');
  badge.textContent = envelope.status;
  badge.className = 'badge badge-' + envelope.status;
  $('envelope-id').textContent = envelope.id;
  $('envelope-created').textContent = formatTime(envelope.createdAt);
  $('envelope-purged-term').hidden = envelope.purgedAt === null;
  $('envelope-purged').hidden = envelope.purgedAt === null;
  $('envelope-purged').textContent = envelope.purgedAt === null ? '' : formatTime(envelope.purgedAt) + ': the documents are gone; the history and SHA-256 stay.';
  var changed = !previous || previous.id !== envelope.id || previous.updatedAt !== envelope.updatedAt;
  if (changed) {
    renderSigners(envelope.signers);
    $('signing-order').value = envelope.signingOrder;
    showSettings(envelope);
  }
  renderRecipients(envelope);
  showFields(envelope, previous, changed, null, envelope.status === 'draft' ? detectEnvelopeFields : null);
  setLifecycleControls(envelope);
  $('sealed').hidden = envelope.status !== 'completed';
  $('sealed-hash').textContent = envelope.hash || '';
  $('download').hidden = envelope.signedUrl === null;
  $('sealed-purged').hidden = envelope.purgedAt === null;
  $('download-result').hidden = true;
  // Keep the list in step with what the API just said.
  state.envelopes = state.envelopes.map(function (item) { return item.id === envelope.id ? envelope : item; });
  renderEnvelopeList();
}

/**
 * Only what the lifecycle allows is enabled (CONTRACT §5).
 * @param {Envelope} envelope
 */
export function setLifecycleControls(envelope) {
  var open = envelope.status === 'draft' || envelope.status === 'sent';
  $('send').disabled = envelope.status !== 'draft';
  $('complete').disabled = !open;
  // Signers, their order and the fields are what gets signed: fixed once sent (CONTRACT §5).
  var draft = envelope.status === 'draft';
  $('save-signers').disabled = !draft;
  $('add-signer').disabled = !draft;
  $('signing-order').disabled = !draft;
  $('signer-list').querySelectorAll('input, select, button').forEach(function (control) { /** @type {HTMLInputElement} */ (control).disabled = !draft; });
  ['expires-at', 'remind-every', 'allow-reassign', 'save-settings'].forEach(function (id) { /** @type {HTMLInputElement} */ ($(id)).disabled = !draft; });
  // Languages: settings too, and only where the service takes them.
  $('envelope-locale').disabled = !draft || !speaksLocales();
  $('signer-list').querySelectorAll('select[data-field="locale"]').forEach(function (control) { /** @type {HTMLSelectElement} */ (control).disabled = !draft || !speaksLocales(); });
  $('settings-hint').textContent = draft ? 'Settings of a draft: once sent, they can no longer change.' : 'The envelope has left draft: these settings can no longer change.';
  // Void a sent envelope; delete a draft; purge a finished envelope's documents (CONTRACT §14.4).
  var purged = envelope.purgedAt !== null;
  $('void').disabled = envelope.status !== 'sent';
  $('delete').textContent = draft ? 'Delete draft…' : 'Delete documents…';
  $('delete').disabled = envelope.status === 'sent' || purged;
  $('lifecycle-hint').textContent = envelope.status === 'sent'
    ? 'To delete a sent envelope, void it first: then its documents can be deleted.'
    : purged ? 'The documents of this envelope were deleted.' : '';
  setFieldControls(envelope);
}
