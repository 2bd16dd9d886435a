// @ts-check
// What the owner does to an envelope: update, send, complete, its expiry, reminders and language,
// void and delete.
import { $, api, formatTime, showStatus, state } from './consoleSession.js';
import { loadEnvelopes, openEnvelope, renderEnvelopeList, showEnvelope } from './envelopes.js';
import { detectAndReopen, fieldsPayload, select } from './fieldEditing.js';
import { closeDocument, fields, setDirty } from './fieldEditor.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */
/** @typedef {import('./consoleSession.js').Envelope} Envelope */
/** @typedef {import('./problems.js').ApiError} ApiError */

// ---- Lifecycle ---------------------------------------------------------------------------

/**
 * @param {Schemas['UpdateEnvelopeRequest']} changes
 */
export function update(changes) {
  return api('PATCH', 'envelopes/' + encodeURIComponent(state.envelope.id), { json: changes, ifMatch: state.etag })
    .then(function (response) {
      showEnvelope(response.body, response.headers.get('ETag'));
    })
    .catch(reloadWhenStale);
}

/** Detect Fields of the open draft envelope (its document's text tags name recipients by position). */
export function detectEnvelopeFields() {
  var id = state.envelope.id;
  return detectAndReopen('envelopes/' + encodeURIComponent(id), state.etag, function () { return openEnvelope(id, false); });
}

/**
 * On 412 the page showed an old version: show the current one, then report the error.
 * @param {ApiError} error
 * @returns {Promise<never>}
 */
function reloadWhenStale(error) {
  if (error.status !== 412) throw error;
  var id = state.envelope.id;
  state.envelope = null;
  return openEnvelope(id, false).then(function () { throw error; });
}

/** Sends the envelope, with the fields as placed on the page if they were not saved yet. */
export function send() {
  /** @type {Schemas['UpdateEnvelopeRequest']} */
  var changes = { status: 'sent' };
  if (fields.dirty) changes.fields = fieldsPayload();
  return update(changes).then(function () {
    setDirty(false);
    showStatus('Envelope sent: each recipient gets an invitation when it is their turn.');
  });
}

export function complete() {
  showStatus('Completing: flattening and sealing the document…');
  return api('POST', 'envelopes/' + encodeURIComponent(state.envelope.id) + '/complete', { ifMatch: state.etag })
    .catch(reloadWhenStale)
    .then(function (response) {
      showStatus(response.body.message);
      return openEnvelope(state.envelope.id, false);
    });
}

// ---- Expiry and reminders -----------------------------------------------------------------

var MAX_REMIND_EVERY_DAYS = 30;

/** Fills the reminder picker: none, or every 1 to MAX_REMIND_EVERY_DAYS days (once, at start). */
export function fillReminderChoices() {
  var select = $('remind-every');
  var none = document.createElement('option');
  none.value = '';
  none.textContent = 'No reminders';
  select.appendChild(none);
  for (var days = 1; days <= MAX_REMIND_EVERY_DAYS; days++) {
    var option = document.createElement('option');
    option.value = String(days);
    option.textContent = days === 1 ? 'Every day' : 'Every ' + days + ' days';
    select.appendChild(option);
  }
}

/** The languages of e-mails, signing pages and certificates (the service's supported locales). */
var LOCALES = ['en', 'de', 'fr', 'es', 'it', 'pt-BR', 'nl', 'pl', 'sv', 'da', 'nb', 'fi', 'cs', 'tr',
  'ru', 'uk', 'el', 'ar', 'he', 'zh-CN', 'zh-TW', 'ja', 'ko', 'hi', 'th', 'id', 'vi'];

/**
 * A language by its own name ("Deutsch", "日本語"), as the browser's Intl names it, with its tag.
 * @param {string} tag
 */
function localeName(tag) {
  var name = tag;
  try { name = new Intl.DisplayNames([tag], { type: 'language' }).of(tag) || tag; } catch (ignored) { /* the tag itself */ }
  return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1) + ' (' + tag + ')';
}

/**
 * Fills a language picker: every supported locale by its own name; with `data-inherit`, a first
 * choice (value '') meaning "no language of its own".
 * @param {HTMLSelectElement} select
 */
