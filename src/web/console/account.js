// @ts-check
// The owner's account: register, log in, log out, and the envelope an e-mail's link names.
import { hideApiKeySecret, loadApiKeys } from './apiKeys.js';
import { $, api, showStatus, state } from './consoleSession.js';
import { loadEnvelopes, openEnvelope } from './envelopes.js';
import { closeDocument, fields } from './fieldEditor.js';
import { loadTemplates } from './templates.js';
import { loadWebhooks } from './webhooks.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */

// ---- Account -----------------------------------------------------------------------------

export function register() {
  var form = $('register-form');
  var inputs = /** @type {HTMLFormControlsCollection & Record<string, HTMLInputElement>} */ (form.elements);
  var email = inputs.email.value;
  var name = inputs.name.value.trim();
  /** @type {Schemas['RegisterRequest']} */
  var body = { email: email, password: inputs.password.value, invitationCode: inputs.invitationCode.value.trim() };
  if (name !== '') body.name = name;
  return api('POST', 'Register', { json: body }).then(function () {
    form.reset();
    $('login-email').value = email.trim().toLowerCase();
    $('login-password').focus();
    showStatus('Account created for ' + email.trim().toLowerCase() + '. Log in with your password.');
  });
}

export function login() {
  var form = $('login-form');
  var inputs = /** @type {HTMLFormControlsCollection & Record<string, HTMLInputElement>} */ (form.elements);
  return api('POST', 'Login', { json: { email: inputs.email.value, password: inputs.password.value } }).then(function (response) {
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

export function envelopeInAddress() {
  var match = /^#envelope=([0-9A-Fa-f-]{36})$/.exec(window.location.hash);
  return match ? match[1].toLowerCase() : null;
}

/** Opens the envelope the address names, once logged in (a link from the "completed" e-mail, a bookmark). */
export function openEnvelopeInAddress() {
  var id = envelopeInAddress();
  if (id === null || state.token === null || (state.envelope && state.envelope.id === id)) return undefined;
  return openEnvelope(id, true).then(function () {
    showStatus('Logged in as ' + state.email + '. Opened ' + state.envelope.documentName + ' from your link.');
  }, function (error) {
    if (error.status === 404) throw new Error('The envelope in this link was not found in your account. Are you logged in as its owner?');
    throw error;
  });
}

export function endSession() {
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

/**
 * @param {boolean} signedIn
 */
export function setSignedIn(signedIn) {
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
