// @ts-check
// The organisation (docs/api.md#organizations): its name, the caller's role, the members and their
// roles, removing a member, the pending invitations, and handing it over; and which of the console's controls the
// caller's role may use (docs/api.md#roles).
import { $, action, api, formatTime, showStatus, state } from './consoleSession.js';
import { confirmAction } from './envelopeActions.js';
import { seesEveryonesEnvelopes } from './envelopes.js';
/** @typedef {import('./consoleSession.js').Schemas} Schemas */
/** @typedef {Schemas['Member']} Member */
/** @typedef {Schemas['OrganizationInvitation']} Invitation */
/** @typedef {Schemas['Organization']['role']} Role */

/** The roles a member or an invitation may be given: never `owner` (docs/api.md#members). */
var ASSIGNABLE = ['admin', 'sender', 'viewer'];

/**
 * May `role` manage the organisation: its name, members, invitations and webhooks (docs/api.md#roles)?
 * @param {Role | null} role
 */
export function managesOrganization(role) {
  return role === 'owner' || role === 'admin';
}

/**
 * Loads the organisation, its members and (for an admin or the owner) its pending invitations, draws
 * them, and shows only the controls the caller's role may use.
 * @returns {Promise<void>}
 */
export function loadOrganization() {
  return api('GET', 'organization').then(function (response) {
    state.organization = response.body;
    applyRole(state.organization.role);
    var loads = [api('GET', 'organization/members').then(function (members) { state.members = members.body; })];
    if (managesOrganization(state.organization.role)) {
      loads.push(api('GET', 'organization/invitations').then(function (invitations) { state.invitations = invitations.body; }));
    } else {
      state.invitations = [];
    }
    return Promise.all(loads);
  }).then(renderOrganization);
}

/**
 * Hides the controls of the rest of the console that `role` may not use (docs/api.md#roles): a viewer
 * changes nothing, webhooks are an admin's or the owner's. A refused request would say the same; the
 * page says it before.
 * @param {Role} role
 */
function applyRole(role) {
  var writes = role !== 'viewer';
  $('upload').hidden = !writes;
  $('template-form').hidden = !writes;
  $('apikey-form').hidden = !writes;
  $('webhooks').hidden = !managesOrganization(role);
  // "Mine" / "Everyone's" above the envelope list: not for senders (docs/api.md#what-members-share).
  if (!seesEveryonesEnvelopes(role)) state.envelopeScope = 'mine';
  $('envelope-scope').hidden = !seesEveryonesEnvelopes(role);
  $('session-role').textContent = role;
  $('envelopes-empty').textContent = writes ? 'No envelopes yet: upload a PDF.' : 'No envelopes yet.';
  var note = $('role-note');
  note.textContent = writes ? '' : 'As a viewer you read envelopes, templates and API keys; changing them needs the role sender, admin or owner.';
  note.hidden = writes;
}

function renderOrganization() {
  var organization = state.organization;
  var manages = managesOrganization(organization.role);
  $('organization-role').textContent = organization.role;
  $('organization-count').textContent = String(organization.memberCount);
  $('organization-name').value = organization.name;
  $('organization-name').readOnly = !manages;
  reasonFor($('save-organization'), $('organization-name-reason'), manages ? null : 'Only an admin or the owner renames the organisation.');
  renderMembers();
  $('invitations').hidden = !manages;
  $('invitations-closed').hidden = manages;
  if (manages) renderInvitations();
  $('transfer').hidden = organization.role !== 'owner';
  if (organization.role === 'owner') renderTransferChoices();
}

/**
 * Disables `button` with `reason` shown in `box` (the button's description), or enables it.
 * @param {HTMLButtonElement} button
 * @param {HTMLElement} box
 * @param {string | null} reason
 */
function reasonFor(button, box, reason) {
  button.disabled = reason !== null;
  box.textContent = reason === null ? '' : reason;
  box.hidden = reason === null;
}

function renderMembers() {
  var rows = $('member-rows');
  rows.textContent = '';
  state.members.forEach(function (member, index) {
    var row = document.createElement('tr');
    var name = document.createElement('th');
    name.scope = 'row';
    name.textContent = member.name === null ? '(no name)' : member.name;
    if (member.userId === state.userId) name.textContent += ' (you)';
    row.appendChild(name);
    [['E-mail', member.email], ['Role', member.role], ['Joined', formatTime(member.joinedAt)]].forEach(function (pair) {
      var cell = document.createElement('td');
      // The label a phone shows before the value, where the table's columns stack (console.css).
      cell.dataset.label = pair[0];
      cell.textContent = pair[1];
      row.appendChild(cell);
    });
    var actions = document.createElement('td');
    actions.className = 'actions';
    renderRoleControl(actions, member, index);
    renderRemoveControl(actions, member, index);
    row.appendChild(actions);
    rows.appendChild(row);
  });
}

/**
 * A button of the member and invitation tables.
 * @param {string} text its words
 * @param {string} className
 * @param {string | null} label its accessible name, beginning with `text` (null: `text` alone)
 * @returns {HTMLButtonElement}
 */
