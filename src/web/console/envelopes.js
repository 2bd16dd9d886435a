// @ts-check
// The envelope list, and one envelope on show with the controls its status allows.
import { $, action, api, formatTime, lockControls, showError, state, statusBadge, viewerBlocker } from './consoleSession.js';
import { showAttachments } from './attachments.js';
import { placeDocumentsCard, showDocuments } from './documents.js';
import { detectEnvelopeFields, showSettings, speaksLocales, update } from './envelopeActions.js';
import { fields, setFieldControls, showFields } from './fieldEditor.js';
import { renderRecipients } from './recipientStatus.js';
import { renderSigners } from './signers.js';
import { placeFieldsCard } from './templates.js';
/** @typedef {import('./consoleSession.js').Envelope} Envelope */

// ---- Envelopes ---------------------------------------------------------------------------

/**
 * Loads the list the switch chooses: the caller's envelopes, or with "Everyone's" the organisation's
 * (`scope=organization`, docs/api.md#what-members-share).
 */
export function loadEnvelopes() {
  var scope = state.envelopeScope;
  showEnvelopeScope();
  return api('GET', scope === 'organization' ? 'envelopes?scope=organization' : 'envelopes').then(function (response) {
    // An answer for a scope the switch has left since is not drawn.
    if (scope !== state.envelopeScope) return;
    state.envelopes = response.body;
    renderEnvelopeList();
  });
}

/**
 * Whether the caller's role sees the organisation's envelopes: admin, owner and viewer, not senders
 * (docs/api.md#what-members-share).
 * @param {string | null} role
 */
export function seesEveryonesEnvelopes(role) {
  return role === 'owner' || role === 'admin' || role === 'viewer';
}

/** Draws the "Mine" / "Everyone's" switch as `state.envelopeScope` says, and the list's heading. */
function showEnvelopeScope() {
  var everyone = state.envelopeScope === 'organization';
  $('envelope-scope').hidden = !seesEveryonesEnvelopes(state.organization ? state.organization.role : null);
  $('scope-mine').setAttribute('aria-pressed', String(!everyone));
  $('scope-organization').setAttribute('aria-pressed', String(everyone));
  $('envelopes-heading').textContent = everyone ? 'Everyone’s envelopes' : 'Your envelopes';
  $('envelope-caption').textContent = everyone ? 'Every envelope of the organisation, newest first, with its owner' : 'Your envelopes, newest first';
  $('envelope-owner-column').hidden = !everyone;
}

/**
 * The switch: "Mine" or "Everyone's".
 * @param {'mine' | 'organization'} scope
 */
export function setEnvelopeScope(scope) {
  state.envelopeScope = scope;
  return loadEnvelopes();
}

/**
 * Whether an envelope matches the search: every word typed is in its document's name, its status, a
 * recipient's name or e-mail address, or (in "Everyone's") its owner's address (case-insensitive). The API has no search parameter
 * (docs/api.md#list-envelopes): this searches the envelopes the list loaded.
 * @param {Envelope} envelope
 * @param {string[]} words
 */
function matches(envelope, words) {
  var text = [envelope.documentName, envelope.status, state.envelopeScope === 'organization' ? envelope.ownerEmail || '' : ''].concat(envelope.signers.map(function (signer) { return signer.name + ' ' + signer.email; })).join(' ').toLocaleLowerCase();
  return words.every(function (word) { return text.indexOf(word) >= 0; });
}

/**
 * @param {Envelope} envelope
 */
function recipientNames(envelope) {
  return envelope.signers.length === 0 ? 'none yet' : envelope.signers.map(function (signer) { return signer.name; }).join(', ');
}

