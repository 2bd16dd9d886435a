// @ts-check
// Templates: create one from a PDF, its roles and fields, activate it, and use it to make an envelope.
import { $, action, api, control, formatTime, lockControls, showStatus, state, statusBadge, viewerBlocker } from './consoleSession.js';
import { showBulkForm } from './bulk.js';
import { showPublicLink } from './publicLink.js';
import { placeDocumentsCard, putToBlobStorage, showDocuments } from './documents.js';
import { confirmAction, fillLocalePicker, send } from './envelopeActions.js';
import { loadEnvelopes, openEnvelope } from './envelopes.js';
import { detectAndReopen, fieldsPayload } from './fieldEditing.js';
import { closeDocument, fields, setDirty, showFields } from './fieldEditor.js';
import { recipientColor } from './recipientStatus.js';
import { nextRowNumber } from './signers.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */
/** @typedef {import('./consoleSession.js').Envelope} Envelope */
/** @typedef {import('./consoleSession.js').FieldInput} FieldInput */
/** @typedef {import('./consoleSession.js').Template} Template */
/** @typedef {import('./consoleSession.js').Subject} Subject */

/**
 * The fields card serves envelopes and templates alike: it moves into the section on show,
 * `before` the given element (so the placement tool exists once, with one set of controls).
 * @param {HTMLElement} section
 * @param {HTMLElement} before
 */
export function placeFieldsCard(section, before) {
  var card = $('fields-card');
  if (card.parentNode === before.parentNode && card.nextElementSibling === before) return;
  section.insertBefore(card, before);
}

export function loadTemplates() {
  return api('GET', 'templates').then(function (response) {
    state.templates = response.body;
    renderTemplateList();
  });
}

/**
 * Whose a template is: "you", or its owner's address.
 * @param {Template} template
 */
function templateOwner(template) {
  return template.ownerId === state.userId ? 'you' : template.ownerEmail || template.ownerId;
}

/**
 * Who may use a template besides its owner, in words (docs/api.md#templates-shared-in-an-organization).
 * @type {Record<Template['visibility'], string>}
 */
var VISIBILITY_WORDS = { private: 'only its owner', organization: 'the organisation' };

function renderTemplateList() {
  var rows = $('template-rows');
  rows.textContent = '';
  state.templates.forEach(function (template) {
    var row = document.createElement('tr');
    var name = document.createElement('th');
    name.scope = 'row';
    name.textContent = template.name;
    row.appendChild(name);
    [templateOwner(template), VISIBILITY_WORDS[template.visibility]].forEach(function (value, index) {
      var cell = document.createElement('td');
      if (index === 0) cell.className = 'owner';
      cell.textContent = value;
      row.appendChild(cell);
    });
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
    open.setAttribute('aria-label', 'Open template ' + template.name + ' (of ' + templateOwner(template) + ')');
    open.addEventListener('click', action(open, function () { return openTemplate(template.id, true); }));
    actionCell.appendChild(open);
    row.appendChild(actionCell);
    rows.appendChild(row);
  });
  $('template-table').hidden = state.templates.length === 0;
  $('templates-empty').hidden = state.templates.length > 0;
}

