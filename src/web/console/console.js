// @ts-check
// The console: the whole envelope flow from a browser, one API request per action.
// No framework and no external requests: the API of this origin, and Blob storage through the SAS
// URLs the API hands out (upload with PUT, reading the document to show its pages, download of the
// sealed PDF with GET). The pages are drawn by PDF.js, served by this service (pdfPages.js).
// This module starts it: it wires the page's controls to the modules of each part.
import { endSession, envelopeInAddress, login, openEnvelopeInAddress, readJoinLink, register, setSignedIn } from './account.js';
import { addApiKey, copyApiKey, loadApiKeys } from './apiKeys.js';
import { wireBulk } from './bulk.js';
import { $, action, showError, showStatus } from './consoleSession.js';
import { addDocument, download, saveOutput, upload } from './documents.js';
import { complete, deleteEnvelope, fillReminderChoices, saveSettings, send, voidEnvelope } from './envelopeActions.js';
import { loadEnvelopes, wireEnvelopeSearch } from './envelopes.js';
import { addFieldByKeyboard, deleteField, detectFields, editSelected, saveFields, selectedField, wireRuleEditor } from './fieldEditing.js';
import { fields, switchDocument, updateSwatch } from './fieldEditor.js';
import { invite, loadOrganization, saveOrganizationName, transfer } from './organization.js';
import { changeOpenRole, copyPublicLink, disablePublicLink, savePublicLink } from './publicLink.js';
import { addSignerRow, renumberSigners, saveSigners } from './signers.js';
import { activateTemplate, addRoleRow, createTemplate, deleteTemplate, loadTemplates, renumberRoles, saveRoles, saveVisibility, useTemplate } from './templates.js';
import { addWebhook, loadWebhooks, renderEventChoices, setAllEvents } from './webhooks.js';
/** @typedef {import('./consoleSession.js').EditorField} EditorField */

fillReminderChoices();
wireEnvelopeSearch();
$('register-form').addEventListener('submit', action($('register-form').querySelector('button'), register));
$('login-form').addEventListener('submit', action($('login-form').querySelector('button'), login));
$('address-hint').hidden = envelopeInAddress() === null;
window.addEventListener('hashchange', function () {
  readJoinLink();
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
  /** @type {HTMLInputElement} */ (row.querySelector('[data-field="name"]')).focus();
});
$('signers-form').addEventListener('submit', action($('save-signers'), saveSigners));
$('send').addEventListener('click', action($('send'), send));
$('complete').addEventListener('click', action($('complete'), complete));
$('void').addEventListener('click', action($('void'), voidEnvelope));
$('delete').addEventListener('click', action($('delete'), deleteEnvelope));
$('settings-form').addEventListener('submit', action($('save-settings'), saveSettings));
$('download').addEventListener('click', action($('download'), download));
$('public-link-form').addEventListener('submit', action($('save-public-link'), savePublicLink));
$('disable-public-link').addEventListener('click', action($('disable-public-link'), disablePublicLink));
$('copy-public-link').addEventListener('click', copyPublicLink);
$('public-link-role').addEventListener('change', changeOpenRole);
$('add-document').addEventListener('click', action($('add-document'), addDocument));
$('document-output').addEventListener('change', function () {
  saveOutput().catch(function (/** @type {Error} */ error) { showError(error, $('document-output')); });
});
$('field-recipient').addEventListener('change', updateSwatch);
$('add-field').addEventListener('click', addFieldByKeyboard);
$('field-document').addEventListener('change', switchDocument);
$('save-fields').addEventListener('click', action($('save-fields'), saveFields));
$('detect-fields').addEventListener('click', action($('detect-fields'), detectFields));
$('delete-field').addEventListener('click', function () { if (fields.selected) deleteField(fields.selected); });
$('edit-recipient').addEventListener('change', function () { editSelected(function (field) { field.recipientId = $('edit-recipient').value; }); });
$('edit-type').addEventListener('change', function () { editSelected(function (field) { field.type = /** @type {EditorField['type']} */ ($('edit-type').value); }); });
$('edit-label').addEventListener('input', function () { editSelected(function (field) { field.label = $('edit-label').value; }); });
$('edit-required').addEventListener('change', function () { editSelected(function (field) { field.required = $('edit-required').checked; }); });
wireRuleEditor();
/** @type {[string, 'x' | 'y' | 'width' | 'height'][]} */ ([['edit-x', 'x'], ['edit-y', 'y'], ['edit-width', 'width'], ['edit-height', 'height']]).forEach(function (pair) {
  var input = /** @type {HTMLInputElement} */ ($(pair[0]));
  input.addEventListener('change', function () {
    var value = Number(input.value);
    if (!Number.isFinite(value)) return;
    editSelected(function (field) { field[pair[1]] = value / 100; });
    input.value = String(Math.round(selectedField()[pair[1]] * 1000) / 10);
  });
});
// A field the keyboard reaches is never hidden under the sticky tools (WCAG 2.4.11): the page
// scrolls with room for them.
if (window.ResizeObserver) {
  new ResizeObserver(function () {
    var toolbar = /** @type {HTMLElement} */ (document.querySelector('.field-toolbar'));
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
  /** @type {HTMLInputElement} */ (row.querySelector('[data-field="name"]')).focus();
});
$('roles-form').addEventListener('submit', action($('save-roles'), saveRoles));
$('visibility-form').addEventListener('submit', action($('save-visibility'), saveVisibility));
$('activate-template').addEventListener('click', action($('activate-template'), activateTemplate));
$('delete-template').addEventListener('click', action($('delete-template'), deleteTemplate));
$('use-form').addEventListener('submit', action($('use-template'), useTemplate));
wireBulk();
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
$('organization-form').addEventListener('submit', action($('save-organization'), saveOrganizationName));
$('invite-form').addEventListener('submit', action($('invite'), invite));
$('transfer').addEventListener('submit', action($('transfer-button'), transfer));
$('refresh-organization').addEventListener('click', action($('refresh-organization'), function () {
  return loadOrganization().then(function () { showStatus('Organisation refreshed.'); });
}));
setSignedIn(false);
readJoinLink();
