// The console: the whole envelope flow from a browser, one API request per action.
// No framework and no external requests: the API of this origin, and Blob storage through the SAS
// URLs the API hands out (upload with PUT, reading the document to show its pages, download of the
// sealed PDF with GET). The pages are drawn by PDF.js, served by this service (pdfPages.js).
(function () {
  'use strict';

  // /api/console/console.js -> /api/, whatever the host's route prefix.
  var SCRIPT = document.currentScript.src;
  var API = new URL('../', SCRIPT);

  var state = {
    token: null,
    email: null,
    envelopes: [],
    /** The open envelope and its ETag (sent as If-Match, so a stale page cannot overwrite a newer version). */
    envelope: null,
    etag: null,
    webhooks: [],
    apiKeys: [],
    templates: [],
    /** The open template and its ETag. */
    template: null,
    templateEtag: null,
  };

  var $ = function (id) { return document.getElementById(id); };

  // ---- Messages ----------------------------------------------------------------------------

  function showStatus(text) {
    $('error').hidden = true;
    $('error').textContent = '';
    $('status').textContent = text;
  }

  /**
   * Shows an error in words a sender understands: for API errors, a plain sentence for the problems
   * whose `detail` speaks HTTP (stale ETag, expired session, ...), else the problem's `detail`, and
   * each field complaint under the name the form gives that field.
   */
  function showError(error) {
    var box = $('error');
    describeError(box, error);
    $('status').textContent = '';
    box.hidden = false;
  }

  /** Writes `error` into `box` as `showError` shows it: a sentence, then any field complaints. */
  function describeError(box, error) {
    box.textContent = '';
    var summary = document.createElement('p');
    summary.textContent = plainMessage(error);
    box.appendChild(summary);
    var complaints = error.problem && Array.isArray(error.problem.errors) ? error.problem.errors : [];
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

  function plainMessage(error) {
    var type = error.problem && typeof error.problem.type === 'string' ? error.problem.type.replace(/^urn:problem:/, '') : '';
    return PLAIN_PROBLEMS[type] || error.message;
  }

  /** A complaint's path (`signers.0.name`) as the form names the field (`Signer 1, name`). */
  function fieldName(path) {
    var names = {
      name: 'name', email: 'e-mail address', role: 'role', routingOrder: 'routing order', id: 'id', recipientId: 'recipient',
      label: 'label', type: 'type', page: 'page', x: 'left', y: 'top', width: 'width', height: 'height', required: 'required',
      options: 'options', min: 'smallest number', max: 'largest number', minLength: 'fewest characters', maxLength: 'most characters',
      pattern: 'pattern', value: 'prefilled value', readOnly: 'read-only',
    };
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

  /** The API's complaint, with character codes explained. */
  function plainComplaint(message) {
    var refused = /^must not contain (U\+[0-9A-F]{4,6})/.exec(message);
    if (refused) return 'holds an invisible character (' + refused[1] + ': a line break, tab or other control character) that is not allowed. Retype it on one line.';
    return message;
  }

  /** Runs an action for a button or form, disabling it meanwhile and showing any error. */
  function action(control, run) {
    return function (event) {
      if (event) event.preventDefault();
      if (control.disabled) return;
      control.disabled = true;
      Promise.resolve()
        .then(run)
        .catch(function (error) {
          showError(error);
          if (error.status === 401 && state.token !== null) endSession();
        })
        .then(function () {
          control.disabled = false;
          // Only for the envelope on show: a template on show has its own controls (the fields card serves both).
          if (state.envelope !== null && !$('envelope').hidden) setLifecycleControls(state.envelope);
        });
    };
  }

  // ---- API ---------------------------------------------------------------------------------

  /**
   * One request to the API. Resolves with {status, headers, body}; rejects with an Error whose
   * message is the problem's `detail` (RFC 9457) for any answer that is not 2xx.
   */
  function api(method, path, options) {
    options = options || {};
    var headers = { Accept: 'application/json' };
    if (state.token !== null) headers.Authorization = 'Bearer ' + state.token;
    if (options.ifMatch) headers['If-Match'] = options.ifMatch;
    var init = { method: method, headers: headers };
    if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(options.json);
    }
    return fetch(new URL(path, API), init).then(function (response) {
      return response.text().then(function (text) {
        var body = null;
        if (text !== '') {
          try { body = JSON.parse(text); } catch (ignored) { body = null; }
        }
        if (!response.ok) {
          // The page's own words for problems written for programmers come from PLAIN_PROBLEMS (showError).
          var detail = body && typeof body.detail === 'string' ? body.detail : plainFailure(response.status);
          var error = new Error(detail);
          error.status = response.status;
          error.problem = body;
          throw error;
        }
        return { status: response.status, headers: response.headers, body: body };
      });
    }, function () {
      throw new Error('The service could not be reached. Check your connection, then try again.');
    });
  }

  /** What an answer without problem details means to the person at the page. */
  function plainFailure(status) {
    if (status === 401) return 'Your session has ended. Log in again.';
    if (status === 429) return 'Too many attempts. Wait a moment, then try again.';
    if (status >= 500) return 'Something went wrong on the service (error ' + status + '). Try again in a moment.';
    return 'The service refused this (error ' + status + ').';
  }

  // ---- Account -----------------------------------------------------------------------------

  function register() {
    var form = $('register-form');
    var email = form.elements.email.value;
    var name = form.elements.name.value.trim();
    var body = { email: email, password: form.elements.password.value, invitationCode: form.elements.invitationCode.value.trim() };
    if (name !== '') body.name = name;
    return api('POST', 'Register', { json: body }).then(function () {
      form.reset();
      $('login-email').value = email.trim().toLowerCase();
      $('login-password').focus();
      showStatus('Account created for ' + email.trim().toLowerCase() + '. Log in with your password.');
    });
  }

  function login() {
    var form = $('login-form');
    return api('POST', 'Login', { json: { email: form.elements.email.value, password: form.elements.password.value } }).then(function (response) {
      state.token = response.body.token;
      state.email = response.body.user.email;
      form.reset();
      $('session-email').textContent = state.email;
      setSignedIn(true);
      showStatus('Logged in as ' + state.email + '.');
      return Promise.all([loadEnvelopes(), loadTemplates(), loadWebhooks(), loadApiKeys()]).then(openEnvelopeInAddress);
    });
  }

  // ---- The envelope in the address (#envelope=<id>): e-mails link to one envelope ---------------

  function envelopeInAddress() {
    var match = /^#envelope=([0-9A-Fa-f-]{36})$/.exec(window.location.hash);
    return match ? match[1].toLowerCase() : null;
  }

  /** Opens the envelope the address names, once logged in (a link from the "completed" e-mail, a bookmark). */
  function openEnvelopeInAddress() {
    var id = envelopeInAddress();
    if (id === null || state.token === null || (state.envelope && state.envelope.id === id)) return undefined;
    return openEnvelope(id, true).then(function () {
      showStatus('Logged in as ' + state.email + '. Opened ' + state.envelope.documentName + ' from your link.');
    }, function (error) {
      if (error.status === 404) throw new Error('The envelope in this link was not found in your account. Are you logged in as its owner?');
      throw error;
    });
  }

  function endSession() {
    state.token = null;
    state.email = null;
    state.envelopes = [];
    state.envelope = null;
    state.etag = null;
    state.webhooks = [];
    state.apiKeys = [];
    state.templates = [];
    state.template = null;
    state.templateEtag = null;
    closeDocument();
    fields.subject = null;
    setSignedIn(false);
  }

  function setSignedIn(signedIn) {
    $('account').hidden = signedIn;
    ['session', 'upload', 'envelopes', 'templates', 'webhooks', 'apikeys'].forEach(function (id) { $(id).hidden = !signedIn; });
    if (!signedIn) {
      $('envelope').hidden = true;
      $('template').hidden = true;
      $('webhook-secret').hidden = true;
      hideApiKeySecret();
      $('deliveries').hidden = true;
    }
  }

  // ---- Envelopes ---------------------------------------------------------------------------

  function loadEnvelopes() {
    return api('GET', 'envelopes').then(function (response) {
      state.envelopes = response.body;
      renderEnvelopeList();
    });
  }

  function renderEnvelopeList() {
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

  function openEnvelope(id, focus) {
    return api('GET', 'envelopes/' + encodeURIComponent(id)).then(function (response) {
      showEnvelope(response.body, response.headers.get('ETag'));
      // The address names the open envelope, so it can be bookmarked or reloaded (after logging in).
      if (window.location.hash !== '#envelope=' + id) history.replaceState(null, '', '#envelope=' + id);
      if (focus) $('envelope-heading').focus();
    });
  }

  function showEnvelope(envelope, etag) {
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

  /** Only what the lifecycle allows is enabled (CONTRACT §5). */
  function setLifecycleControls(envelope) {
    var open = envelope.status === 'draft' || envelope.status === 'sent';
    $('send').disabled = envelope.status !== 'draft';
    $('complete').disabled = !open;
    // Signers, their order and the fields are what gets signed: fixed once sent (CONTRACT §5).
    var draft = envelope.status === 'draft';
    $('save-signers').disabled = !draft;
    $('add-signer').disabled = !draft;
    $('signing-order').disabled = !draft;
    $('signer-list').querySelectorAll('input, select, button').forEach(function (control) { control.disabled = !draft; });
    ['expires-at', 'remind-every', 'allow-reassign', 'save-settings'].forEach(function (id) { $(id).disabled = !draft; });
    // Languages: settings too, and only where the service takes them.
    $('envelope-locale').disabled = !draft || !speaksLocales();
    $('signer-list').querySelectorAll('select[data-field="locale"]').forEach(function (control) { control.disabled = !draft || !speaksLocales(); });
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

  // ---- Signers -----------------------------------------------------------------------------

  var signerCounter = 0;

  function renderSigners(signers) {
    $('signer-list').textContent = '';
    signers.forEach(addSignerRow);
    renumberSigners();
  }

  function addSignerRow(signer) {
    var fieldset = $('signer-template').content.firstElementChild.cloneNode(true);
    var key = 'signer-' + (++signerCounter);
    if (signer && signer.id) fieldset.dataset.signerId = signer.id;
    fieldset.querySelectorAll('[data-locale-picker]').forEach(fillLocalePicker);
    fieldset.querySelectorAll('[data-field]').forEach(function (input) {
      input.id = key + '-' + input.dataset.field;
      input.name = input.dataset.field;
      if (signer) input.value = signer[input.dataset.field] === null || signer[input.dataset.field] === undefined ? '' : signer[input.dataset.field];
    });
    fieldset.querySelector('[data-field="locale"]').disabled = !speaksLocales() || state.envelope.status !== 'draft';
    wireDelivery(fieldset, key, signer);
    var swatch = fieldset.querySelector('.swatch');
    if (signer && signer.id) swatch.style.background = recipientColor(signer.id).ink;
    else swatch.hidden = true;
    wireSignerAuthentication(fieldset, key, signer);
    fieldset.querySelectorAll('label[data-for]').forEach(function (label) { label.htmlFor = key + '-' + label.dataset.for; });
    fieldset.querySelector('.remove-signer').addEventListener('click', function () {
      fieldset.remove();
      renumberSigners();
      $('add-signer').focus();
    });
    $('signer-list').appendChild(fieldset);
    return fieldset;
  }

  function renumberSigners() {
    var rows = $('signer-list').querySelectorAll('fieldset');
    rows.forEach(function (fieldset, index) {
      fieldset.querySelector('.legend-text').textContent = 'Signer ' + (index + 1);
      fieldset.querySelector('.remove-signer').textContent = 'Remove signer ' + (index + 1);
    });
    if (rows.length === 0) {
      var empty = document.createElement('p');
      empty.className = 'hint';
      empty.textContent = 'No signers yet.';
      $('signer-list').appendChild(empty);
    } else {
      var hint = $('signer-list').querySelector('p.hint');
      if (hint) hint.remove();
    }
  }

  function signersFromForm() {
    return Array.prototype.map.call($('signer-list').querySelectorAll('fieldset'), function (fieldset) {
      var order = fieldset.querySelector('[data-field="routingOrder"]').value.trim();
      var signer = {
        name: fieldset.querySelector('[data-field="name"]').value,
        email: fieldset.querySelector('[data-field="email"]').value,
        role: fieldset.querySelector('[data-field="role"]').value,
        routingOrder: order === '' ? 1 : Number(order),
      };
      if (speaksLocales()) {
        var locale = fieldset.querySelector('[data-field="locale"]').value;
        signer.locale = locale === '' ? null : locale;
      }
      if (fieldset.dataset.signerId) signer.id = fieldset.dataset.signerId;
      deliveryFromForm(fieldset, signer);
      signer.authentication = authenticationFromRow(fieldset);
      return signer;
    });
  }

  // Signer authentication: the link alone, an access code the owner gives the recipient (sent once,
  // never shown again: left empty, a saved signer keeps its code), or a code e-mailed on request.
  function wireSignerAuthentication(fieldset, key, signer) {
    var method = fieldset.querySelector('[data-auth="method"]');
    var code = fieldset.querySelector('[data-auth="code"]');
    var row = fieldset.querySelector('[data-auth="code-row"]');
    method.id = key + '-authMethod';
    code.id = key + '-accessCode';
    var saved = signer && signer.authentication ? signer.authentication.method : 'none';
    method.value = saved;
    fieldset.dataset.savedAuth = signer && signer.id ? saved : 'none';
    function toggle() {
      row.hidden = method.value !== 'accessCode';
      code.required = method.value === 'accessCode' && fieldset.dataset.savedAuth !== 'accessCode';
      code.placeholder = fieldset.dataset.savedAuth === 'accessCode' ? 'unchanged' : '';
    }
    method.addEventListener('change', toggle);
    toggle();
  }

  function authenticationFromRow(fieldset) {
    var method = fieldset.querySelector('[data-auth="method"]').value;
    if (method !== 'accessCode') return { method: method };
    var code = fieldset.querySelector('[data-auth="code"]').value;
    return code === '' ? { method: 'accessCode' } : { method: 'accessCode', code: code };
  }

  function saveSigners() {
    return update({ signers: signersFromForm(), signingOrder: $('signing-order').value }).then(function () {
      showStatus('Signers saved: ' + state.envelope.signers.length + '. Signing order: ' + state.envelope.signingOrder + '.');
    });
  }

  // ---- Lifecycle ---------------------------------------------------------------------------

  function update(changes) {
    return api('PATCH', 'envelopes/' + encodeURIComponent(state.envelope.id), { json: changes, ifMatch: state.etag })
      .then(function (response) {
        showEnvelope(response.body, response.headers.get('ETag'));
      })
      .catch(reloadWhenStale);
  }

  /** Detect Fields of the open draft envelope (its document's text tags name recipients by position). */
  function detectEnvelopeFields() {
    var id = state.envelope.id;
    return detectAndReopen('envelopes/' + encodeURIComponent(id), state.etag, function () { return openEnvelope(id, false); });
  }

  /** On 412 the page showed an old version: show the current one, then report the error. */
  function reloadWhenStale(error) {
    if (error.status !== 412) throw error;
    var id = state.envelope.id;
    state.envelope = null;
    return openEnvelope(id, false).then(function () { throw error; });
  }

  /** Sends the envelope, with the fields as placed on the page if they were not saved yet. */
  function send() {
    var changes = { status: 'sent' };
    if (fields.dirty) changes.fields = fieldsPayload();
    return update(changes).then(function () {
      setDirty(false);
      showStatus('Envelope sent: each recipient gets an invitation when it is their turn.');
    });
  }

  function complete() {
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

  (function fillReminderChoices() {
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
  })();

  /** The languages of e-mails, signing pages and certificates (the service's supported locales). */
  var LOCALES = ['en', 'de', 'fr', 'es', 'it', 'pt-BR', 'nl', 'pl', 'sv', 'da', 'nb', 'fi', 'cs', 'tr',
    'ru', 'uk', 'el', 'ar', 'he', 'zh-CN', 'zh-TW', 'ja', 'ko', 'hi', 'th', 'id', 'vi'];

  /** A language by its own name ("Deutsch", "日本語"), as the browser's Intl names it, with its tag. */
  function localeName(tag) {
    var name = tag;
    try { name = new Intl.DisplayNames([tag], { type: 'language' }).of(tag) || tag; } catch (ignored) { /* the tag itself */ }
    return name.charAt(0).toLocaleUpperCase(tag) + name.slice(1) + ' (' + tag + ')';
  }

  /**
   * Fills a language picker: every supported locale by its own name; with `data-inherit`, a first
   * choice (value '') meaning "no language of its own".
   */
  function fillLocalePicker(select) {
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
  function speaksLocales() {
    return state.envelope !== null && typeof state.envelope.locale === 'string';
  }

  function showSettings(envelope) {
    $('expires-at').value = envelope.expiresAt === null ? '' : localInputValue(new Date(envelope.expiresAt));
    $('remind-every').value = envelope.remindEveryDays === null ? '' : String(envelope.remindEveryDays);
    $('allow-reassign').checked = envelope.allowReassign === true;
    fillLocalePicker($('envelope-locale'));
    $('envelope-locale').value = typeof envelope.locale === 'string' ? envelope.locale : 'en';
  }

  /** A date as a `datetime-local` input shows it: local time, to the minute. */
  function localInputValue(date) {
    var pad = function (number) { return String(number).padStart(2, '0'); };
    return date.getFullYear() + '-' + pad(date.getMonth() + 1) + '-' + pad(date.getDate()) + 'T' + pad(date.getHours()) + ':' + pad(date.getMinutes());
  }

  function saveSettings() {
    var typed = $('expires-at').value;
    var expiresAt = null;
    if (typed !== '') {
      var date = new Date(typed);
      if (isNaN(date.getTime())) throw new Error('Enter the expiry as a date and a time, or leave it empty.');
      if (date.getTime() <= Date.now()) throw new Error('The expiry must be in the future. Choose a later date and time, or leave it empty.');
      expiresAt = date.toISOString();
    }
    var every = $('remind-every').value;
    var changes = { expiresAt: expiresAt, remindEveryDays: every === '' ? null : Number(every), allowReassign: $('allow-reassign').checked };
    if (speaksLocales()) changes.locale = $('envelope-locale').value;
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
   * @param options `title`, `paragraphs` (strings), `list` (optional strings), `confirm` (the button's words)
   */
  function confirmAction(options) {
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
    $('confirm-ok').textContent = options.confirm;
    return new Promise(function (resolve) {
      dialog.addEventListener('close', function closed() {
        dialog.removeEventListener('close', closed);
        resolve(dialog.returnValue === 'ok');
      });
      dialog.returnValue = '';
      dialog.showModal();
      $('confirm-cancel').focus();
    });
  }

  function voidEnvelope() {
    var envelope = state.envelope;
    return confirmAction({
      title: 'Void “' + envelope.documentName + '”?',
      paragraphs: [
        'Nobody can sign it any more: every signing link stops working, and the recipients already invited are told by e-mail that it was voided.',
        'This cannot be undone. To ask again, upload the document as a new envelope.',
      ],
      confirm: 'Void envelope',
    }).then(function (confirmed) {
      if (!confirmed) return;
      return update({ status: 'voided' }).then(function () {
        showStatus('Envelope voided: its signing links no longer work. You can now delete its documents.');
      });
    });
  }

  function deleteEnvelope() {
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

  // ---- Upload ------------------------------------------------------------------------------

  function upload() {
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

  /** PUT of the file to its SAS URL, as Blob storage requires (CONTRACT §4), reporting progress. */
  function putToBlobStorage(uploadUrl, file) {
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

  /** The `<Message>` of a Blob storage error document. */
  function storageMessage(xml) {
    var parsed = new DOMParser().parseFromString(xml || '<Error/>', 'application/xml');
    var message = parsed.querySelector('Message');
    return message ? message.textContent.split('\n')[0] : 'no explanation given.';
  }

  function setProgress(percent) {
    $('upload-progress').value = percent;
    $('upload-progress').textContent = percent + '%';
    $('upload-percent').textContent = percent + '%';
  }

  // ---- Download ----------------------------------------------------------------------------

  /** Fetches a fresh signed URL's PDF, shows its SHA-256 beside the API's, and saves it. */
  function download() {
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
        var saved = function () {
          var link = document.createElement('a');
          link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
          link.download = sealedFileName(state.envelope.documentName);
          document.body.appendChild(link);
          link.click();
          link.remove();
          setTimeout(function () { URL.revokeObjectURL(link.href); }, 60000);
        };
        if (!window.crypto || !window.crypto.subtle) {
          saved();
          showStatus('Downloaded. This page is not a secure context, so it cannot compute the SHA-256: compare with sha256sum.');
          return;
        }
        return window.crypto.subtle.digest('SHA-256', bytes).then(function (digest) {
          var hex = Array.prototype.map.call(new Uint8Array(digest), function (byte) { return byte.toString(16).padStart(2, '0'); }).join('');
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

  function sealedFileName(documentName) {
    return documentName.replace(/\.pdf$/i, '') + '-sealed.pdf';
  }

  // ---- Recipients' colours -----------------------------------------------------------------

  /**
   * One colour per recipient, in the order of the signer list: `ink` for borders and text (at least
   * 4.5:1 on white and on `tint`), `tint` for the field's fill.
   */
  var PALETTE = [
    { ink: '#1f4fd1', tint: '#e8eefc' },
    { ink: '#a4262c', tint: '#fbeaea' },
    { ink: '#1b6e3a', tint: '#e7f4ec' },
    { ink: '#6f2da8', tint: '#f1e9f9' },
    { ink: '#8a4b00', tint: '#fbefe1' },
    { ink: '#006a71', tint: '#e2f3f4' },
    { ink: '#a1125f', tint: '#fae8f1' },
    { ink: '#3d4756', tint: '#eceef2' },
  ];

  /** `signers`: whose list gives the colours; default the people of what fields are placed on (an envelope's signers, a template's roles). */
  function recipientColor(signerId, signers) {
    signers = signers || (fields.subject ? fields.subject.signers : []);
    var index = signers.findIndex(function (signer) { return signer.id === signerId; });
    return PALETTE[(index < 0 ? 0 : index) % PALETTE.length];
  }

  function signerById(signerId) {
    return (fields.subject ? fields.subject.signers : []).find(function (signer) { return signer.id === signerId; }) || null;
  }

  // ---- Recipients' status ------------------------------------------------------------------

  function describeEmail(lastEmail) {
    if (!lastEmail) return 'none yet';
    // `reason: "quota"`: never sent, the owner's daily e-mail quota was used up (docs/api.md#lastemail).
    var reason = lastEmail.reason === 'quota' ? ' (daily e-mail quota used up)' : '';
    return lastEmail.type + ', ' + lastEmail.status + reason + ', ' + formatTime(lastEmail.at);
  }

  /** Each recipient's status and newest e-mail, with a resend button where a resend is allowed (CONTRACT §11.5). */
  function renderRecipients(envelope) {
    var card = $('recipients-card');
    card.hidden = envelope.status === 'draft';
    if ($('view-result').dataset.envelopeId !== envelope.id) $('view-result').hidden = true;
    var rows = $('recipient-rows');
    rows.textContent = '';
    envelope.signers.forEach(function (signer) {
      var row = document.createElement('tr');
      var who = document.createElement('th');
      who.scope = 'row';
      var swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.setAttribute('aria-hidden', 'true');
      swatch.style.background = recipientColor(signer.id, envelope.signers).ink;
      who.appendChild(swatch);
      who.appendChild(document.createTextNode(signer.name + ' '));
      var address = document.createElement('span');
      address.className = 'hint';
      address.textContent = signer.email;
      who.appendChild(address);
      row.appendChild(who);
      [signer.role, String(signer.routingOrder), null, describeEmail(signer.lastEmail)].forEach(function (value, index) {
        var cell = document.createElement('td');
        if (index === 2) {
          cell.appendChild(statusBadge(signer.status));
          if (signer.declineReason) {
            var reason = document.createElement('span');
            reason.className = 'hint reason';
            reason.textContent = '“' + signer.declineReason + '”';
            cell.appendChild(reason);
          }
        } else {
          cell.textContent = value;
        }
        row.appendChild(cell);
      });
      var actionCell = document.createElement('td');
      var canResend = envelope.status === 'sent' && signer.role !== 'cc' && (signer.status === 'sent' || signer.status === 'opened');
      if (canResend) {
        var resend = document.createElement('button');
        resend.type = 'button';
        resend.className = 'secondary';
        resend.textContent = 'Resend';
        resend.setAttribute('aria-label', 'Resend the invitation to ' + signer.name);
        resend.addEventListener('click', action(resend, function () { return resendInvitation(signer); }));
        actionCell.appendChild(resend);
        actionCell.appendChild(viewButton(signer));
      }
      row.appendChild(actionCell);
      rows.appendChild(row);
    });
  }

  function resendInvitation(signer) {
    var id = state.envelope.id;
    return api('POST', 'envelopes/' + encodeURIComponent(id) + '/recipients/' + encodeURIComponent(signer.id) + '/resend').then(function () {
      showStatus('A new invitation is on its way to ' + signer.email + '; the link of the older one no longer works.');
      return openEnvelope(id, false);
    });
  }

  // ---- Embedded signing ----------------------------------------------------------------------

  /** The delivery choice of a signer row: e-mail, or embedded (with "e-mail the signed PDF", embedded only). */
  function wireDelivery(fieldset, key, signer) {
    var delivery = fieldset.querySelector('[data-field="delivery"]');
    var notify = fieldset.querySelector('[data-flag="notifyOnCompletion"]');
    notify.id = key + '-notifyOnCompletion';
    notify.checked = Boolean(signer && signer.notifyOnCompletion);
    var sync = function () {
      var embedded = delivery.value === 'embedded';
      fieldset.querySelector('.notify-choice').hidden = !embedded;
      if (!embedded) notify.checked = false;
    };
    delivery.addEventListener('change', sync);
    sync();
  }

  function deliveryFromForm(fieldset, signer) {
    signer.delivery = fieldset.querySelector('[data-field="delivery"]').value;
    if (signer.delivery === 'embedded' && fieldset.querySelector('[data-flag="notifyOnCompletion"]').checked) signer.notifyOnCompletion = true;
  }

  /** "Signing view": opens an embedded view for a recipient whose turn it is, and shows its URL. */
  function viewButton(signer) {
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.textContent = 'Signing view';
    button.setAttribute('aria-label', 'Create a signing view for ' + signer.name);
    button.addEventListener('click', action(button, function () { return createView(signer); }));
    return button;
  }

  function createView(signer) {
    var id = state.envelope.id;
    return api('POST', 'envelopes/' + encodeURIComponent(id) + '/recipients/' + encodeURIComponent(signer.id) + '/views').then(function (response) {
      $('view-recipient').textContent = signer.name;
      $('view-expires').textContent = formatTime(response.body.expiresAt);
      $('view-url').value = response.body.url;
      $('view-result').dataset.envelopeId = id;
      $('view-result').hidden = false;
      $('view-url').focus();
      $('view-url').select();
      showStatus('Signing view created for ' + signer.email + '. Its address is in the Recipients card; a new view ends the older ones.');
    });
  }

  // ---- Fields ------------------------------------------------------------------------------

  var FIELD_TYPES = ['signature', 'initials', 'date_signed', 'name', 'email', 'text', 'checkbox', 'number', 'date', 'dropdown'];
  var TYPE_NAMES = {
    signature: 'Signature', initials: 'Initials', date_signed: 'Date signed', name: 'Name', email: 'E-mail', text: 'Text', checkbox: 'Check box',
    number: 'Number', date: 'Date', dropdown: 'Dropdown',
  };
  /** A new field's size in points, by type (about what each needs on a printed page). */
  var DEFAULT_SIZE = {
    signature: [170, 45], initials: [60, 34], date_signed: [100, 22], name: [160, 22], email: [190, 22], text: [160, 22], checkbox: [16, 16],
    number: [100, 22], date: [100, 22], dropdown: [140, 22],
  };
  /** Smallest field a drag makes, and the step of the keyboard, as fractions of the page. */
  var MIN_FRACTION = 0.01;
  var KEY_STEP = 0.01;

  var fields = {
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
    /** The document on show: for which envelope or template, PDF.js's document, and the page layout. */
    envelopeId: null,
    pdf: null,
    layout: null,
    loading: null,
  };

  function editable() {
    return fields.subject !== null && fields.subject.status === 'draft';
  }

  function fromApi(field) {
    fields.counter += 1;
    return {
      key: 'f' + fields.counter, id: field.id, recipientId: field.recipientId, type: field.type, page: field.page,
      x: field.x, y: field.y, width: field.width, height: field.height, required: field.required !== false, label: field.label || '',
      rules: rulesFromApi(field),
    };
  }

  /**
   * Shows the fields card for `envelope` (or a template as `templateSubject` shows it): the document's
   * pages (loaded once per subject) and its fields; `saveTo` saves them (default: the open envelope's update);
   * `detectWith` (optional, see `fields.detectWith`) offers "Detect fields".
   */
  function showFields(envelope, previous, changed, saveTo, detectWith) {
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
    renderFieldTools(envelope);
    if (envelope.documentUrl === null) {
      // Its documents were deleted (purged): nothing to show the fields on.
      closeDocument();
      fields.envelopeId = envelope.id;
      $('fields-note').hidden = false;
      $('fields-note').textContent = 'The documents of this envelope were deleted, so its pages can no longer be shown.';
      return;
    }
    if (fields.envelopeId !== envelope.id) loadDocument(envelope);
    else renderPlacedFields();
  }

  function closeDocument() {
    if (fields.layout !== null) fields.layout.close();
    if (fields.pdf !== null) fields.pdf.destroy();
    fields.layout = null;
    fields.pdf = null;
    fields.envelopeId = null;
    fields.list = [];
    fields.selected = null;
    fields.edited = null;
    $('field-pages').textContent = '';
  }

  function pdfPages() {
    return import(new URL('pdfPages.js', SCRIPT).href);
  }

  function loadDocument(envelope) {
    closeDocument();
    fields.list = envelope.fields.map(fromApi);
    fields.envelopeId = envelope.id;
    var note = $('fields-note');
    note.hidden = false;
    note.textContent = 'Loading the document’s pages…';
    var loading = pdfPages().then(function (module) {
      return module.openPdf(envelope.documentUrl).then(function (pdf) {
        if (fields.loading !== loading) { pdf.destroy(); return; }
        fields.pdf = pdf;
        return module.layoutPages(pdf, $('field-pages'), {
          pageLabel: function (number, count) { return 'Page ' + number + ' of ' + count + ' of ' + envelope.documentName; },
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

  function updateSwatch() {
    var id = $('field-recipient').value;
    $('field-recipient-swatch').style.background = id ? recipientColor(id).ink : 'transparent';
  }

  function setFieldControls(envelope) {
    var draft = envelope.status === 'draft';
    var hasSigners = $('field-recipient').options.length > 0;
    var ready = fields.layout !== null;
    ['field-recipient', 'field-type', 'field-page'].forEach(function (id) { $(id).disabled = !draft || !hasSigners; });
    $('add-field').disabled = !draft || !hasSigners || !ready;
    $('save-fields').disabled = !draft || !ready;
    $('detect-tools').hidden = !draft || fields.detectWith === null;
    $('field-tools').hidden = !draft;
    $('fields-hint').hidden = !draft;
    document.querySelectorAll('#field-editor input, #field-editor select, #field-editor button').forEach(function (control) { control.disabled = !draft; });
    if (!draft) $('field-editor').hidden = true;
  }

  function setDirty(dirty) {
    fields.dirty = dirty;
    $('fields-dirty').hidden = !dirty;
    // What "Detect fields" said no longer describes fields changed since.
    if (dirty) showDetectResult(null);
  }

  function pageElement(number) {
    return fields.layout ? fields.layout.pages[number - 1] || null : null;
  }

  /** The page's size in points. */
  function pageSize(element) {
    return { width: Number(element.dataset.width), height: Number(element.dataset.height) };
  }

  /** A pointer position as fractions of the page element, clamped to it. */
  function fractionAt(element, event) {
    var rect = element.getBoundingClientRect();
    return {
      x: clamp((event.clientX - rect.left) / rect.width, 0, 1),
      y: clamp((event.clientY - rect.top) / rect.height, 0, 1),
    };
  }

  function clamp(value, low, high) {
    return Math.min(high, Math.max(low, value));
  }

  /** Keeps a field inside its page and at least the minimum size. */
  function fit(field) {
    field.width = clamp(field.width, MIN_FRACTION, 1);
    field.height = clamp(field.height, MIN_FRACTION, 1);
    field.x = clamp(field.x, 0, 1 - field.width);
    field.y = clamp(field.y, 0, 1 - field.height);
    return field;
  }

  /** A new field of the chosen recipient and type, `at` its centre (fractions), of the type's usual size. */
  function newField(number, at) {
    var size = pageSize(pageElement(number));
    var type = $('field-type').value;
    var points = DEFAULT_SIZE[type];
    var width = points[0] / size.width;
    var height = points[1] / size.height;
    fields.counter += 1;
    return fit({
      key: 'f' + fields.counter, recipientId: $('field-recipient').value, type: type, page: number,
      x: at.x - width / 2, y: at.y - height / 2, width: width, height: height, required: true, label: '',
    });
  }

  function addField(field) {
    fields.list.push(field);
    setDirty(true);
    select(field.key);
    renderPlacedFields();
    var element = document.querySelector('[data-key="' + field.key + '"]');
    if (element) element.focus();
    announce(describeField(field) + ' placed.');
  }

  /** Pointer handling on a page: a click places a field there, a drag places one of the dragged size. */
  function preparePage(element) {
    var number = Number(element.dataset.page);
    element.classList.add('editable-page');
    element.addEventListener('pointerdown', function (event) {
      if (!editable() || event.button !== 0 || event.target.closest('.placed-field')) return;
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
      var move = function (moveEvent) {
        if (Math.abs(moveEvent.clientX - startX) + Math.abs(moveEvent.clientY - startY) > 6) dragged = true;
        if (!dragged) return;
        var point = fractionAt(element, moveEvent);
        placeBox(ghost, { x: Math.min(start.x, point.x), y: Math.min(start.y, point.y), width: Math.abs(point.x - start.x), height: Math.abs(point.y - start.y) });
      };
      var up = function (upEvent) {
        element.removeEventListener('pointermove', move);
        element.removeEventListener('pointerup', up);
        element.removeEventListener('pointercancel', up);
        ghost.remove();
        if (upEvent.type === 'pointercancel') return;
        var field;
        if (dragged) {
          var point = fractionAt(element, upEvent);
          var type = $('field-type').value;
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

  function placeBox(element, box) {
    element.style.left = box.x * 100 + '%';
    element.style.top = box.y * 100 + '%';
    element.style.width = box.width * 100 + '%';
    element.style.height = box.height * 100 + '%';
  }

  function percent(value) {
    return Math.round(value * 1000) / 10 + '%';
  }

  function describeField(field) {
    var signer = signerById(field.recipientId);
    return (field.label || TYPE_NAMES[field.type]) + ' for ' + (signer ? signer.name : 'a removed signer') + ' on page ' + field.page;
  }

  function describePosition(field) {
    return 'Page ' + field.page + ', ' + percent(field.x) + ' from the left, ' + percent(field.y) + ' from the top, ' +
      percent(field.width) + ' wide, ' + percent(field.height) + ' high. ' + (field.required ? 'Required.' : 'Optional.');
  }

  /** Draws every field on its page, in the recipient's colour. */
  function renderPlacedFields() {
    if (fields.layout === null) return;
    fields.layout.pages.forEach(function (element) {
      element.querySelectorAll('.placed-field, .placed-field-state').forEach(function (old) { old.remove(); });
    });
    var focusedKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    fields.list.forEach(function (field) {
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

  function focusField(key) {
    var element = document.querySelector('.placed-field[data-key="' + key + '"]');
    if (element) element.focus();
  }

  function select(key) {
    fields.selected = key;
  }

  function selectedField() {
    return fields.list.find(function (field) { return field.key === fields.selected; }) || null;
  }

  /** Moves (or, from the corner handle, resizes) a field with the pointer. */
  function startDrag(event, field, box, resizing) {
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
    var move = function (moveEvent) {
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

  /** The keyboard on a field: arrows move it, Shift with arrows resizes it, Delete or Backspace removes it. */
  function keyOnField(event, field) {
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

  function deleteField(key) {
    var field = fields.list.find(function (candidate) { return candidate.key === key; });
    if (!field) return;
    fields.list = fields.list.filter(function (candidate) { return candidate.key !== key; });
    if (fields.selected === key) fields.selected = null;
    setDirty(true);
    renderPlacedFields();
    announce(describeField(field) + ' deleted.');
    $('field-type').focus();
  }

  function announce(text) {
    $('field-announcer').textContent = text;
  }

  /** The selected field's settings, as a form: the keyboard's full alternative to dragging. */
  function renderEditor() {
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
    [['edit-x', 'x'], ['edit-y', 'y'], ['edit-width', 'width'], ['edit-height', 'height']].forEach(function (pair) {
      if (!sameField || document.activeElement !== $(pair[0])) $(pair[0]).value = String(Math.round(field[pair[1]] * 1000) / 10);
    });
    renderRuleEditor(field, sameField);
  }

  // ---- Field rules and prefilled values (number, date, dropdown, text limits) -----------------------

  /** Which rule inputs each type offers; the service refuses a rule on any other type. */
  var RULES_BY_TYPE = {
    text: ['minLength', 'maxLength', 'pattern', 'value', 'readOnly'],
    number: ['min', 'max', 'value', 'readOnly'],
    date: ['value', 'readOnly'],
    dropdown: ['options', 'value', 'readOnly'],
    checkbox: ['valueCheck', 'readOnly'],
    // name, email and date_signed take none: the service fills them in, and refuses a prefilled value.
  };
  /** Rule key -> the editor's input id. */
  var RULE_INPUTS = {
    options: 'edit-options', min: 'edit-min', max: 'edit-max', minLength: 'edit-min-length', maxLength: 'edit-max-length',
    pattern: 'edit-pattern', value: 'edit-value', valueCheck: 'edit-value-check',
  };

  /** A field's rules as the editor holds them: strings as typed (options one per line), readOnly a boolean. */
  function rulesFromApi(field) {
    var text = function (value) { return value === undefined || value === null ? '' : String(value); };
    return {
      options: Array.isArray(field.options) ? field.options.join('\n') : '', min: text(field.min), max: text(field.max),
      minLength: text(field.minLength), maxLength: text(field.maxLength), pattern: text(field.pattern),
      value: typeof field.value === 'string' ? field.value : '', valueCheck: typeof field.value === 'boolean' ? String(field.value) : '',
      readOnly: field.readOnly === true,
    };
  }

  /** Adds the rules the field's type takes to its request payload (numbers as JSON numbers, the rest as typed). */
  function addRules(payload, field) {
    var rules = field.rules || rulesFromApi({});
    var offered = RULES_BY_TYPE[field.type] || [];
    var has = function (key) { return offered.indexOf(key) >= 0; };
    var number = function (key) {
      var raw = String(rules[key]).trim();
      if (has(key) && raw !== '') payload[key] = Number.isFinite(Number(raw)) ? Number(raw) : raw;
    };
    if (has('options')) {
      payload.options = rules.options.split('\n').map(function (line) { return line.trim(); }).filter(function (line) { return line !== ''; });
    }
    ['min', 'max', 'minLength', 'maxLength'].forEach(number);
    if (has('pattern') && rules.pattern !== '') payload.pattern = rules.pattern;
    if (has('value') && rules.value !== '') payload.value = rules.value;
    if (has('valueCheck') && rules.valueCheck !== '') payload.value = rules.valueCheck === 'true';
    if (has('readOnly') && rules.readOnly) payload.readOnly = true;
  }

  /** Shows the rule inputs the selected field's type takes, with its values (what is being typed stays). */
  function renderRuleEditor(field, sameField) {
    if (!field.rules) field.rules = rulesFromApi({});
    var offered = RULES_BY_TYPE[field.type] || [];
    $('edit-rules').hidden = offered.length === 0;
    document.querySelectorAll('#edit-rules [data-rule]').forEach(function (block) {
      block.hidden = offered.indexOf(block.dataset.rule) < 0;
    });
    Object.keys(RULE_INPUTS).forEach(function (key) {
      var input = $(RULE_INPUTS[key]);
      if (!sameField || document.activeElement !== input) input.value = field.rules[key];
    });
    $('edit-read-only').checked = field.rules.readOnly;
  }

  /** Wires the rule inputs to the selected field. */
  function wireRuleEditor() {
    Object.keys(RULE_INPUTS).forEach(function (key) {
      var input = $(RULE_INPUTS[key]);
      input.addEventListener(input.tagName === 'SELECT' ? 'change' : 'input', function () {
        editSelected(function (field) { field.rules[key] = input.value; });
      });
    });
    $('edit-read-only').addEventListener('change', function () {
      editSelected(function (field) { field.rules.readOnly = $('edit-read-only').checked; });
    });
  }

  function editSelected(change) {
    var field = selectedField();
    if (field === null) return;
    change(field);
    fit(field);
    setDirty(true);
    renderPlacedFields();
  }

  function fieldsPayload() {
    var round = function (value) { return Math.floor(value * 10000) / 10000; };
    return fields.list.map(function (field) {
      var payload = {
        recipientId: field.recipientId, type: field.type, page: field.page,
        x: round(field.x), y: round(field.y), width: Math.max(0.0001, round(field.width)), height: Math.max(0.0001, round(field.height)),
        required: field.required,
      };
      if (field.id) payload.id = field.id;
      if (field.label.trim() !== '') payload.label = field.label.trim();
      addRules(payload, field);
      return payload;
    });
  }

  function saveFields() {
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
  function detectFields() {
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
   */
  function detectAndReopen(path, etag, reopen) {
    return api('POST', path + '/fields/detect', { ifMatch: etag }).then(function (response) {
      return reopen().then(function () {
        return { fields: fields.subject.fields, textTags: response.body.textTags, formFields: response.body.formFields };
      });
    }, function (error) {
      if (error.status !== 412) throw error;
      return reopen().then(function () { throw error; });
    });
  }

  /** Says beside "Detect fields" what was found (`summary`) or what was wrong (`error`); neither: nothing. */
  function showDetectResult(summary, error) {
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

  /** What detection found, in a sender's words. */
  function detectionSummary(found) {
    var count = function (number, one, many) { return number + ' ' + (number === 1 ? one : many); };
    if (found.fields.length === 0) {
      return 'No fields found: the document has no text tags and no form fields, so it has no fields now. Place them by hand, or write text tags such as {{signature}} in the document.';
    }
    return 'Found ' + count(found.fields.length, 'field', 'fields') + ' in the document (' + count(found.textTags, 'text tag', 'text tags') + ', ' +
      count(found.formFields, 'form field', 'form fields') + '), saved and shown on the pages. Select one to change it.';
  }

  function addFieldByKeyboard() {
    var number = Number($('field-page').value || '1');
    if (pageElement(number) === null) return;
    addField(newField(number, { x: 0.5, y: 0.5 }));
    pageElement(number).scrollIntoView({ block: 'nearest' });
  }


  // ---- Templates ---------------------------------------------------------------------------

  /**
   * The fields card serves envelopes and templates alike: it moves into the section on show,
   * `before` the given element (so the placement tool exists once, with one set of controls).
   */
  function placeFieldsCard(section, before) {
    var card = $('fields-card');
    if (card.parentNode === before.parentNode && card.nextElementSibling === before) return;
    section.insertBefore(card, before);
  }

  function loadTemplates() {
    return api('GET', 'templates').then(function (response) {
      state.templates = response.body;
      renderTemplateList();
    });
  }

  function renderTemplateList() {
    var rows = $('template-rows');
    rows.textContent = '';
    state.templates.forEach(function (template) {
      var row = document.createElement('tr');
      var name = document.createElement('th');
      name.scope = 'row';
      name.textContent = template.name;
      row.appendChild(name);
      var status = document.createElement('td');
      status.appendChild(statusBadge(template.status));
      row.appendChild(status);
      [template.roles.map(function (role) { return role.name; }).join(', ') || 'none', formatTime(template.updatedAt)].forEach(function (value) {
        var cell = document.createElement('td');
        cell.textContent = value;
        row.appendChild(cell);
      });
      var actionCell = document.createElement('td');
      var open = document.createElement('button');
      open.type = 'button';
      open.className = 'secondary';
      open.textContent = 'Open';
      open.setAttribute('aria-label', 'Open template ' + template.name);
      open.addEventListener('click', action(open, function () { return openTemplate(template.id, true); }));
      actionCell.appendChild(open);
      row.appendChild(actionCell);
      rows.appendChild(row);
    });
    $('template-table').hidden = state.templates.length === 0;
    $('templates-empty').hidden = state.templates.length > 0;
  }

  function createTemplate() {
    var file = $('template-file').files[0];
    var name = $('template-name').value;
    if (!file) throw new Error('Choose a PDF document first.');
    return api('POST', 'templates', { json: { name: name, filename: file.name, mimetype: file.type || 'application/pdf' } }).then(function (response) {
      var created = response.body;
      showStatus('Uploading ' + file.name + '…');
      return putToBlobStorage(created.uploadUrl, file).then(function () {
        $('template-form').reset();
        showStatus('Template “' + created.template.name + '” created. Name its roles and place their fields next.');
        return loadTemplates().then(function () { return openTemplate(created.template.id, true); });
      });
    });
  }

  function openTemplate(id, focus) {
    return api('GET', 'templates/' + encodeURIComponent(id)).then(function (response) {
      showTemplate(response.body, response.headers.get('ETag'));
      if (focus) $('template-heading').focus();
    });
  }

  /** A template as the placement tool sees it: its roles as `signers`, its fields by `recipientId`; always editable. */
  function templateSubject(template) {
    return {
      kind: 'template',
      id: template.id,
      status: 'draft',
      documentName: template.documentName,
      documentUrl: template.documentUrl,
      signers: template.roles.map(function (role) { return { id: role.id, name: role.name, email: '', role: role.role }; }),
      fields: template.fields.map(function (field) { return Object.assign({}, field, { recipientId: field.roleId }); }),
    };
  }

  function showTemplate(template, etag) {
    var previous = state.template;
    state.template = template;
    state.templateEtag = etag;
    $('envelope').hidden = true;
    $('template').hidden = false;
    placeFieldsCard($('template'), $('template-fields-slot'));
    $('template-heading').textContent = 'Template: ' + template.name;
    $('template-document').textContent = template.documentName + (template.pageCount ? ' (' + template.pageCount + ' pages)' : '');
    var badge = $('template-status');
    badge.textContent = template.status;
    badge.className = 'badge badge-' + (template.status === 'active' ? 'sent' : 'draft');
    $('template-id').textContent = template.id;
    var changed = !previous || previous.id !== template.id || previous.updatedAt !== template.updatedAt;
    if (changed) {
      renderRoles(template.roles);
      $('template-signing-order').value = template.signingOrder;
      renderUseForm(template);
    }
    showFields(templateSubject(template), null, changed, saveTemplateFields, template.status === 'draft' ? detectTemplateFields : null);
    $('activate-template').hidden = template.status !== 'draft';
    $('activate-hint').textContent = template.status === 'draft'
      ? 'Activating checks the document as sending does and freezes it: envelopes made from the template get exactly this document. Roles and fields can still change afterwards.'
      : 'Active: its document is frozen. Roles and fields can still change.';
    $('use-form').hidden = template.status !== 'active';
    state.templates = state.templates.map(function (item) { return item.id === template.id ? template : item; });
    renderTemplateList();
  }

  function updateTemplate(changes) {
    return api('PATCH', 'templates/' + encodeURIComponent(state.template.id), { json: changes, ifMatch: state.templateEtag }).then(function (response) {
      showTemplate(response.body, response.headers.get('ETag'));
      return response.body;
    }, function (error) {
      if (error.status !== 412) throw error;
      return openTemplate(state.template.id, false).then(function () { throw error; });
    });
  }

  function saveTemplateFields(payload) {
    var byRole = payload.map(function (field) {
      var copy = Object.assign({}, field, { roleId: field.recipientId });
      delete copy.recipientId;
      return copy;
    });
    return updateTemplate({ fields: byRole }).then(function () { return fields.subject; });
  }

  /** Detect Fields of the open draft template (its document's text tags name roles by name). */
  function detectTemplateFields() {
    var id = state.template.id;
    return detectAndReopen('templates/' + encodeURIComponent(id), state.templateEtag, function () { return openTemplate(id, false); });
  }

  function renderRoles(roles) {
    $('role-list').textContent = '';
    roles.forEach(addRoleRow);
    renumberRoles();
  }

  function addRoleRow(role) {
    var fieldset = $('role-template').content.firstElementChild.cloneNode(true);
    var key = 'role-' + (++signerCounter);
    if (role && role.id) fieldset.dataset.roleId = role.id;
    fieldset.querySelectorAll('[data-field]').forEach(function (input) {
      input.id = key + '-' + input.dataset.field;
      input.name = input.dataset.field;
      if (role) input.value = role[input.dataset.field];
    });
    var swatch = fieldset.querySelector('.swatch');
    var subject = state.template ? templateSubject(state.template) : null;
    if (role && role.id && subject) swatch.style.background = recipientColor(role.id, subject.signers).ink;
    else swatch.hidden = true;
    fieldset.querySelectorAll('label[data-for]').forEach(function (label) { label.htmlFor = key + '-' + label.dataset.for; });
    fieldset.querySelector('.remove-signer').addEventListener('click', function () {
      fieldset.remove();
      renumberRoles();
      $('add-role').focus();
    });
    $('role-list').appendChild(fieldset);
    return fieldset;
  }

  function renumberRoles() {
    var rows = $('role-list').querySelectorAll('fieldset');
    rows.forEach(function (fieldset, index) {
      fieldset.querySelector('.legend-text').textContent = 'Role ' + (index + 1);
      fieldset.querySelector('.remove-signer').textContent = 'Remove role ' + (index + 1);
    });
    var hint = $('role-list').querySelector('p.hint');
    if (rows.length === 0 && !hint) {
      var empty = document.createElement('p');
      empty.className = 'hint';
      empty.textContent = 'No roles yet.';
      $('role-list').appendChild(empty);
    } else if (rows.length > 0 && hint) {
      hint.remove();
    }
  }

  function saveRoles() {
    var roles = Array.prototype.map.call($('role-list').querySelectorAll('fieldset'), function (fieldset) {
      var order = fieldset.querySelector('[data-field="routingOrder"]').value.trim();
      var role = {
        name: fieldset.querySelector('[data-field="name"]').value,
        role: fieldset.querySelector('[data-field="role"]').value,
        routingOrder: order === '' ? 1 : Number(order),
      };
      if (fieldset.dataset.roleId) role.id = fieldset.dataset.roleId;
      return role;
    });
    return updateTemplate({ roles: roles, signingOrder: $('template-signing-order').value }).then(function (template) {
      showStatus('Roles saved: ' + template.roles.length + '. Signing order: ' + template.signingOrder + '.');
    });
  }

  function activateTemplate() {
    var changes = { status: 'active' };
    if (fields.dirty) changes.fields = saveTemplateFieldsPayload();
    return updateTemplate(changes).then(function (template) {
      setDirty(false);
      showStatus('Template “' + template.name + '” is active: its document is frozen (' + template.pageCount + ' pages). Make envelopes from it below.');
    });
  }

  function saveTemplateFieldsPayload() {
    return fieldsPayload().map(function (field) {
      var copy = Object.assign({}, field, { roleId: field.recipientId });
      delete copy.recipientId;
      return copy;
    });
  }

  function deleteTemplate() {
    var template = state.template;
    return confirmAction({
      title: 'Delete template “' + template.name + '”?',
      paragraphs: ['The template and its document are deleted. Envelopes already made from it keep their own copy of the document.'],
      confirm: 'Delete template',
    }).then(function (confirmed) {
      if (!confirmed) return;
      return api('DELETE', 'templates/' + encodeURIComponent(template.id)).then(function () {
        closeDocument();
        fields.subject = null;
        state.template = null;
        $('template').hidden = true;
        placeFieldsCard($('envelope'), $('recipients-card'));
        showStatus('Template “' + template.name + '” deleted.');
        return loadTemplates().then(function () { $('templates-heading').focus(); });
      });
    });
  }

  /** The "make an envelope" form: one person per role, and a prefilled value for each text field. */
  function renderUseForm(template) {
    var roles = $('use-roles');
    roles.textContent = '';
    template.roles.forEach(function (role, index) {
      var fieldset = document.createElement('fieldset');
      fieldset.className = 'signer';
      fieldset.dataset.roleId = role.id;
      var legend = document.createElement('legend');
      legend.textContent = role.name;
      fieldset.appendChild(legend);
      var inner = document.createElement('div');
      inner.className = 'signer-fields';
      [['name', 'Name', 'text'], ['email', 'E-mail address', 'email']].forEach(function (spec) {
        var wrap = document.createElement('div');
        var label = document.createElement('label');
        var input = document.createElement('input');
        input.id = 'use-' + index + '-' + spec[0];
        input.type = spec[2];
        input.required = true;
        input.autocomplete = 'off';
        input.dataset.field = spec[0];
        label.htmlFor = input.id;
        label.textContent = spec[1] + ' (' + role.name + ')';
        wrap.appendChild(label);
        wrap.appendChild(input);
        inner.appendChild(wrap);
      });
      fieldset.appendChild(inner);
      roles.appendChild(fieldset);
    });
    var values = $('use-values');
    values.textContent = '';
    template.fields.forEach(function (field, index) {
      if (field.type !== 'text') return;
      var role = template.roles.find(function (candidate) { return candidate.id === field.roleId; });
      var wrap = document.createElement('div');
      var label = document.createElement('label');
      var input = document.createElement('input');
      input.id = 'use-value-' + index;
      input.type = 'text';
      input.maxLength = 500;
      input.dataset.fieldId = field.id;
      label.htmlFor = input.id;
      label.textContent = 'Prefill “' + (field.label || 'Text') + '” for ' + (role ? role.name : 'a role') + ' (page ' + field.page + ', optional)';
      wrap.appendChild(label);
      wrap.appendChild(input);
      values.appendChild(wrap);
    });
  }

  function useTemplate() {
    var template = state.template;
    var recipients = Array.prototype.map.call($('use-roles').querySelectorAll('fieldset'), function (fieldset) {
      return {
        roleId: fieldset.dataset.roleId,
        name: fieldset.querySelector('[data-field="name"]').value,
        email: fieldset.querySelector('[data-field="email"]').value,
      };
    });
    var values = Array.prototype.filter.call($('use-values').querySelectorAll('input'), function (input) { return input.value.trim() !== ''; })
      .map(function (input) { return { fieldId: input.dataset.fieldId, value: input.value }; });
    var body = { recipients: recipients, send: $('use-send').checked };
    if (values.length > 0) body.values = values;
    return api('POST', 'templates/' + encodeURIComponent(template.id) + '/envelopes', { json: body }).then(function (response) {
      var envelope = response.body;
      showStatus('Envelope made from “' + template.name + '”: ' + envelope.status + (envelope.status === 'sent' ? ', invitations are on their way.' : '.'));
      $('use-form').reset();
      return loadEnvelopes().then(function () { return openEnvelope(envelope.id, true); });
    });
  }

  // ---- Webhooks ----------------------------------------------------------------------------

  var WEBHOOK_EVENTS = [
    'envelope.sent', 'envelope.completed', 'envelope.declined', 'envelope.voided', 'envelope.expired',
    'recipient.opened', 'recipient.signed', 'recipient.approved', 'recipient.viewed', 'recipient.declined',
  ];

  function renderEventChoices() {
    var list = $('webhook-events');
    WEBHOOK_EVENTS.forEach(function (name, index) {
      var line = document.createElement('div');
      line.className = 'check-line';
      var input = document.createElement('input');
      input.type = 'checkbox';
      input.id = 'webhook-event-' + index;
      input.value = name;
      input.checked = true;
      input.disabled = true;
      var label = document.createElement('label');
      label.htmlFor = input.id;
      label.textContent = name;
      line.appendChild(input);
      line.appendChild(label);
      list.appendChild(line);
    });
  }

  function loadWebhooks() {
    return api('GET', 'webhooks').then(function (response) {
      state.webhooks = response.body;
      renderWebhooks();
    });
  }

  function renderWebhooks() {
    var rows = $('webhook-rows');
    rows.textContent = '';
    state.webhooks.forEach(function (webhook) {
      var row = document.createElement('tr');
      var address = document.createElement('th');
      address.scope = 'row';
      address.textContent = webhook.url;
      if (webhook.description) {
        var description = document.createElement('span');
        description.className = 'hint reason';
        description.textContent = webhook.description;
        address.appendChild(description);
      }
      row.appendChild(address);
      var events = document.createElement('td');
      events.textContent = webhook.events.length === WEBHOOK_EVENTS.length ? 'all events' : webhook.events.join(', ');
      row.appendChild(events);
      var created = document.createElement('td');
      created.textContent = formatTime(webhook.createdAt);
      row.appendChild(created);
      var actions = document.createElement('td');
      actions.className = 'actions';
      var deliveries = document.createElement('button');
      deliveries.type = 'button';
      deliveries.className = 'secondary';
      deliveries.textContent = 'Deliveries';
      deliveries.setAttribute('aria-label', 'Deliveries of ' + webhook.url);
      deliveries.addEventListener('click', action(deliveries, function () { return showDeliveries(webhook, true); }));
      var remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'secondary danger-text';
      remove.textContent = 'Delete';
      remove.setAttribute('aria-label', 'Delete the webhook ' + webhook.url);
      remove.addEventListener('click', action(remove, function () { return deleteWebhook(webhook); }));
      actions.appendChild(deliveries);
      actions.appendChild(remove);
      row.appendChild(actions);
      rows.appendChild(row);
    });
    $('webhook-table').hidden = state.webhooks.length === 0;
    $('webhooks-empty').hidden = state.webhooks.length > 0;
  }

  function addWebhook() {
    var body = { url: $('webhook-url').value.trim() };
    var description = $('webhook-description').value.trim();
    if (description !== '') body.description = description;
    if (!$('webhook-all-events').checked) {
      body.events = Array.prototype.filter.call($('webhook-events').querySelectorAll('input'), function (input) { return input.checked; })
        .map(function (input) { return input.value; });
    }
    return api('POST', 'webhooks', { json: body }).then(function (response) {
      $('webhook-form').reset();
      setAllEvents(true);
      $('webhook-secret-value').textContent = response.body.secret;
      $('webhook-secret').hidden = false;
      showStatus('Webhook added for ' + response.body.url + '. Copy its secret now: it is not shown again.');
      return loadWebhooks();
    });
  }

  function setAllEvents(all) {
    $('webhook-all-events').checked = all;
    $('webhook-events').querySelectorAll('input').forEach(function (input) {
      input.disabled = all;
      if (all) input.checked = true;
    });
  }

  function deleteWebhook(webhook) {
    return api('DELETE', 'webhooks/' + encodeURIComponent(webhook.id)).then(function () {
      if ($('deliveries').dataset.webhookId === webhook.id) $('deliveries').hidden = true;
      showStatus('Webhook ' + webhook.url + ' deleted.');
      return loadWebhooks();
    });
  }

  function showDeliveries(webhook, focus) {
    return api('GET', 'webhooks/' + encodeURIComponent(webhook.id) + '/deliveries').then(function (response) {
      var card = $('deliveries');
      card.hidden = false;
      card.dataset.webhookId = webhook.id;
      $('deliveries-heading').textContent = 'Deliveries to ' + webhook.url;
      var rows = $('delivery-rows');
      rows.textContent = '';
      response.body.forEach(function (delivery) {
        var row = document.createElement('tr');
        var event = document.createElement('th');
        event.scope = 'row';
        event.textContent = delivery.eventType;
        row.appendChild(event);
        [String(delivery.attempt), formatTime(delivery.at)].forEach(function (value) {
          var cell = document.createElement('td');
          cell.textContent = value;
          row.appendChild(cell);
        });
        var outcome = document.createElement('td');
        outcome.appendChild(statusBadge(delivery.outcome));
        row.appendChild(outcome);
        var answer = document.createElement('td');
        answer.textContent = delivery.responseStatus !== null ? 'HTTP ' + delivery.responseStatus : delivery.error || '';
        if (delivery.nextAttemptAt) answer.textContent += ' (next attempt ' + formatTime(delivery.nextAttemptAt) + ')';
        row.appendChild(answer);
        var actionCell = document.createElement('td');
        var again = document.createElement('button');
        again.type = 'button';
        again.className = 'secondary';
        again.textContent = 'Redeliver';
        again.setAttribute('aria-label', 'Redeliver ' + delivery.eventType + ' (attempt ' + delivery.attempt + ')');
        again.addEventListener('click', action(again, function () {
          return api('POST', 'webhooks/' + encodeURIComponent(webhook.id) + '/deliveries/' + encodeURIComponent(delivery.id) + '/redeliver').then(function () {
            showStatus('The event ' + delivery.eventType + ' is queued for delivery again.');
          });
        }));
        actionCell.appendChild(again);
        row.appendChild(actionCell);
        rows.appendChild(row);
      });
      $('delivery-table').hidden = response.body.length === 0;
      $('deliveries-empty').hidden = response.body.length > 0;
      if (focus) $('deliveries-heading').focus();
    });
  }

  // ---- Helpers -----------------------------------------------------------------------------

  function statusBadge(status) {
    var badge = document.createElement('span');
    badge.className = 'badge badge-' + status;
    badge.textContent = status;
    return badge;
  }

  // ---- API keys ----------------------------------------------------------------------------

  function loadApiKeys() {
    return api('GET', 'apikeys').then(function (response) {
      state.apiKeys = response.body;
      renderApiKeys();
    });
  }

  function renderApiKeys() {
    var rows = $('apikey-rows');
    rows.textContent = '';
    state.apiKeys.forEach(function (key) {
      var row = document.createElement('tr');
      var name = document.createElement('th');
      name.scope = 'row';
      name.textContent = key.name;
      row.appendChild(name);
      var prefix = document.createElement('td');
      var code = document.createElement('code');
      code.textContent = key.prefix + '…';
      prefix.appendChild(code);
      row.appendChild(prefix);
      [key.createdAt, key.lastUsedAt, key.expiresAt].forEach(function (time, index) {
        var cell = document.createElement('td');
        cell.textContent = time === null ? (index === 1 ? 'never used' : 'never') : formatTime(time);
        if (index === 2 && time !== null && Date.parse(time) <= Date.now()) cell.textContent += ' (expired)';
        row.appendChild(cell);
      });
      var actions = document.createElement('td');
      actions.className = 'actions';
      renderApiKeyDelete(actions, key);
      row.appendChild(actions);
      rows.appendChild(row);
    });
    $('apikey-table').hidden = state.apiKeys.length === 0;
    $('apikeys-empty').hidden = state.apiKeys.length > 0;
  }

  /** The row's Delete button; a first press asks for confirmation in place, the second deletes. */
  function renderApiKeyDelete(cell, key) {
    cell.textContent = '';
    var remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'secondary danger-text';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', 'Delete the API key ' + key.name);
    remove.addEventListener('click', function () {
      cell.textContent = '';
      var question = document.createElement('span');
      question.className = 'confirm-question';
      question.textContent = 'Delete “' + key.name + '”? Servers using it stop working.';
      var confirm = document.createElement('button');
      confirm.type = 'button';
      confirm.className = 'danger';
      confirm.textContent = 'Delete key';
      confirm.addEventListener('click', action(confirm, function () { return deleteApiKey(key); }));
      var cancel = document.createElement('button');
      cancel.type = 'button';
      cancel.className = 'secondary';
      cancel.textContent = 'Cancel';
      cancel.addEventListener('click', function () { renderApiKeyDelete(cell, key); cell.querySelector('button').focus(); });
      cell.appendChild(question);
      cell.appendChild(confirm);
      cell.appendChild(cancel);
      cancel.focus();
    });
    cell.appendChild(remove);
  }

  function addApiKey() {
    var body = { name: $('apikey-name').value };
    var days = $('apikey-expiry').value;
    if (days !== '') body.expiresAt = new Date(Date.now() + Number(days) * 86400000).toISOString();
    return api('POST', 'apikeys', { json: body }).then(function (response) {
      $('apikey-form').reset();
      $('apikey-secret-value').textContent = response.body.key;
      $('apikey-copied').textContent = '';
      $('apikey-secret').hidden = false;
      $('copy-apikey').focus();
      showStatus('API key “' + response.body.name + '” created. Copy it now: it is not shown again.');
      return loadApiKeys();
    });
  }

  function hideApiKeySecret() {
    $('apikey-secret-value').textContent = '';
    $('apikey-secret').hidden = true;
  }

  /** Copies the new key: the Clipboard API where the page may use it, else selects it for Ctrl+C. */
  function copyApiKey() {
    var value = $('apikey-secret-value');
    var selectIt = function () {
      var range = document.createRange();
      range.selectNodeContents(value);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      $('apikey-copied').textContent = 'The key is selected: press Ctrl+C (⌘C) to copy it.';
    };
    if (!navigator.clipboard || !navigator.clipboard.writeText) {
      selectIt();
      return;
    }
    navigator.clipboard.writeText(value.textContent).then(function () {
      $('apikey-copied').textContent = 'Copied to the clipboard.';
    }, selectIt);
  }

  function deleteApiKey(key) {
    return api('DELETE', 'apikeys/' + encodeURIComponent(key.id)).then(function () {
      showStatus('API key “' + key.name + '” deleted. Every instance of the service refuses it within a minute.');
      return loadApiKeys();
    });
  }

  function formatTime(iso) {
    return iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
  }

  // ---- Wiring ------------------------------------------------------------------------------

  $('register-form').addEventListener('submit', action($('register-form').querySelector('button'), register));
  $('login-form').addEventListener('submit', action($('login-form').querySelector('button'), login));
  $('address-hint').hidden = envelopeInAddress() === null;
  window.addEventListener('hashchange', function () {
    $('address-hint').hidden = envelopeInAddress() === null;
    var opening = openEnvelopeInAddress();
    if (opening) opening.catch(showError);
  });
  $('logout').addEventListener('click', function () {
    endSession();
    showStatus('Logged out.');
    $('login-email').focus();
  });
  $('upload-form').addEventListener('submit', action($('upload-form').querySelector('button[type="submit"]'), upload));
  $('refresh').addEventListener('click', action($('refresh'), function () {
    return loadEnvelopes().then(function () { showStatus('Envelopes refreshed.'); });
  }));
  $('add-signer').addEventListener('click', function () {
    var row = addSignerRow(null);
    renumberSigners();
    row.querySelector('[data-field="name"]').focus();
  });
  $('signers-form').addEventListener('submit', action($('save-signers'), saveSigners));
  $('send').addEventListener('click', action($('send'), send));
  $('complete').addEventListener('click', action($('complete'), complete));
  $('void').addEventListener('click', action($('void'), voidEnvelope));
  $('delete').addEventListener('click', action($('delete'), deleteEnvelope));
  $('settings-form').addEventListener('submit', action($('save-settings'), saveSettings));
  $('download').addEventListener('click', action($('download'), download));
  $('field-recipient').addEventListener('change', updateSwatch);
  $('add-field').addEventListener('click', addFieldByKeyboard);
  $('save-fields').addEventListener('click', action($('save-fields'), saveFields));
  $('detect-fields').addEventListener('click', action($('detect-fields'), detectFields));
  $('delete-field').addEventListener('click', function () { if (fields.selected) deleteField(fields.selected); });
  $('edit-recipient').addEventListener('change', function () { editSelected(function (field) { field.recipientId = $('edit-recipient').value; }); });
  $('edit-type').addEventListener('change', function () { editSelected(function (field) { field.type = $('edit-type').value; }); });
  $('edit-label').addEventListener('input', function () { editSelected(function (field) { field.label = $('edit-label').value; }); });
  $('edit-required').addEventListener('change', function () { editSelected(function (field) { field.required = $('edit-required').checked; }); });
  wireRuleEditor();
  [['edit-x', 'x'], ['edit-y', 'y'], ['edit-width', 'width'], ['edit-height', 'height']].forEach(function (pair) {
    $(pair[0]).addEventListener('change', function () {
      var value = Number($(pair[0]).value);
      if (!Number.isFinite(value)) return;
      editSelected(function (field) { field[pair[1]] = value / 100; });
      $(pair[0]).value = String(Math.round(selectedField()[pair[1]] * 1000) / 10);
    });
  });
  // A field the keyboard reaches is never hidden under the sticky tools (WCAG 2.4.11): the page
  // scrolls with room for them.
  if (window.ResizeObserver) {
    new ResizeObserver(function () {
      var toolbar = document.querySelector('.field-toolbar');
      var sticky = getComputedStyle(toolbar).position === 'sticky' && (!$('envelope').hidden || !$('template').hidden);
      document.documentElement.style.scrollPaddingTop = sticky ? toolbar.offsetHeight + 16 + 'px' : '';
    }).observe(document.querySelector('.field-toolbar'));
  }
  $('template-form').addEventListener('submit', action($('template-form').querySelector('button[type="submit"]'), createTemplate));
  $('refresh-templates').addEventListener('click', action($('refresh-templates'), function () {
    return loadTemplates().then(function () { showStatus('Templates refreshed.'); });
  }));
  $('add-role').addEventListener('click', function () {
    var row = addRoleRow(null);
    renumberRoles();
    row.querySelector('[data-field="name"]').focus();
  });
  $('roles-form').addEventListener('submit', action($('save-roles'), saveRoles));
  $('activate-template').addEventListener('click', action($('activate-template'), activateTemplate));
  $('delete-template').addEventListener('click', action($('delete-template'), deleteTemplate));
  $('use-form').addEventListener('submit', action($('use-template'), useTemplate));
  renderEventChoices();
  $('webhook-all-events').addEventListener('change', function () { setAllEvents($('webhook-all-events').checked); });
  $('webhook-form').addEventListener('submit', action($('add-webhook'), addWebhook));
  $('refresh-webhooks').addEventListener('click', action($('refresh-webhooks'), function () {
    return loadWebhooks().then(function () { showStatus('Webhooks refreshed.'); });
  }));
  $('apikey-form').addEventListener('submit', action($('add-apikey'), addApiKey));
  $('copy-apikey').addEventListener('click', copyApiKey);
  $('refresh-apikeys').addEventListener('click', action($('refresh-apikeys'), function () {
    return loadApiKeys().then(function () { showStatus('API keys refreshed.'); });
  }));
  setSignedIn(false);
})();
