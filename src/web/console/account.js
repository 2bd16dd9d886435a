// @ts-check
// The owner's account: register, join an organisation from an invitation's link, log in, log out,
// and the envelope an e-mail's link names.
import { hideApiKeySecret, loadApiKeys } from './apiKeys.js';
import { $, api, showError, showStatus, state } from './consoleSession.js';
import { loadEnvelopes, openEnvelope } from './envelopes.js';
import { closeDocument, fields } from './fieldEditor.js';
import { loadOrganization, managesOrganization } from './organization.js';
import { loadTemplates } from './templates.js';
import { loadWebhooks } from './webhooks.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */

// ---- Account -----------------------------------------------------------------------------

/**
 * Makes the account: with the invitation code typed, or with the invitation of the link this page
 * was opened with, and then logs in (docs/api.md#register).
 */
export function register() {
  var form = $('register-form');
  var inputs = /** @type {HTMLFormControlsCollection & Record<string, HTMLInputElement>} */ (form.elements);
  var email = inputs.email.value;
  var password = inputs.password.value;
  var name = inputs.name.value.trim();
  /** @type {Schemas['RegisterRequest']} */
  var body = joinToken === null
    ? { email: email, password: password, invitationCode: inputs.invitationCode.value.trim() }
    : { email: email, password: password, organizationInvitation: joinToken };
  if (name !== '') body.name = name;
  return api('POST', 'Register', { json: body }).then(function () {
    if (joinToken !== null) {
      showJoining(null);
      return logInWith(email, password, form);
    }
    form.reset();
    $('login-email').value = email.trim().toLowerCase();
    $('login-password').focus();
    showStatus('Account created for ' + email.trim().toLowerCase() + '. Log in with your password.');
    return undefined;
  });
}

export function login() {
  var form = $('login-form');
  var inputs = /** @type {HTMLFormControlsCollection & Record<string, HTMLInputElement>} */ (form.elements);
  return logInWith(inputs.email.value, inputs.password.value, form);
}

/**
 * Logs in, then loads the organisation first: the caller's role decides what else the page shows
 * and loads (docs/api.md#roles).
 * @param {string} email
 * @param {string} password
 * @param {HTMLFormElement} form the form to clear once logged in
 */
function logInWith(email, password, form) {
  return api('POST', 'Login', { json: { email: email, password: password } }).then(function (response) {
    state.token = response.body.token;
    state.email = response.body.user.email;
    state.userId = response.body.user.userId;
    form.reset();
    $('session-email').textContent = state.email;
    setSignedIn(true);
    showStatus('Logged in as ' + state.email + '.');
    return loadOrganization();
  }).then(function () {
    var loads = [loadEnvelopes(), loadTemplates(), loadApiKeys()];
    if (managesOrganization(state.organization.role)) loads.push(loadWebhooks());
    return Promise.all(loads);
  }).then(openEnvelopeInAddress);
}

// ---- Joining an organisation (#join=<token>): the invitation e-mail's link --------------------

/**
 * The token of the invitation link this page was opened with (docs/api.md#invitations-to-an-organization):
 * held here only, until the account is made; never logged, and gone from the address bar once read.
 * @type {string | null}
 */
var joinToken = null;

/**
 * Reads `#join=<token>` from the address, removes it from the address bar (and so from the history
 * and from any later copy of the address), and turns the Register form into the invitation's sign-up.
 */
export function readJoinLink() {
  var match = /^#join=([A-Za-z0-9_-]{1,200})$/.exec(window.location.hash);
  if (!match) return;
  history.replaceState(history.state, '', window.location.pathname + window.location.search);
  if (state.token !== null) {
    showError(new Error('You are logged in: an invitation makes a new account. Log out, then open the invitation’s link again.'));
    return;
  }
  showJoining(match[1]);
  $('register-email').focus();
}

/**
 * Shows the Register form for an invitation's token (no invitation code: the token stands in for it),
 * or, with `null`, as it was.
 * @param {string | null} token
 */
function showJoining(token) {
  joinToken = token;
  var joining = token !== null;
  $('register-heading').textContent = joining ? 'Join your organisation' : 'Register';
  $('register-hint').hidden = joining;
  $('join-hint').hidden = !joining;
  $('register-code-row').hidden = joining;
  $('register-submit').textContent = joining ? 'Create account and log in' : 'Register';
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
  state.userId = null;
  state.organization = null;
  state.members = [];
  state.invitations = [];
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
  ['session', 'organization', 'upload', 'envelopes', 'templates', 'webhooks', 'apikeys'].forEach(function (id) { $(id).hidden = !signedIn; });
  if (!signedIn) {
    $('envelope').hidden = true;
    $('template').hidden = true;
    $('webhook-secret').hidden = true;
    hideApiKeySecret();
    $('deliveries').hidden = true;
  }
}
