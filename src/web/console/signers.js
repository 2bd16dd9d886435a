// @ts-check
// The signers form: each recipient's name, address, role, routing order, authentication, mobile
// number and delivery (e-mail, text message, both, or embedded signing with its view links).
import { $, action, api, control, formatTime, showStatus, state } from './consoleSession.js';
import { fillLocalePicker, speaksLocales, update } from './envelopeActions.js';
import { recipientColor } from './recipientStatus.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */
/** @typedef {import('./consoleSession.js').Envelope} Envelope */
/** @typedef {import('./consoleSession.js').Signer} Signer */

// ---- Signers -----------------------------------------------------------------------------

var signerCounter = 0;

/** The next number for a row's element ids (signers' and roles' rows share it, so ids never clash). */
export function nextRowNumber() {
  signerCounter += 1;
  return signerCounter;
}

/**
 * @param {Signer[]} signers
 */
export function renderSigners(signers) {
  $('signer-list').textContent = '';
  signers.forEach(addSignerRow);
  renumberSigners();
}

/**
 * @param {Signer | null} signer
 * @returns {HTMLFieldSetElement}
 */
export function addSignerRow(signer) {
  var fieldset = /** @type {HTMLFieldSetElement} */ ($('signer-template').content.firstElementChild.cloneNode(true));
  var key = 'signer-' + nextRowNumber();
  if (signer && signer.id) fieldset.dataset.signerId = signer.id;
  fieldset.querySelectorAll('[data-locale-picker]').forEach(function (picker) { fillLocalePicker(/** @type {HTMLSelectElement} */ (picker)); });
  var values = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (signer));
  fieldset.querySelectorAll('[data-field]').forEach(function (element) {
    var input = /** @type {HTMLInputElement} */ (element);
    input.id = key + '-' + input.dataset.field;
    input.name = input.dataset.field;
    if (signer) input.value = values[input.dataset.field] === null || values[input.dataset.field] === undefined ? '' : String(values[input.dataset.field]);
  });
  control(fieldset, '[data-field="locale"]').disabled = !speaksLocales() || state.envelope.status !== 'draft';
  // The delivery list as the picker spells it: ["email", "sms"] is the option "email,sms".
  if (signer) control(fieldset, '[data-field="delivery"]').value = signer.delivery.join(',');
  wireDelivery(fieldset, key, signer);
  var swatch = /** @type {HTMLElement} */ (fieldset.querySelector('.swatch'));
  if (signer && signer.id) swatch.style.background = recipientColor(signer.id).ink;
  else swatch.hidden = true;
  wireSignerAuthentication(fieldset, key, signer);
  fieldset.querySelectorAll('label[data-for]').forEach(function (label) { /** @type {HTMLLabelElement} */ (label).htmlFor = key + '-' + /** @type {HTMLLabelElement} */ (label).dataset.for; });
  fieldset.querySelector('.remove-signer').addEventListener('click', function () {
    fieldset.remove();
    renumberSigners();
    $('add-signer').focus();
  });
  $('signer-list').appendChild(fieldset);
  return fieldset;
}

