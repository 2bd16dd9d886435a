// @ts-check
// Each recipient's colour in the field editor, and each recipient's status, last e-mail and resend.
import { $, action, api, formatTime, showStatus, state, statusBadge } from './consoleSession.js';
import { openEnvelope } from './envelopes.js';
import { fields } from './fieldEditor.js';
import { viewButton } from './signers.js';
/** @typedef {import('./consoleSession.js').Envelope} Envelope */
/** @typedef {import('./consoleSession.js').Signer} Signer */

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

/**
 * `signers`: whose list gives the colours; default the people of what fields are placed on (an envelope's signers, a template's roles).
 * @param {string} signerId
 * @param {{ id: string }[]} [signers]
 */
export function recipientColor(signerId, signers) {
  signers = signers || (fields.subject ? fields.subject.signers : []);
  var index = signers.findIndex(function (signer) { return signer.id === signerId; });
  return PALETTE[(index < 0 ? 0 : index) % PALETTE.length];
}

/**
 * @param {string} signerId
 */
export function signerById(signerId) {
  return (fields.subject ? fields.subject.signers : []).find(function (signer) { return signer.id === signerId; }) || null;
}

// ---- Recipients' status ------------------------------------------------------------------

/**
 * @param {Signer['lastEmail']} lastEmail
 */
function describeEmail(lastEmail) {
  if (!lastEmail) return 'none yet';
  // `reason: "quota"`: never sent, the owner's daily e-mail quota was used up (docs/api.md#lastemail).
  const reason = lastEmail.reason === 'quota' ? ' (daily e-mail quota used up)' : '';
  return lastEmail.type + ', ' + lastEmail.status + reason + ', ' + formatTime(lastEmail.at);
}

/**
 * Each recipient's status and newest e-mail, with a resend button where a resend is allowed (docs/api.md#resend-an-invitation).
 * @param {Envelope} envelope
 */
export function renderRecipients(envelope) {
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

/**
 * @param {Signer} signer
 */
function resendInvitation(signer) {
  var id = state.envelope.id;
  return api('POST', 'envelopes/' + encodeURIComponent(id) + '/recipients/' + encodeURIComponent(signer.id) + '/resend').then(function () {
    showStatus('A new invitation is on its way to ' + signer.email + '; the link of the older one no longer works.');
    return openEnvelope(id, false);
  });
}
