// The console: the whole envelope flow from a browser, one API request per action.
// No framework and no external requests: the API of this origin, and Blob storage through the SAS
// URLs the API hands out (upload with PUT, download of the sealed PDF with GET).
(function () {
  'use strict';

  // /api/console/console.js -> /api/, whatever the host's route prefix.
  var API = new URL('../', document.currentScript.src);

  var state = {
    token: null,
    email: null,
    envelopes: [],
    /** The open envelope and its ETag (sent as If-Match, so a stale page cannot overwrite a newer version). */
    envelope: null,
    etag: null,
  };

  var $ = function (id) { return document.getElementById(id); };

  // ---- Messages ----------------------------------------------------------------------------

  function showStatus(text) {
    $('error').hidden = true;
    $('error').textContent = '';
    $('status').textContent = text;
  }

  /** Shows an error: for API errors, the problem's `detail` and each field complaint. */
  function showError(error) {
    var box = $('error');
    box.textContent = '';
    var summary = document.createElement('p');
    summary.textContent = error.message;
    box.appendChild(summary);
    if (error.problem && Array.isArray(error.problem.errors) && error.problem.errors.length > 0) {
      var list = document.createElement('ul');
      error.problem.errors.forEach(function (item) {
        var entry = document.createElement('li');
        entry.textContent = item.path + ': ' + item.message;
        list.appendChild(entry);
      });
      box.appendChild(list);
    }
    $('status').textContent = '';
    box.hidden = false;
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
          if (state.envelope !== null) setLifecycleControls(state.envelope);
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
          var detail = body && typeof body.detail === 'string' ? body.detail : 'The API answered ' + response.status + '.';
          var error = new Error(detail);
          error.status = response.status;
          error.problem = body;
          throw error;
        }
        return { status: response.status, headers: response.headers, body: body };
      });
    }, function () {
      throw new Error('The API could not be reached.');
    });
  }

  // ---- Account -----------------------------------------------------------------------------

  function register() {
    var form = $('register-form');
    var email = form.elements.email.value;
    return api('POST', 'Register', {
      json: { email: email, password: form.elements.password.value, invitationCode: form.elements.invitationCode.value.trim() },
    }).then(function () {
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
      return loadEnvelopes();
    });
  }

  function endSession() {
    state.token = null;
    state.email = null;
    state.envelopes = [];
    state.envelope = null;
    state.etag = null;
    setSignedIn(false);
  }

  function setSignedIn(signedIn) {
    $('account').hidden = signedIn;
    ['session', 'upload', 'envelopes'].forEach(function (id) { $(id).hidden = !signedIn; });
    if (!signedIn) $('envelope').hidden = true;
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
        if (index === 1) cell.appendChild(statusBadge(envelope.status));
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
      if (focus) $('envelope-heading').focus();
    });
  }

  function showEnvelope(envelope, etag) {
    var previous = state.envelope;
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
    if (!previous || previous.id !== envelope.id || previous.updatedAt !== envelope.updatedAt) renderSigners(envelope.signers);
    setLifecycleControls(envelope);
    $('sealed').hidden = envelope.status !== 'completed';
    $('sealed-hash').textContent = envelope.hash || '';
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
    $('save-signers').disabled = !open;
    $('add-signer').disabled = !open;
    $('signer-list').querySelectorAll('input, select, button').forEach(function (control) { control.disabled = !open; });
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
    fieldset.querySelectorAll('[data-field]').forEach(function (input) {
      input.id = key + '-' + input.dataset.field;
      input.name = input.dataset.field;
      if (signer) input.value = signer[input.dataset.field];
    });
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
      fieldset.querySelector('legend').textContent = 'Signer ' + (index + 1);
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
      var signer = {
        name: fieldset.querySelector('[data-field="name"]').value,
        email: fieldset.querySelector('[data-field="email"]').value,
        role: fieldset.querySelector('[data-field="role"]').value,
      };
      if (fieldset.dataset.signerId) signer.id = fieldset.dataset.signerId;
      return signer;
    });
  }

  function saveSigners() {
    return update({ signers: signersFromForm() }).then(function () {
      showStatus('Signers saved: ' + state.envelope.signers.length + '.');
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

  /** On 412 the page showed an old version: show the current one, then report the error. */
  function reloadWhenStale(error) {
    if (error.status !== 412) throw error;
    var id = state.envelope.id;
    state.envelope = null;
    return openEnvelope(id, false).then(function () { throw error; });
  }

  function send() {
    return update({ status: 'sent' }).then(function () { showStatus('Envelope sent.'); });
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

  // ---- Helpers -----------------------------------------------------------------------------

  function statusBadge(status) {
    var badge = document.createElement('span');
    badge.className = 'badge badge-' + status;
    badge.textContent = status;
    return badge;
  }

  function formatTime(iso) {
    return iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC');
  }

  // ---- Wiring ------------------------------------------------------------------------------

  $('register-form').addEventListener('submit', action($('register-form').querySelector('button'), register));
  $('login-form').addEventListener('submit', action($('login-form').querySelector('button'), login));
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
  $('download').addEventListener('click', action($('download'), download));
  setSignedIn(false);
})();