export function renumberSigners() {
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

/** @returns {Schemas['SignerInput'][]} */
function signersFromForm() {
  return Array.from($('signer-list').querySelectorAll('fieldset'), function (fieldset) {
    var order = control(fieldset, '[data-field="routingOrder"]').value.trim();
    /** @type {Schemas['SignerInput']} */
    var signer = {
      name: control(fieldset, '[data-field="name"]').value,
      email: control(fieldset, '[data-field="email"]').value,
      role: /** @type {Signer['role']} */ (control(fieldset, '[data-field="role"]').value),
      routingOrder: order === '' ? 1 : Number(order),
    };
    if (speaksLocales()) {
      var locale = control(fieldset, '[data-field="locale"]').value;
      signer.locale = locale === '' ? null : /** @type {Signer['locale']} */ (locale);
    }
    if (fieldset.dataset.signerId) signer.id = fieldset.dataset.signerId;
    deliveryFromForm(fieldset, signer);
    signer.authentication = authenticationFromRow(fieldset);
    return signer;
  });
}

// Signer authentication: the link alone, an access code the owner gives the recipient (sent once,
// never shown again: left empty, a saved signer keeps its code), or a code e-mailed on request.
/**
 * @param {HTMLFieldSetElement} fieldset
 * @param {string} key the row's id prefix (`signer-3`)
 * @param {Signer | null} signer
 */
function wireSignerAuthentication(fieldset, key, signer) {
  var method = control(fieldset, '[data-auth="method"]');
  var code = control(fieldset, '[data-auth="code"]');
  var row = /** @type {HTMLElement} */ (fieldset.querySelector('[data-auth="code-row"]'));
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
  method.addEventListener('change', function () { requirePhone(fieldset); });
  toggle();
  requirePhone(fieldset);
}

/**
 * A mobile number is required when texts go to it: delivery by text message, or codes by text message.
 * @param {HTMLFieldSetElement} fieldset
 */
function requirePhone(fieldset) {
  var texted = control(fieldset, '[data-field="delivery"]').value.split(',').indexOf('sms') >= 0 || control(fieldset, '[data-auth="method"]').value === 'sms';
  control(fieldset, '[data-field="phone"]').required = texted;
}

/**
 * @param {HTMLFieldSetElement} fieldset
 * @returns {Schemas['SignerInput']['authentication']}
 */
function authenticationFromRow(fieldset) {
  // The select offers the API's methods only.
  var method = /** @type {'none' | 'emailOtp' | 'sms' | 'accessCode'} */ (control(fieldset, '[data-auth="method"]').value);
  if (method !== 'accessCode') return { method: method };
  var code = control(fieldset, '[data-auth="code"]').value;
  return code === '' ? { method: 'accessCode' } : { method: 'accessCode', code: code };
}

export function saveSigners() {
  return update({ signers: signersFromForm(), signingOrder: /** @type {Envelope['signingOrder']} */ ($('signing-order').value) }).then(function () {
    showStatus('Signers saved: ' + state.envelope.signers.length + '. Signing order: ' + state.envelope.signingOrder + '.');
  });
}

// ---- Embedded signing ----------------------------------------------------------------------

/**
 * The delivery choice of a signer row: e-mail, text message, both, or embedded (with "e-mail the
 * signed PDF", embedded only).
 * @param {HTMLFieldSetElement} fieldset
 * @param {string} key the row's id prefix (`signer-3`)
 * @param {Signer | null} signer
 */
function wireDelivery(fieldset, key, signer) {
  var delivery = control(fieldset, '[data-field="delivery"]');
  var notify = control(fieldset, '[data-flag="notifyOnCompletion"]');
  notify.id = key + '-notifyOnCompletion';
  notify.checked = Boolean(signer && signer.notifyOnCompletion);
  var sync = function () {
    var embedded = delivery.value === 'embedded';
    /** @type {HTMLElement} */ (fieldset.querySelector('.notify-choice')).hidden = !embedded;
    if (!embedded) notify.checked = false;
    requirePhone(fieldset);
  };
  delivery.addEventListener('change', sync);
  sync();
}

/**
 * @param {HTMLFieldSetElement} fieldset
 * @param {Record<string, unknown>} signer
 */
function deliveryFromForm(fieldset, signer) {
  var chosen = control(fieldset, '[data-field="delivery"]').value;
  // The options are the API's lists, spelled with commas ("email,sms").
  signer.delivery = chosen.split(',');
  var phone = control(fieldset, '[data-field="phone"]').value.trim();
  if (phone === '') delete signer.phone;
  else signer.phone = phone;
  if (chosen === 'embedded' && control(fieldset, '[data-flag="notifyOnCompletion"]').checked) signer.notifyOnCompletion = true;
}

/**
 * "Signing view": opens an embedded view for a recipient whose turn it is, and shows its URL.
 * @param {Signer} signer
 */
export function viewButton(signer) {
  var button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = 'Signing view';
  button.setAttribute('aria-label', 'Create a signing view for ' + signer.name);
  button.addEventListener('click', action(button, function () { return createView(signer); }));
  return button;
}

/**
 * @param {Signer} signer
 */
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
