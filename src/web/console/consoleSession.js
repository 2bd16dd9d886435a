// @ts-check
// The console's session: what the page holds (the owner's token, the open envelope or template and
// their ETags), its status and error lines in a sender's words, and the API client.
import { apiClient } from './api.js';
import { ApiError, fieldComplaints, problemSlug } from './problems.js';
import { endSession } from './account.js';
import { setLifecycleControls } from './envelopes.js';
import { fields } from './fieldEditor.js';

/** @typedef {import('./consoleElements').Elements} Elements */
/** @typedef {import('./api-types').components['schemas']} Schemas */
/** @typedef {Schemas['Envelope']} Envelope */
/** @typedef {Envelope['signers'][number]} Signer */
/** @typedef {Schemas['Field']} Field */
/** A field as an update sends it. @typedef {NonNullable<Schemas['UpdateEnvelopeRequest']['fields']>[number]} FieldInput */
/** @typedef {Schemas['Template']} Template */
/** @typedef {Schemas['Webhook']} Webhook */
/** @typedef {Schemas['ApiKey']} ApiKey */
/**
 * What the fields card places fields on: the open envelope, or the open template in an envelope's
 * shape (its roles as `signers`, `kind: 'template'`; templates.js `templateSubject`).
 * @typedef {object} Subject
 * @property {'template'} [kind]
 * @property {string} id
 * @property {string} status
 * @property {string} documentName
 * @property {string | null} documentUrl
 * @property {Schemas['EnvelopeDocument'][]} documents every document in order; fields name theirs by `documentId`
 * @property {{ id: string, name: string, email: string, role: string }[]} signers
 * @property {(Omit<Field, 'id'> & { id?: string })[]} fields
 */
/**
 * A field's rules as the editor holds them: strings as typed (options one per line; `maxBytes` in MiB);
 * `accept` the media types ticked; `maxBytesExact` the bytes the service holds and `maxBytesShown` the MiB
 * shown for them, so that an untouched limit is sent back exactly.
 * @typedef {{ options: string, min: string, max: string, minLength: string, maxLength: string, pattern: string, value: string, valueCheck: string, readOnly: boolean, accept: string[], maxBytes: string, maxBytesExact: number | null, maxBytesShown: string }} EditorRules
 */
/**
 * A field as the editor holds it: `key` is the page's own (a new field has no `id` yet).
 * @typedef {object} EditorField
 * @property {string} key
 * @property {string} [id]
 * @property {string} recipientId
 * @property {string} [documentId] the document it is on (docs/api.md#several-documents)
 * @property {Field['type']} type
 * @property {number} page
 * @property {number} x
 * @property {number} y
 * @property {number} width
 * @property {number} height
 * @property {boolean} required
 * @property {string} label
 * @property {EditorRules} [rules]
 */

/** /api/console/consoleSession.js -> /api/, whatever the host's route prefix. */
const API = new URL('../', import.meta.url);

/**
 * What the page holds.
 * @type {{
 *   token: string | null, email: string | null, userId: string | null, envelopes: Envelope[], envelope: Envelope | null, etag: string | null,
 *   organization: Schemas['Organization'] | null, members: Schemas['Member'][], invitations: Schemas['OrganizationInvitation'][],
 *   webhooks: Webhook[], apiKeys: ApiKey[], templates: Template[], template: Template | null, templateEtag: string | null,
 *   envelopeScope: 'mine' | 'organization',
 * }}
 */
export var state = {
  token: null,
  email: null,
  userId: null,
  envelopes: [],
  /** The open envelope and its ETag (sent as If-Match, so a stale page cannot overwrite a newer version). */
  envelope: null,
  etag: null,
  /** The caller's organisation (its `role` is the caller's), its members and pending invitations. */
  organization: null,
  members: [],
  invitations: [],
  webhooks: [],
  apiKeys: [],
  templates: [],
  /** The open template and its ETag. */
  template: null,
  templateEtag: null,
  /** Whose envelopes the list shows: the caller's, or (admin, owner, viewer) the organisation's (docs/api.md#what-members-share). */
  envelopeScope: 'mine',
};

/**
 * The page's element with this id, typed by its tag in index.html (an id the page made itself: HTMLElement).
 * @template {keyof Elements} K
 * @overload
 * @param {K} id
 * @returns {Elements[K]}
 */
/**
 * @overload
 * @param {string} id
 * @returns {HTMLElement}
 */
/** @param {string} id */
export function $(id) { return document.getElementById(id); }

// ---- Messages ----------------------------------------------------------------------------

/**
 * @param {string} text
 */
export function showStatus(text) {
  $('error').hidden = true;
  $('error').textContent = '';
  $('status').textContent = text;
}

/**
 * Shows an error in words a sender understands: for API errors, a plain sentence for the problems
 * whose `detail` speaks HTTP (stale ETag, expired session, ...), else the problem's `detail`, and
 * each field complaint under the name the form gives that field. With `control` (the button or form
 * the sender used), the error shows next to it.
 * @param {ApiError | Error} error
 * @param {HTMLElement} [control]
 */