function newButton(text, className, label) {
  var button = document.createElement('button');
  button.type = 'button';
  button.className = className;
  button.textContent = text;
  if (label !== null) button.setAttribute('aria-label', label);
  return button;
}

/**
 * Why the caller may not change `member`'s role (docs/api.md#members), or null when it may.
 * @param {Member} member
 * @returns {string | null}
 */
function roleBlocker(member) {
  var role = state.organization.role;
  if (!managesOrganization(role)) return 'Only an admin or the owner changes roles.';
  if (member.role === 'owner') return 'The owner’s role changes only by handing the organisation over.';
  if (member.role === 'admin' && role !== 'owner') return 'Only the owner changes an admin’s role.';
  return null;
}

/**
 * The member's role picker and its Change role button, or the reason the caller may not change it.
 * @param {HTMLElement} cell
 * @param {Member} member
 * @param {number} index the member's row, for the controls' ids
 */
function renderRoleControl(cell, member, index) {
  var blocker = roleBlocker(member);
  var who = member.name === null ? member.email : member.name;
  var select = document.createElement('select');
  select.id = 'member-role-' + index;
  select.setAttribute('aria-label', 'New role of ' + who);
  ASSIGNABLE.forEach(function (role) {
    var option = document.createElement('option');
    option.value = role;
    option.textContent = role;
    // Only the owner makes admins (docs/api.md#members).
    option.disabled = role === 'admin' && state.organization.role !== 'owner';
    option.selected = role === member.role;
    select.appendChild(option);
  });
  var change = newButton('Change role', 'secondary', 'Change role of ' + who);
  change.addEventListener('click', action(change, function () { return changeRole(member, select.value); }));
  if (blocker !== null) {
    var reason = document.createElement('span');
    reason.id = 'member-role-reason-' + index;
    reason.className = 'hint reason';
    reason.textContent = blocker;
    change.disabled = true;
    change.setAttribute('aria-describedby', reason.id);
    // The role cell shows the role; the disabled button says why it cannot change.
    cell.appendChild(change);
    cell.appendChild(reason);
    return;
  }
  cell.appendChild(select);
  cell.appendChild(change);
}

/**
 * @param {Member} member
 * @param {string} role
 */
function changeRole(member, role) {
  if (role === member.role) {
    showStatus(member.email + ' is already a ' + role + '.');
    return undefined;
  }
  /** @type {Schemas['UpdateMemberRequest']} */
  var body = { role: /** @type {Schemas['UpdateMemberRequest']['role']} */ (role) };
  return api('PATCH', 'organization/members/' + encodeURIComponent(member.userId), { json: body }).then(function () {
    return loadOrganization().then(function () { showStatus(member.email + ' is now a ' + role + '. Every instance of the service applies it within a minute.'); });
  });
}

/**
 * Why the caller may not remove `member` (docs/api.md#removing-a-member), or null when it may.
 * @param {Member} member
 * @returns {string | null}
 */
function removeBlocker(member) {
  var role = state.organization.role;
  if (!managesOrganization(role)) return 'Only an admin or the owner removes members.';
  if (member.role === 'owner') return 'The owner cannot be removed: the organisation must be handed over first.';
  if (member.userId === state.userId) return 'You cannot remove yourself; another admin or the owner can.';
  if (member.role === 'admin' && role !== 'owner') return 'Only the owner removes an admin.';
  return null;
}

/**
 * The member's Remove button, when the caller may remove it: a first press asks, in place, whom its
 * envelopes and templates go to (any other member who is not a viewer; the caller first), the
 * second removes (docs/api.md#removing-a-member).
 * @param {HTMLElement} cell
 * @param {Member} member
 * @param {number} index the member's row, for the controls' ids
 */
function renderRemoveControl(cell, member, index) {
  if (removeBlocker(member) !== null) return;
  var who = member.name === null ? member.email : member.name;
  var receivers = state.members.filter(function (candidate) { return candidate.userId !== member.userId && candidate.role !== 'viewer'; });
  receivers.sort(function (a, b) { return Number(b.userId === state.userId) - Number(a.userId === state.userId); });
  var remove = newButton('Remove', 'secondary', 'Remove ' + who);
  cell.appendChild(remove);
  remove.addEventListener('click', function () {
    remove.hidden = true;
    var box = document.createElement('div');
    box.className = 'remove-member';
    var label = document.createElement('label');
    label.htmlFor = 'member-transfer-' + index;
    label.textContent = 'Give ' + who + '’s envelopes and templates to';
    var select = document.createElement('select');
    select.id = 'member-transfer-' + index;
    receivers.forEach(function (receiver) {
      var option = document.createElement('option');
      option.value = receiver.userId;
      option.textContent = (receiver.userId === state.userId ? 'me, ' : '') + (receiver.name === null ? receiver.email : receiver.name + ' <' + receiver.email + '>') + ' (' + receiver.role + ')';
      select.appendChild(option);
    });
    var note = document.createElement('span');
    note.className = 'hint reason';
    note.textContent = 'Their account is deleted and their API keys stop working; recipients’ signing links keep working.';
    var confirm = newButton('Remove member', 'danger', 'Remove member ' + who);
    confirm.addEventListener('click', action(confirm, function () { return removeMember(member, select.value); }));
    var cancel = newButton('Cancel', 'secondary', null);
    cancel.addEventListener('click', function () {
      box.remove();
      remove.hidden = false;
      remove.focus();
    });
    box.appendChild(label);
    box.appendChild(select);
    box.appendChild(note);
    box.appendChild(confirm);
    box.appendChild(cancel);
    cell.appendChild(box);
    select.focus();
  });
}