export function createTemplate() {
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

/**
 * @param {string} id
 * @param {boolean} [focus]
 */
function openTemplate(id, focus) {
  return api('GET', 'templates/' + encodeURIComponent(id)).then(function (response) {
    showTemplate(response.body, response.headers.get('ETag'));
    if (focus) $('template-heading').focus();
  });
}

/**
 * A template as the placement tool sees it: its roles as `signers`, its fields by `recipientId`; always editable.
 * @param {Template} template
 * @returns {Subject}
 */
function templateSubject(template) {
  return {
    kind: 'template',
    id: template.id,
    status: 'draft',
    documentName: template.documentName,
    documentUrl: template.documentUrl,
    documents: template.documents,
    signers: template.roles.map(function (role) { return { id: role.id, name: role.name, email: '', role: role.role }; }),
    fields: template.fields.map(function (field) { return Object.assign({}, field, { recipientId: field.roleId }); }),
  };
}

/**
 * Why the caller may not change `template` (docs/api.md#templates-shared-in-an-organization): a viewer
 * changes none, a sender only its own; or null.
 * @param {Template} template
 * @returns {string | null}
 */
function templateChangeBlocker(template) {
  var viewer = viewerBlocker('Changing templates');
  if (viewer !== null) return viewer;
  var role = state.organization ? state.organization.role : null;
  if (role === 'sender' && template.ownerId !== state.userId) {
    return 'Only its owner (' + templateOwner(template) + '), an admin or the organisation’s owner changes this template; you are a sender.';
  }
  return null;
}

/**
 * @param {Template} template
 * @param {string | null} etag
 */
function showTemplate(template, etag) {
  var previous = state.template;
  state.template = template;
  state.templateEtag = etag;
  var blocker = templateChangeBlocker(template);
  fields.readOnly = blocker;
  $('envelope').hidden = true;
  $('template').hidden = false;
  placeFieldsCard($('template'), $('template-fields-slot'));
  $('template-heading').textContent = 'Template: ' + template.name;
  $('template-document').textContent = template.documentName + (template.pageCount ? ' (' + template.pageCount + ' pages)' : '');
  var badge = $('template-status');
  badge.textContent = template.status;
  badge.className = 'badge badge-' + (template.status === 'active' ? 'sent' : 'draft');
  $('template-id').textContent = template.id;
  $('template-owner').textContent = templateOwner(template);
  var changed = !previous || previous.id !== template.id || previous.updatedAt !== template.updatedAt;
  if (changed) {
    renderRoles(template.roles);
    $('template-signing-order').value = template.signingOrder;
    renderUseForm(template);
    /** @type {HTMLInputElement} */ ($('visibility-' + template.visibility)).checked = true;
  }
  showFields(templateSubject(template), null, changed, saveTemplateFields, template.status === 'draft' ? detectTemplateFields : null);
  placeDocumentsCard($('template'), $('fields-card'));
  showDocuments({
    path: 'templates/' + encodeURIComponent(template.id),
    documents: template.documents,
    output: template.output,
    blocker: blocker !== null ? blocker : template.status !== 'draft' ? 'Active: its documents are frozen, and envelopes made from it get exactly these.' : null,
    reopen: function () { return openTemplate(template.id); },
    saveOutput: function (output) { return updateTemplate({ output: output }); },
  });
  $('activate-template').hidden = template.status !== 'draft';
  $('activate-hint').textContent = template.status === 'draft'
    ? 'Activating checks the document as sending does and freezes it: envelopes made from the template get exactly this document. Roles and fields can still change afterwards.'
    : 'Active: its document is frozen. Roles and fields can still change.';
  $('use-form').hidden = template.status !== 'active';
  showBulkForm(template);
  showPublicLink(template, blocker, updateTemplate);
  // What the caller's role may not do is disabled, saying why (docs/api.md#templates-shared-in-an-organization).
  var changing = [$('save-roles'), $('add-role'), $('template-signing-order'), $('activate-template'), $('delete-template'), $('save-visibility'), $('visibility-private'), $('visibility-organization')];
  changing.forEach(function (element) { element.disabled = false; });
  lockControls(changing, blocker);
  lockControls($('role-list').querySelectorAll('input, select, button'), blocker);
  $('template-read-only').textContent = blocker || '';
  $('template-read-only').hidden = blocker === null;
  $('use-template').disabled = false;
  lockControls([$('use-template')], viewerBlocker('Making envelopes'));
  state.templates = state.templates.map(function (item) { return item.id === template.id ? template : item; });
  renderTemplateList();
}

/** Saves who may use the open template (docs/api.md#templates-shared-in-an-organization). */
export function saveVisibility() {
  var visibility = /** @type {Template['visibility']} */ ($('visibility-organization').checked ? 'organization' : 'private');
  return updateTemplate({ visibility: visibility }).then(function (template) {
    showStatus(template.visibility === 'organization'
      ? 'Template “' + template.name + '” is shared: everyone in the organisation may use it.'
      : 'Template “' + template.name + '” is private: only its owner, admins and the organisation’s owner use it.');
  });
}

/**
 * @param {Schemas['UpdateTemplateRequest']} changes
 */
function updateTemplate(changes) {
  return api('PATCH', 'templates/' + encodeURIComponent(state.template.id), { json: changes, ifMatch: state.templateEtag }).then(function (response) {
    showTemplate(response.body, response.headers.get('ETag'));
    return response.body;
  }, function (error) {
    if (error.status !== 412) throw error;
    return openTemplate(state.template.id, false).then(function () { throw error; });
  });
}

/**
 * @param {FieldInput[]} payload
 */
function saveTemplateFields(payload) {
  var byRole = payload.map(function (field) {
    /** @type {Partial<FieldInput> & Schemas['TemplateFieldInput']} */
    var copy = Object.assign({}, field, { roleId: field.recipientId });
    delete copy.recipientId;
    return /** @type {Schemas['TemplateFieldInput']} */ (copy);
  });
  return updateTemplate({ fields: byRole }).then(function () { return fields.subject; });
}

/** Detect Fields of the open draft template (its document's text tags name roles by name). */
function detectTemplateFields() {
  var id = state.template.id;
  return detectAndReopen('templates/' + encodeURIComponent(id), state.templateEtag, function () { return openTemplate(id, false); });
}

/**
 * @param {Template['roles']} roles
 */
function renderRoles(roles) {
  $('role-list').textContent = '';
  roles.forEach(addRoleRow);
  renumberRoles();
}

/**
 * @param {Template['roles'][number] | null} role
 * @returns {HTMLFieldSetElement}
 */
export function addRoleRow(role) {
  var fieldset = /** @type {HTMLFieldSetElement} */ ($('role-template').content.firstElementChild.cloneNode(true));
  var key = 'role-' + nextRowNumber();
  if (role && role.id) fieldset.dataset.roleId = role.id;
  var values = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (role));
  fieldset.querySelectorAll('[data-field]').forEach(function (element) {
    var input = /** @type {HTMLInputElement} */ (element);
    input.id = key + '-' + input.dataset.field;
    input.name = input.dataset.field;
    // As the DOM would (a number as its digits).
    if (role) input.value = /** @type {string} */ (values[input.dataset.field]);
  });
  var swatch = /** @type {HTMLElement} */ (fieldset.querySelector('.swatch'));
  var subject = state.template ? templateSubject(state.template) : null;
  if (role && role.id && subject) swatch.style.background = recipientColor(role.id, subject.signers).ink;
  else swatch.hidden = true;
  fieldset.querySelectorAll('label[data-for]').forEach(function (label) { /** @type {HTMLLabelElement} */ (label).htmlFor = key + '-' + /** @type {HTMLLabelElement} */ (label).dataset.for; });
  fieldset.querySelector('.remove-signer').addEventListener('click', function () {
    fieldset.remove();
    renumberRoles();
    $('add-role').focus();
  });
  $('role-list').appendChild(fieldset);
  return fieldset;
}