export function fillLocalePicker(select) {
  if (select.options.length > 0) return;
  if (select.dataset.inherit) {
    var inherit = document.createElement('option');
    inherit.value = '';
    inherit.textContent = select.dataset.inherit;
    select.appendChild(inherit);
  }
  LOCALES.forEach(function (tag) {
    var option = document.createElement('option');
    option.value = tag;
    option.lang = tag;
    option.textContent = localeName(tag);
    select.appendChild(option);
  });
}

/** Whether the service takes `locale` on envelopes and recipients (it shows one on every envelope then). */
export function speaksLocales() {
  return state.envelope !== null && typeof state.envelope.locale === 'string';
}

/**
 * @param {Envelope} envelope
 */
export function showSettings(envelope) {
  $('expires-at').value = envelope.expiresAt === null ? '' : localInputValue(new Date(envelope.expiresAt));
  $('remind-every').value = envelope.remindEveryDays === null ? '' : String(envelope.remindEveryDays);
  $('allow-reassign').checked = envelope.allowReassign === true;
  fillLocalePicker($('envelope-locale'));
  $('envelope-locale').value = typeof envelope.locale === 'string' ? envelope.locale : 'en';
}

/**
 * A date as a `datetime-local` input shows it: local time, to the minute.
 * @param {Date} date
 */
function localInputValue(date) {
  var pad = function (/** @type {number} */ number) { return String(number).padStart(2, '0'); };
  return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + 'T' + pad(date.getHours()) + ':' + pad(date.getMinutes());
}

export function saveSettings() {
  var typed = $('expires-at').value;
  var expiresAt = null;
  if (typed !== '') {
    var date = new Date(typed);
    if (isNaN(date.getTime())) throw new Error('Enter the expiry as a date and a time, or leave it empty.');
    if (date.getTime() <= Date.now()) throw new Error('The expiry must be in the future. Choose a later date and time, or leave it empty.');
    expiresAt = date.toISOString();
  }
  var every = $('remind-every').value;
  /** @type {Schemas['UpdateEnvelopeRequest']} */
  var changes = { expiresAt: expiresAt, remindEveryDays: every === '' ? null : Number(every), allowReassign: $('allow-reassign').checked };
  if (speaksLocales()) changes.locale = /** @type {Envelope['locale']} */ ($('envelope-locale').value);
  return update(changes).then(function () {
    var envelope = state.envelope;
    showStatus('Settings saved. ' + (envelope.expiresAt === null ? 'Expires: the default, counted from sending.' : 'Expires ' + formatTime(envelope.expiresAt) + '.') + ' ' +
      (envelope.remindEveryDays === null ? 'No reminders.' : 'Reminders every ' + envelope.remindEveryDays + (envelope.remindEveryDays === 1 ? ' day.' : ' days.')) +
      (envelope.allowReassign ? ' Recipients may hand their part on.' : ''));
  });
}

// ---- Void and delete ---------------------------------------------------------------------

/**
 * Asks the sender to confirm, in a modal dialog. Resolves with whether the sender confirmed.
 * @param {{ title: string, paragraphs: string[], list?: string[], confirm: string }} options `title`,
 *   `paragraphs` (strings), `list` (optional strings), `confirm` (the button's words)
 * @returns {Promise<boolean>}
 */
export function confirmAction(options) {
  return askToConfirm(options).then(function (answer) {
    return answer.confirmed;
  });
}

/** Longest reason for voiding the API takes, characters (docs/api.md#update-an-envelope). */
var MAX_VOIDED_REASON = 500;

/**
 * Asks the sender to confirm, in a modal dialog, optionally with a reason typed on one line: with
 * `reasonLabel`, the confirm button stays disabled until the reason holds more than white space.
 * @param {{ title: string, paragraphs: string[], list?: string[], confirm: string, reasonLabel?: string }} options
 * @returns {Promise<{ confirmed: boolean, reason: string }>} `reason` trimmed ('' without `reasonLabel`)
 */
