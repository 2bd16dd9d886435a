// @ts-check
// A template's public link (docs/api.md#public-links): turn it on with its open role, the fixed
// recipient of every other role, a limit and an end; copy its URL; see how many envelopes it made;
// turn it off (its URL then answers 404 at once; turning it on again gives a new URL).
import { $, control, copyText, formatTime, lockControls, showStatus } from './consoleSession.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */
/** @typedef {import('./consoleSession.js').Template} Template */
/** @typedef {(changes: Schemas['UpdateTemplateRequest']) => Promise<Template>} UpdateTemplate */

/**
 * The template on show and how to change it: set by {@link showPublicLink}.
 * @type {{ template: Template | null, update: UpdateTemplate | null }}
 */
var shown = { template: null, update: null };

/**
 * Shows the public link card of an active template (hidden for a draft: a link is for an active template).
 * @param {Template} template
 * @param {string | null} blocker why the caller's role may not change the template, or null
 * @param {UpdateTemplate} update saves a change of the template (ETag-conditional) and shows the result
 */
export function showPublicLink(template, blocker, update) {
  shown.template = template;
  shown.update = update;
  var form = $('public-link-form');
  form.hidden = template.status !== 'active';
  if (form.hidden) return;
  var link = template.publicLink;
  var url = link !== null && link.enabled ? link.url : null;
  var on = url !== null;
  if (link === null) $('public-link-state').textContent = 'Off: this template has no public link.';
  else if (url === null) $('public-link-state').textContent = 'Off: its last URL answers 404.';
  else {
    $('public-link-state').textContent = 'On. Whoever opens it takes the role “' + link.roleName + '”.';
    $('public-link-url').textContent = url;
    $('public-link-uses').textContent = usesInWords(link);
  }
  $('public-link-on').hidden = !on;
  $('public-link-copied').textContent = '';
  fillRoleChoice(template, link);
  renderRecipients(template, link);
  /** @type {HTMLInputElement} */ ($('public-link-max-uses')).value = link !== null && link.maxUses !== null ? String(link.maxUses) : '';
  /** @type {HTMLInputElement} */ ($('public-link-expires')).value = link !== null && link.expiresAt !== null ? link.expiresAt.slice(0, 10) : '';
  $('save-public-link').textContent = on ? 'Save link settings' : 'Turn the link on';
  $('disable-public-link').hidden = !on;
  var controls = form.querySelectorAll('input, select, button');
  Array.prototype.forEach.call(controls, function (/** @type {HTMLButtonElement} */ element) { element.disabled = false; });
  lockControls(controls, blocker);
  // Copying the URL changes nothing: every role that reads the template may.
  lockControls([$('copy-public-link')], null);
  $('copy-public-link').disabled = false;
}

/**
 * @param {NonNullable<Template['publicLink']>} link
 */
function usesInWords(link) {
  var uses = link.uses === null ? 0 : link.uses;
  var made = uses + (uses === 1 ? ' envelope' : ' envelopes') + ' made through this URL';
  var limit = link.maxUses === null ? ', no limit' : ' of at most ' + link.maxUses;
  var end = link.expiresAt === null ? '; it does not expire.' : '; it stops at ' + formatTime(link.expiresAt) + '.';
  return made + limit + end;
}

/**
 * The open role's choices: every role but those of role `cc` (they have nothing to sign).
 * @param {Template} template
 * @param {Template['publicLink']} link
 */
function fillRoleChoice(template, link) {
  var select = /** @type {HTMLSelectElement} */ ($('public-link-role'));
  select.textContent = '';
  template.roles.filter(function (role) { return role.role !== 'cc'; }).forEach(function (role) {
    var option = document.createElement('option');
    option.value = role.name;
    option.textContent = role.name;
    select.appendChild(option);
  });
  var wanted = link === null ? null : link.roleName.toLowerCase();
  var named = template.roles.find(function (role) { return role.role !== 'cc' && role.name.toLowerCase() === wanted; });
  if (named) select.value = named.name;
}

/**
 * One name and e-mail address for every role besides the open one, prefilled from the link's fixed
 * recipients (and from what was typed, when the open role changes).
 * @param {Template} template
 * @param {Template['publicLink']} link
 */