export function renumberRoles() {
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

export function saveRoles() {
  /** @type {Schemas['TemplateRoleInput'][]} */
  var roles = Array.from($('role-list').querySelectorAll('fieldset'), function (fieldset) {
    var order = control(fieldset, '[data-field="routingOrder"]').value.trim();
    /** @type {Schemas['TemplateRoleInput']} */
    var role = {
      name: control(fieldset, '[data-field="name"]').value,
      role: /** @type {Template['roles'][number]['role']} */ (control(fieldset, '[data-field="role"]').value),
      routingOrder: order === '' ? 1 : Number(order),
    };
    if (fieldset.dataset.roleId) role.id = fieldset.dataset.roleId;
    return role;
  });
  return updateTemplate({ roles: roles, signingOrder: /** @type {Template['signingOrder']} */ ($('template-signing-order').value) }).then(function (template) {
    showStatus('Roles saved: ' + template.roles.length + '. Signing order: ' + template.signingOrder + '.');
  });
}

export function activateTemplate() {
  /** @type {Schemas['UpdateTemplateRequest']} */
  var changes = { status: 'active' };
  if (fields.dirty) changes.fields = saveTemplateFieldsPayload();
  return updateTemplate(changes).then(function (template) {
    setDirty(false);
    showStatus('Template “' + template.name + '” is active: its document is frozen (' + template.pageCount + ' pages). Make envelopes from it below.');
  });
}

function saveTemplateFieldsPayload() {
  return fieldsPayload().map(function (field) {
    /** @type {Partial<FieldInput> & Schemas['TemplateFieldInput']} */
    var copy = Object.assign({}, field, { roleId: field.recipientId });
    delete copy.recipientId;
    return copy;
  });
}

export function deleteTemplate() {
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

/**
 * The "make an envelope" form: one person per role, and a prefilled value for each text field.
 * @param {Template} template
 */
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
      labelFor(label, spec[1], role.name);
      wrap.appendChild(label);
      wrap.appendChild(input);
      inner.appendChild(wrap);
    });
    recipientChoices(inner, 'use-' + index, role.name);
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

/**
 * A control's label in the "make an envelope" form: the role is the fieldset's legend on screen, and
 * part of the label's name for screen readers ("Language (Tenant)").
 * @param {HTMLLabelElement} label
 * @param {string} text
 * @param {string} roleName
 */