export function showError(error, control) {
  var box = $('error');
  describeError(box, error);
  $('status').textContent = '';
  placeError(box, control);
  box.hidden = false;
  // Seen and heard where the sender is: scrolled into view, focused, and announced (role="alert").
  box.scrollIntoView({ block: 'nearest' });
  box.focus({ preventScroll: true });
}

/**
 * Moves the error region next to what the sender used (after its row of buttons, its form or its
 * table), so that it appears where they are looking; without one, back to the top of the page.
 * @param {HTMLElement} box
 * @param {HTMLElement} [control]
 */
function placeError(box, control) {
  var anchor = control && control.isConnected
    ? /** @type {HTMLElement | null} */ (control.closest('.table-scroll, .button-row, .section-heading, form, .card'))
    : null;
  if (anchor && anchor.parentNode) anchor.after(box);
  else $('status').before(box);
}

/**
 * Writes `error` into `box` as `showError` shows it: a sentence, then any field complaints.
 * @param {HTMLElement} box
 * @param {ApiError | Error} error
 */
export function describeError(box, error) {
  box.textContent = '';
  var summary = document.createElement('p');
  summary.textContent = plainMessage(error);
  box.appendChild(summary);
  var complaints = fieldComplaints(error instanceof ApiError ? error.problem : null);
  if (complaints.length > 0) {
    var list = document.createElement('ul');
    complaints.forEach(function (item) {
      var entry = document.createElement('li');
      entry.textContent = fieldName(item.path) + ': ' + plainComplaint(item.message);
      list.appendChild(entry);
    });
    box.appendChild(list);
  }
}

/** Problems (by `urn:problem:` slug) whose `detail` is written for programmers, in a sender's words. */
/** @type {Record<string, string>} */
var PLAIN_PROBLEMS = {
  'validation-failed': 'Some of what you entered was not accepted:',
  'etag-mismatch': 'This envelope was changed meanwhile (in another tab, or by a recipient). The page now shows it as it is: check it and try again.',
  'envelope-contended': 'This envelope is busy with other changes right now. Try again in a moment.',
  'missing-token': 'Your session has ended. Log in again.',
  'invalid-token': 'Your session has ended. Log in again.',
  'storage-unavailable': 'The service cannot reach its storage right now. Try again in a moment.',
  'malformed-json': 'The page sent something the service could not read. Reload the page and try again.',
  'document-not-uploaded': 'The document has not been uploaded yet: choose the PDF and upload it first.',
};

/**
 * @param {ApiError | Error} error
 * @returns {string}
 */
function plainMessage(error) {
  return PLAIN_PROBLEMS[problemSlug(error)] || error.message;
}

/**
 * A complaint's path (`signers.0.name`) as the form names the field (`Signer 1, name`).
 * @param {string} path
 * @returns {string}
 */
function fieldName(path) {
  /** @type {Record<string, string>} */
  var names = {
    name: 'name', email: 'e-mail address', role: 'role', routingOrder: 'routing order', id: 'id', recipientId: 'recipient',
    label: 'label', type: 'type', page: 'page', x: 'left', y: 'top', width: 'width', height: 'height', required: 'required',
    options: 'options', min: 'smallest number', max: 'largest number', minLength: 'fewest characters', maxLength: 'most characters',
    pattern: 'pattern', value: 'prefilled value', readOnly: 'read-only',
  };
  /** @type {Record<string, string>} */
  var top = {
    expiresAt: 'Expires', remindEveryDays: 'Reminders', signingOrder: 'Signing order', filename: 'File name', mimetype: 'File type',
    url: 'Address', description: 'Description', events: 'Events', email: 'E-mail address', password: 'Password', invitationCode: 'Invitation code',
    status: 'Status', signers: 'Signers', fields: 'Fields',
  };
  var page = /^pages\.(\d+)$/.exec(path);
  if (page) return 'Page ' + page[1];
  var match = /^(signers|fields)\.(\d+)(?:\.(\w+))?/.exec(path);
  if (match) {
    var what = (match[1] === 'signers' ? 'Signer ' : 'Field ') + (Number(match[2]) + 1);
    return match[3] ? what + ', ' + (names[match[3]] || match[3]) : what;
  }
  return top[path] || path;
}

/**
 * The API's complaint, with character codes explained.
 * @param {string} message
 */
function plainComplaint(message) {
  var refused = /^must not contain (U\+[0-9A-F]{4,6})/.exec(message);
  if (refused) return 'holds an invisible character (' + refused[1] + ': a line break, tab or other control character) that is not allowed. Retype it on one line.';
  return message;
}

/**
 * Runs an action for a button or form, disabling it meanwhile and showing any error.
 * @param {HTMLButtonElement} control
 * @param {() => unknown} run
 * @returns {(event?: Event) => void}
 */