/**
 * Removes `member`, its envelopes and templates going to `transferTo` (docs/api.md#removing-a-member).
 * @param {Member} member
 * @param {string} transferTo
 */
function removeMember(member, transferTo) {
  var receiver = state.members.find(function (candidate) { return candidate.userId === transferTo; });
  /** @type {Schemas['RemoveMemberRequest']} */
  var body = { transferTo: transferTo };
  return api('DELETE', 'organization/members/' + encodeURIComponent(member.userId), { json: body }).then(function () {
    return loadOrganization().then(function () {
      showStatus(member.email + ' is removed: their envelopes and templates are now ' + (receiver ? receiver.email : 'the chosen member') + '’s, and their account is deleted.');
    });
  });
}

export function saveOrganizationName() {
  /** @type {Schemas['UpdateOrganizationRequest']} */
  var body = { name: $('organization-name').value };
  return api('PATCH', 'organization', { json: body }).then(function (response) {
    state.organization = response.body;
    renderOrganization();
    showStatus('The organisation is now named “' + state.organization.name + '”.');
  });
}

function renderInvitations() {
  var rows = $('invitation-rows');
  rows.textContent = '';
  state.invitations.forEach(function (invitation) {
    var row = document.createElement('tr');
    var email = document.createElement('th');
    email.scope = 'row';
    email.textContent = invitation.email;
    row.appendChild(email);
    [invitation.role, formatTime(invitation.expiresAt)].forEach(function (text) {
      var cell = document.createElement('td');
      cell.textContent = text;
      row.appendChild(cell);
    });
    var actions = document.createElement('td');
    actions.className = 'actions';
    var revoke = newButton('Revoke', 'secondary danger-text', 'Revoke the invitation of ' + invitation.email);
    revoke.addEventListener('click', action(revoke, function () { return revokeInvitation(invitation); }));
    actions.appendChild(revoke);
    row.appendChild(actions);
    rows.appendChild(row);
  });
  $('invitation-table').hidden = state.invitations.length === 0;
  $('invitations-empty').hidden = state.invitations.length > 0;
}

export function invite() {
  /** @type {Schemas['CreateOrganizationInvitationRequest']} */
  var body = { email: $('invite-email').value, role: /** @type {Schemas['CreateOrganizationInvitationRequest']['role']} */ ($('invite-role').value) };
  return api('POST', 'organization/invitations', { json: body }).then(function (response) {
    $('invite-form').reset();
    return loadOrganization().then(function () { showStatus('Invitation e-mailed to ' + response.body.email + ' as ' + response.body.role + ', valid until ' + formatTime(response.body.expiresAt) + '.'); });
  });
}

/**
 * @param {Invitation} invitation
 */
function revokeInvitation(invitation) {
  return api('DELETE', 'organization/invitations/' + encodeURIComponent(invitation.id)).then(function () {
    return loadOrganization().then(function () { showStatus('The invitation of ' + invitation.email + ' is revoked: its link no longer works.'); });
  });
}

function renderTransferChoices() {
  var select = $('transfer-member');
  select.textContent = '';
  var others = state.members.filter(function (member) { return member.role !== 'owner'; });
  others.forEach(function (member) {
    var option = document.createElement('option');
    option.value = member.userId;
    option.textContent = (member.name === null ? member.email : member.name + ' <' + member.email + '>') + ' (' + member.role + ')';
    select.appendChild(option);
  });
  select.disabled = others.length === 0;
  reasonFor($('transfer-button'), $('transfer-reason'), others.length === 0 ? 'There is nobody else in the organisation yet: invite someone first.' : null);
}

/** Hands the organisation to the chosen member after a confirmation (docs/api.md#handing-the-organization-over). */
export function transfer() {
  var member = state.members.find(function (candidate) { return candidate.userId === $('transfer-member').value; });
  if (!member) return undefined;
  var who = member.name === null ? member.email : member.name + ' <' + member.email + '>';
  return confirmAction({
    title: 'Hand the organisation over?',
    paragraphs: [who + ' becomes the owner, and you become an admin. Only the new owner can hand it back.'],
    confirm: 'Hand it over',
  }).then(function (confirmed) {
    if (!confirmed) return undefined;
    /** @type {Schemas['TransferOrganizationRequest']} */
    var body = { userId: member.userId };
    return api('POST', 'organization/transfer', { json: body }).then(function () {
      return loadOrganization().then(function () { showStatus(member.email + ' now owns the organisation; you are an admin.'); });
    });
  });
}