function labelFor(label, text, roleName) {
  label.textContent = text;
  var role = document.createElement('span');
  role.className = 'visually-hidden';
  role.textContent = ' (' + roleName + ')';
  label.appendChild(role);
}

/**
 * A recipient's own choices in the "make an envelope" form (docs/api.md#envelopes-from-a-template,
 * whose recipients take what a recipient entry takes): its language, its identity check (an access
 * code the owner gives it, or a code by e-mail) and its delivery (e-mail or embedded).
 * @param {HTMLElement} inner
 * @param {string} key the row's id prefix (`use-0`)
 * @param {string} roleName
 */
function recipientChoices(inner, key, roleName) {
  /**
   * @param {string} field
   * @param {string} text
   * @param {HTMLInputElement | HTMLSelectElement} input
   */
  function add(field, text, input) {
    var wrap = document.createElement('div');
    var label = document.createElement('label');
    input.id = key + '-' + field;
    input.dataset.field = field;
    label.htmlFor = input.id;
    labelFor(label, text, roleName);
    wrap.appendChild(label);
    wrap.appendChild(input);
    inner.appendChild(wrap);
    return wrap;
  }
  /**
   * @param {[string, string][]} choices value and words
   */
  function picker(choices) {
    var select = document.createElement('select');
    choices.forEach(function (choice) {
      var option = document.createElement('option');
      option.value = choice[0];
      option.textContent = choice[1];
      select.appendChild(option);
    });
    return select;
  }
  var locale = document.createElement('select');
  locale.dataset.inherit = 'The template’s language';
  fillLocalePicker(locale);
  add('locale', 'Language', locale);
  var method = picker([['none', 'link only'], ['accessCode', 'access code'], ['emailOtp', 'code by e-mail']]);
  add('authMethod', 'Identity check', method);
  var code = document.createElement('input');
  code.type = 'text';
  code.autocomplete = 'off';
  code.spellcheck = false;
  code.minLength = 4;
  code.maxLength = 64;
  var codeRow = add('accessCode', 'Access code', code);
  var toggle = function () {
    codeRow.hidden = method.value !== 'accessCode';
    code.required = method.value === 'accessCode';
  };
  method.addEventListener('change', toggle);
  toggle();
  add('delivery', 'Delivery', picker([['email', 'e-mail'], ['embedded', 'embedded (in your app)']]));
}

/**
 * A recipient of the "make an envelope" form as the API takes it.
 * @param {HTMLFieldSetElement} fieldset
 * @returns {Schemas['UseTemplateRequest']['recipients'][number]}
 */
function recipientFromForm(fieldset) {
  /** @type {Schemas['UseTemplateRequest']['recipients'][number]} */
  var recipient = {
    roleId: fieldset.dataset.roleId,
    name: control(fieldset, '[data-field="name"]').value,
    email: control(fieldset, '[data-field="email"]').value,
  };
  var locale = control(fieldset, '[data-field="locale"]').value;
  if (locale !== '') recipient.locale = /** @type {NonNullable<typeof recipient.locale>} */ (locale);
  // The selects offer the API's methods and deliveries only.
  var method = /** @type {'none' | 'emailOtp' | 'accessCode'} */ (control(fieldset, '[data-field="authMethod"]').value);
  if (method === 'accessCode') recipient.authentication = { method: method, code: control(fieldset, '[data-field="accessCode"]').value };
  else if (method !== 'none') recipient.authentication = { method: method };
  var delivery = /** @type {'email' | 'embedded'} */ (control(fieldset, '[data-field="delivery"]').value);
  if (delivery !== 'email') recipient.delivery = [delivery];
  return recipient;
}

export function useTemplate() {
  var template = state.template;
  var recipients = Array.from($('use-roles').querySelectorAll('fieldset'), recipientFromForm);
  var values = Array.prototype.filter.call($('use-values').querySelectorAll('input'), function (input) { return input.value.trim() !== ''; })
    .map(function (input) { return { fieldId: input.dataset.fieldId, value: input.value }; });
  /** @type {Schemas['UseTemplateRequest']} */
  var body = { recipients: recipients, send: $('use-send').checked };
  if (values.length > 0) body.values = values;
  return api('POST', 'templates/' + encodeURIComponent(template.id) + '/envelopes', { json: body }).then(function (response) {
    var envelope = response.body;
    showStatus('Envelope made from “' + template.name + '”: ' + envelope.status + (envelope.status === 'sent' ? ', invitations are on their way.' : '.'));
    $('use-form').reset();
    return loadEnvelopes().then(function () { return openEnvelope(envelope.id, true); });
  });
}