function renderRecipients(template, link) {
  var box = $('public-link-recipients');
  /** @type {Record<string, { name: string, email: string }>} */
  var known = {};
  if (link !== null) link.recipients.forEach(function (recipient) { known[recipient.roleName.toLowerCase()] = { name: recipient.name, email: recipient.email }; });
  box.querySelectorAll('fieldset').forEach(function (fieldset) {
    var role = /** @type {HTMLElement} */ (fieldset).dataset.roleName || '';
    known[role.toLowerCase()] = { name: control(fieldset, '[data-field="name"]').value, email: control(fieldset, '[data-field="email"]').value };
  });
  box.textContent = '';
  var open = /** @type {HTMLSelectElement} */ ($('public-link-role')).value;
  template.roles.forEach(function (role, index) {
    if (role.name === open) return;
    var fieldset = document.createElement('fieldset');
    fieldset.className = 'signer';
    fieldset.dataset.roleName = role.name;
    var legend = document.createElement('legend');
    legend.textContent = role.name + ': the same person on every envelope';
    fieldset.appendChild(legend);
    var given = known[role.name.toLowerCase()] || { name: '', email: '' };
    [['name', 'Name', 'text', 'name'], ['email', 'E-mail address', 'email', 'email']].forEach(function (spec) {
      var id = 'public-link-recipient-' + index + '-' + spec[0];
      var label = document.createElement('label');
      label.htmlFor = id;
      label.textContent = spec[1];
      var input = document.createElement('input');
      input.id = id;
      input.type = spec[2];
      input.autocomplete = 'off';
      input.dataset.field = spec[3];
      input.value = spec[0] === 'name' ? given.name : given.email;
      fieldset.appendChild(label);
      fieldset.appendChild(input);
    });
    box.appendChild(fieldset);
  });
  $('public-link-recipients-hint').hidden = box.childElementCount === 0;
}

/** Re-lists the fixed recipients for the open role chosen (what was typed for a role stays). */
export function changeOpenRole() {
  if (shown.template === null) return;
  renderRecipients(shown.template, null);
}

/**
 * The settings the form holds.
 * @param {boolean} enabled
 * @returns {Schemas['PublicLinkInput']}
 */
function formSettings(enabled) {
  var maxUses = /** @type {HTMLInputElement} */ ($('public-link-max-uses')).value.trim();
  var expires = /** @type {HTMLInputElement} */ ($('public-link-expires')).value;
  /** @type {Schemas['PublicLinkInput']} */
  var settings = {
    enabled: enabled,
    roleName: /** @type {HTMLSelectElement} */ ($('public-link-role')).value,
    // A number input holds digits or nothing; a number out of range is refused with the service's reason.
    maxUses: maxUses === '' ? null : Number(maxUses),
    // The end of the day chosen, in UTC.
    expiresAt: expires === '' ? null : expires + 'T23:59:59.000Z',
    recipients: Array.from($('public-link-recipients').querySelectorAll('fieldset'), function (fieldset) {
      return {
        roleName: /** @type {HTMLElement} */ (fieldset).dataset.roleName || '',
        name: control(fieldset, '[data-field="name"]').value,
        email: control(fieldset, '[data-field="email"]').value,
      };
    }),
  };
  return settings;
}

/** Turns the link on, or saves its settings (its URL stays). */
export function savePublicLink() {
  var template = shown.template;
  var update = shown.update;
  if (template === null || update === null) return;
  var wasOn = template.publicLink !== null && template.publicLink.enabled;
  return update({ publicLink: formSettings(true) }).then(function (template) {
    showStatus(wasOn ? 'Public link settings saved; its URL stays the same.' : 'Public link on: ' + (template.publicLink && template.publicLink.url) + '. Copy it below.');
    if (!wasOn) $('copy-public-link').focus();
  });
}

/** Turns the link off: its URL answers 404 at once, for good. */
export function disablePublicLink() {
  var template = shown.template;
  var update = shown.update;
  if (template === null || update === null || template.publicLink === null) return;
  var link = template.publicLink;
  return update({ publicLink: { enabled: false, roleName: link.roleName, maxUses: link.maxUses, expiresAt: link.expiresAt, recipients: link.recipients } }).then(function () {
    showStatus('Public link off: its URL answers “not found” from now on. Turning it on again gives a new URL.');
    $('save-public-link').focus();
  });
}

/** Copies the link's URL. */
export function copyPublicLink() {
  copyText($('public-link-url'), $('public-link-copied'), 'link');
}