export function action(control, run) {
  return function (event) {
    if (event) event.preventDefault();
    if (control.disabled) return;
    control.disabled = true;
    Promise.resolve()
      .then(run)
      .catch(function (error) {
        // An ended session closes the signed-in parts of the page: that error shows at the top.
        var ended = error.status === 401 && state.token !== null;
        showError(error, ended ? undefined : control);
        if (ended) endSession();
      })
      .then(function () {
        control.disabled = false;
        // Only for the envelope on show: a template on show has its own controls (the fields card serves both).
        if (state.envelope !== null && !$('envelope').hidden) setLifecycleControls(state.envelope);
      });
  };
}

// ---- API ---------------------------------------------------------------------------------

/** The owner's API, with the session's token as its bearer token. */
var request = apiClient({
  base: API,
  token: function () { return state.token; },
  failure: plainFailure,
  unreachable: function () { return 'The service could not be reached. Check your connection, then try again.'; },
});

/**
 * One request to the API. Resolves with {status, headers, body}; rejects with an ApiError whose
 * message is the problem's `detail` (RFC 9457) for any answer that is not 2xx (the page's own words
 * for problems written for programmers come from PLAIN_PROBLEMS, in showError).
 * @param {string} method
 * @param {string} path below /api/
 * @param {import('./api.js').RequestOptions} [options] `json`: the body; `ifMatch`: the ETag the change is conditional on
 * @returns {Promise<import('./api.js').ApiResponse>}
 */
export function api(method, path, options) {
  return request(method, path, options);
}

/**
 * What an answer without problem details means to the person at the page.
 * @param {number} status
 */
function plainFailure(status) {
  if (status === 401) return 'Your session has ended. Log in again.';
  if (status === 429) return 'Too many attempts. Wait a moment, then try again.';
  if (status >= 500) return 'Something went wrong on the service (error ' + status + '). Try again in a moment.';
  return 'The service refused this (error ' + status + ').';
}

// ---- Helpers -----------------------------------------------------------------------------

/**
 * Why the caller's role may not do `what` (a viewer changes nothing: docs/api.md#roles), or null.
 * @param {string} what what it would do: `Changing envelopes`, `Making envelopes`, ...
 * @returns {string | null}
 */
export function viewerBlocker(what) {
  return state.organization !== null && state.organization.role === 'viewer'
    ? what + ' needs the role sender, admin or owner; you are a viewer.'
    : null;
}

/**
 * With a `reason`, disables each control and gives it the reason as its title (what the caller's
 * role lacks); without, takes back only the titles this gave (the controls' own rules decide whether
 * they are enabled).
 * @param {ArrayLike<Element>} controls buttons, inputs and selects
 * @param {string | null} reason
 */
export function lockControls(controls, reason) {
  Array.prototype.forEach.call(controls, function (/** @type {HTMLButtonElement} */ element) {
    if (reason !== null) {
      element.disabled = true;
      element.title = reason;
      element.dataset.lockedBy = 'role';
    } else if (element.dataset.lockedBy) {
      element.removeAttribute('title');
      delete element.dataset.lockedBy;
    }
  });
}

/**
 * @param {string} status
 */
export function statusBadge(status) {
  var badge = document.createElement('span');
  badge.className = 'badge badge-' + status;
  badge.textContent = status;
  return badge;
}

/**
 * @param {string} iso
 */
export function formatTime(iso) {
  return iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
}

/**
 * Lower-case hex SHA-256 of `bytes` (Web Crypto: a secure context only, so the caller checks
 * `window.crypto.subtle` first).
 * @param {ArrayBuffer} bytes
 * @returns {Promise<string>}
 */
export function sha256Hex(bytes) {
  return window.crypto.subtle.digest('SHA-256', bytes).then(function (digest) {
    return Array.prototype.map.call(new Uint8Array(digest), function (/** @type {number} */ byte) { return byte.toString(16).padStart(2, '0'); }).join('');
  });
}

/**
 * Hands `bytes` to the browser as a download named `name`.
 * @param {ArrayBuffer} bytes
 * @param {string} type its media type
 * @param {string} name
 */
export function saveBytes(bytes, type, name) {
  var link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([bytes], { type: type }));
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(function () { URL.revokeObjectURL(link.href); }, 60000);
}

/**
 * Copies the text of `source`: with the Clipboard API where the page may use it, else by selecting it
 * for Ctrl+C; `hint` says which happened.
 * @param {HTMLElement} source
 * @param {HTMLElement} hint
 * @param {string} what what is copied, in words (`key`, `link`)
 */
export function copyText(source, hint, what) {
  var selectIt = function () {
    var range = document.createRange();
    range.selectNodeContents(source);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    hint.textContent = 'The ' + what + ' is selected: press Ctrl+C (⌘C) to copy it.';
  };
  if (!navigator.clipboard || !navigator.clipboard.writeText) {
    selectIt();
    return;
  }
  navigator.clipboard.writeText(source.textContent).then(function () {
    hint.textContent = 'Copied to the clipboard.';
  }, selectIt);
}

/**
 * A form control of a row (an input, a select): typed as an input, whose `value`, `checked` and
 * `disabled` the page reads and sets.
 * @param {ParentNode} row
 * @param {string} selector
 * @returns {HTMLInputElement}
 */
export function control(row, selector) {
  return /** @type {HTMLInputElement} */ (row.querySelector(selector));
}