function askToConfirm(options) {
  var dialog = $('confirm-dialog');
  $('confirm-heading').textContent = options.title;
  var body = $('confirm-body');
  body.textContent = '';
  options.paragraphs.forEach(function (text, index) {
    var paragraph = document.createElement('p');
    paragraph.textContent = text;
    body.appendChild(paragraph);
    if (index === 0 && options.list) {
      var list = document.createElement('ul');
      options.list.forEach(function (item) {
        var entry = document.createElement('li');
        entry.textContent = item;
        list.appendChild(entry);
      });
      body.appendChild(list);
    }
  });
  var ok = $('confirm-ok');
  ok.textContent = options.confirm;
  ok.disabled = false;
  /** @type {HTMLInputElement | null} */
  var reason = null;
  if (options.reasonLabel) {
    var label = document.createElement('label');
    label.htmlFor = 'confirm-reason';
    label.textContent = options.reasonLabel;
    reason = document.createElement('input');
    reason.type = 'text';
    reason.id = 'confirm-reason';
    reason.maxLength = MAX_VOIDED_REASON;
    reason.autocomplete = 'off';
    var input = reason;
    ok.disabled = true;
    input.addEventListener('input', function () {
      ok.disabled = input.value.trim() === '';
    });
    body.appendChild(label);
    body.appendChild(reason);
  }
  return new Promise(function (resolve) {
    dialog.addEventListener('close', function closed() {
      dialog.removeEventListener('close', closed);
      var typed = reason === null ? '' : reason.value.trim();
      resolve({ confirmed: dialog.returnValue === 'ok' && (reason === null || typed !== ''), reason: typed });
    });
    dialog.returnValue = '';
    dialog.showModal();
    if (reason !== null) reason.focus();
    else $('confirm-cancel').focus();
  });
}

/** Voids the open envelope after the sender confirms and gives a reason (docs/api.md#update-an-envelope: `voidedReason`). */
export function voidEnvelope() {
  var envelope = state.envelope;
  return askToConfirm({
    title: 'Void “' + envelope.documentName + '”?',
    paragraphs: [
      'Nobody can sign it any more: every signing link stops working, and the recipients already invited are told by e-mail that it was voided, with your reason.',
      'This cannot be undone. To ask again, upload the document as a new envelope.',
    ],
    confirm: 'Void envelope',
    reasonLabel: 'Reason (shown to the recipients, at most ' + MAX_VOIDED_REASON + ' characters)',
  }).then(function (answer) {
    if (!answer.confirmed) return;
    return update({ status: 'voided', voidedReason: answer.reason }).then(function () {
      showStatus('Envelope voided: its signing links no longer work. You can now delete its documents.');
    });
  });
}

export function deleteEnvelope() {
  var envelope = state.envelope;
  var draft = envelope.status === 'draft';
  var question = draft
    ? {
        title: 'Delete the draft “' + envelope.documentName + '”?',
        paragraphs: ['Deleted for good:'],
        list: ['the uploaded document', 'its signers, fields and settings', 'its history (audit trail)'],
        confirm: 'Delete draft',
      }
    : {
        title: 'Delete the documents of “' + envelope.documentName + '”?',
        paragraphs: [
          'Deleted for good:',
          'Recipients’ links stop working, so they can no longer open or download it either.',
          'Kept: the envelope’s details, its history (audit trail) and the sealed PDF’s SHA-256, so anyone holding a copy can still verify it.',
        ],
        list: envelope.status === 'completed'
          ? ['the uploaded document', 'the copy that was sent for signing', 'the sealed PDF (download it first if you need it)']
          : ['the uploaded document', 'the copy that was sent for signing'],
        confirm: 'Delete documents',
      };
  question.paragraphs.push('This cannot be undone.');
  return confirmAction(question).then(function (confirmed) {
    if (!confirmed) return;
    return api('DELETE', 'envelopes/' + encodeURIComponent(envelope.id)).then(function () {
      if (!draft) {
        showStatus('The documents of ' + envelope.documentName + ' were deleted; its history and SHA-256 stay.');
        return openEnvelope(envelope.id, false);
      }
      state.envelope = null;
      state.etag = null;
      closeDocument();
      $('envelope').hidden = true;
      state.envelopes = state.envelopes.filter(function (item) { return item.id !== envelope.id; });
      renderEnvelopeList();
      showStatus('Draft ' + envelope.documentName + ' deleted.');
      $('envelopes-heading').focus();
      return loadEnvelopes();
    });
  });
}