export function renderEnvelopeList() {
  var rows = $('envelope-rows');
  rows.textContent = '';
  var words = $('envelope-search').value.toLocaleLowerCase().split(/\s+/).filter(Boolean);
  var shown = state.envelopes.filter(function (envelope) { return matches(envelope, words); });
  var everyone = state.envelopeScope === 'organization';
  shown.forEach(function (envelope) {
    var row = document.createElement('tr');
    if (state.envelope && state.envelope.id === envelope.id) row.className = 'selected';
    [envelope.documentName, ownerOf(envelope), null, recipientNames(envelope), formatTime(envelope.createdAt)].forEach(function (value, index) {
      if (index === 1 && !everyone) return;
      var cell = document.createElement(index === 0 ? 'th' : 'td');
      if (index === 0) cell.scope = 'row';
      if (index === 1) cell.className = 'owner';
      if (index === 2) {
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
    open.setAttribute('aria-label', 'Open ' + envelope.documentName + ' (' + envelope.status + (everyone ? ', of ' + ownerOf(envelope) : '') + ', created ' + formatTime(envelope.createdAt) + ')');
    open.addEventListener('click', action(open, function () { return openEnvelope(envelope.id, true); }));
    var cell = document.createElement('td');
    cell.appendChild(open);
    row.appendChild(cell);
    rows.appendChild(row);
  });
  $('envelope-table').hidden = shown.length === 0;
  $('envelopes-empty').hidden = state.envelopes.length > 0;
  $('envelope-search-row').hidden = state.envelopes.length === 0;
  $('envelope-search-hint').textContent = words.length === 0
    ? 'By document, recipient name or e-mail, or status, among the ' + state.envelopes.length + ' envelopes loaded.'
    : shown.length + ' of ' + state.envelopes.length + ' loaded envelopes match.';
}

/**
 * Whose an envelope is (in "Everyone's", and on show): its owner's address, "you" for the caller's own.
 * @param {Envelope} envelope
 */
function ownerOf(envelope) {
  if (envelope.ownerId === state.userId) return 'you';
  return envelope.ownerEmail || envelope.ownerId;
}

/** Wires the search box (the list narrows as the sender types) and the "Mine" / "Everyone's" switch. */
export function wireEnvelopeSearch() {
  $('envelope-search').addEventListener('input', renderEnvelopeList);
  $('scope-mine').addEventListener('click', action($('scope-mine'), function () { return setEnvelopeScope('mine'); }));
  $('scope-organization').addEventListener('click', action($('scope-organization'), function () { return setEnvelopeScope('organization'); }));
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
  fields.readOnly = viewerBlocker('Changing envelopes');
  state.envelope = envelope;
  state.etag = etag;
  $('envelope').hidden = false;
  $('envelope-heading').textContent = 'Envelope: ' + envelope.documentName;
  $('envelope-document').textContent = envelope.documentName;
  var badge = $('envelope-status');
  badge.textContent = envelope.status;
  badge.className = 'badge badge-' + envelope.status;
  $('envelope-id').textContent = envelope.id;
  $('envelope-owner').textContent = ownerOf(envelope);
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
  if (changed) showAttachments(envelope).catch(function (/** @type {Error} */ error) { showError(error, $('attachments-card')); });
  showFields(envelope, previous, changed, null, envelope.status === 'draft' ? detectEnvelopeFields : null);
  placeDocumentsCard($('envelope'), $('fields-card'));
  showDocuments({
    path: 'envelopes/' + encodeURIComponent(envelope.id),
    documents: envelope.documents,
    output: envelope.output,
    blocker: fields.readOnly !== null ? fields.readOnly : envelope.status !== 'draft' ? 'Sent: the documents are what gets signed, and no longer change.' : null,
    reopen: function () { return openEnvelope(envelope.id); },
    saveOutput: function (output) { return update({ output: output }); },
  });
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
 * Only what the lifecycle allows is enabled (docs/api.md#lifecycle).
 * @param {Envelope} envelope
 */
export function setLifecycleControls(envelope) {
  // A button that cannot succeed is disabled, and says why (docs/api.md#lifecycle).
  showReason($('send'), $('send-reason'), sendBlocker(envelope));
  showReason($('complete'), $('complete-reason'), completeBlocker(envelope));
  // Signers, their order and the fields are what gets signed: fixed once sent (docs/api.md#lifecycle).
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
  // Void a sent envelope; delete a draft; purge a finished envelope's documents (docs/api.md#delete-an-envelope-or-purge-its-documents).
  var purged = envelope.purgedAt !== null;
  $('void').disabled = envelope.status !== 'sent';
  $('delete').textContent = draft ? 'Delete draft…' : 'Delete documents…';
  $('delete').disabled = envelope.status === 'sent' || purged;
  $('lifecycle-hint').textContent = envelope.status === 'sent'
    ? 'To delete a sent envelope, void it first: then its documents can be deleted.'
    : purged ? 'The documents of this envelope were deleted.' : '';
  setFieldControls(envelope);
  // A viewer reads and changes nothing (docs/api.md#roles): what would change the envelope is disabled, saying why.
  var blocker = viewerBlocker('Changing envelopes');
  lockControls([$('send'), $('complete'), $('void'), $('delete'), $('save-signers'), $('add-signer'), $('signing-order'), $('save-settings')], blocker);
  lockControls($('signer-list').querySelectorAll('input, select, button'), blocker);
  lockControls(document.querySelectorAll('#settings-form input, #settings-form select, #recipient-rows button'), blocker);
}

/**
 * Disables `button` with `reason` shown in `box` (the button's description), or enables it.
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} box
 * @param {string | null} reason
 */
function showReason(button, box, reason) {
  button.disabled = reason !== null;
  box.textContent = reason === null ? '' : reason;
  box.hidden = reason === null;
}

/** Roles who must act; `cc` never does (docs/api.md#recipients). */
var MUST_ACT = ['signer', 'approver', 'viewer'];
/** Statuses after which a recipient blocks nothing. */
var DONE = ['signed', 'approved', 'viewed', 'declined', 'reassigned'];

/**
 * Why Send would be refused, or null when it can succeed.
 * @param {Envelope} envelope
 * @returns {string | null}
 */
function sendBlocker(envelope) {
  if (envelope.status === 'sent') return 'Already sent: every recipient is invited when it is their turn.';
  if (envelope.status !== 'draft') return 'The envelope has left draft: only a draft is sent.';
  if (!hasSigner(envelope)) return 'Send needs at least one saved recipient with the role signer: add one under Recipients and save.';
  return null;
}

/**
 * Why Complete would be refused (docs/api.md#completing-as-the-owner), or null when it can succeed.
 * @param {Envelope} envelope
 * @returns {string | null}
 */
function completeBlocker(envelope) {
  if (envelope.status === 'completed') return 'Already completed and sealed.';
  if (envelope.status === 'draft') {
    if (!hasSigner(envelope)) return 'Complete needs at least one saved recipient with the role signer.';
    if (envelope.fields.length > 0) return 'Complete is for a draft without fields, sealed as it is. This one has fields: send it so that the recipients fill them.';
    return null;
  }
  if (envelope.status === 'sent') {
    var pending = envelope.signers.filter(function (signer) {
      return MUST_ACT.indexOf(signer.role) >= 0 && DONE.indexOf(signer.status) < 0;
    });
    if (pending.length === 0) return null;
    return 'Complete waits for everyone who must act; the envelope completes by itself when the last one does. Still to act: ' +
      pending.map(function (signer) { return signer.name + ' <' + signer.email + '> (' + signer.role + ', ' + signer.status + ')'; }).join('; ') + '.';
  }
  return 'The envelope is ' + envelope.status + ': it can no longer be completed.';
}

/**
 * @param {Envelope} envelope
 */
function hasSigner(envelope) {
  return envelope.signers.some(function (signer) { return signer.role === 'signer'; });
}
