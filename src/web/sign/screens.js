// @ts-check
// What the signing page shows: one section at a time, and the message that replaces the document
// when the view does not let the recipient act (completed, declined, voided, expired, not its turn).
import { formatDate, formatList, t } from './i18n.js';
import { showDocumentError, startCeremony } from './ceremony.js';
import { download } from './finish.js';
import { showReassigned } from './reassign.js';
import { $, state } from './signingSession.js';
/** @typedef {import('./signingSession.js').RecipientView} RecipientView */

// ---- What to show --------------------------------------------------------------------------------

/**
 * @param {'loading' | 'message' | 'authenticate' | 'ceremony' | 'done'} section
 */
export function show(section) {
  ['loading', 'message', 'authenticate', 'ceremony', 'done'].forEach((id) => { $(id).hidden = id !== section; });
  $('guide').hidden = section !== 'ceremony';
}

/**
 * @param {string} text
 */
export function paragraph(text) {
  const element = document.createElement('p');
  element.textContent = text;
  return element;
}

/**
 * A plain message in place of the document.
 * @param {string} heading
 * @param {(string | Node)[]} lines
 * @param {{ download?: boolean }} [options]
 */
export function showMessage(heading, lines, options) {
  show('message');
  document.title = t('pageTitle', { heading: heading });
  $('message-heading').textContent = heading;
  const body = $('message-body');
  body.textContent = '';
  lines.forEach((line) => body.appendChild(typeof line === 'string' ? paragraph(line) : line));
  $('message-download').hidden = !(options && options.download);
  $('message-heading').focus();
}

export function showInvalidLink() {
  state.screen = showInvalidLink;
  showMessage(t('invalidLinkHeading'), [t('invalidLinkWhy'), t('invalidLinkWhat')]);
}

/**
 * "Ada Lovelace must sign and Bob Builder must approve".
 * @param {RecipientView['waitingFor']} people
 */
function listPeople(people) {
  return formatList(people.map((person) => t('waitingPerson', { name: person.name, role: person.role })));
}

/**
 * Who sent the envelope: "Ada Lovelace <ada@example.com>" when the owner gave a name, else the address.
 * @param {{ ownerName?: string | null, ownerEmail: string }} envelope
 */
export function sender(envelope) {
  return envelope.ownerName ? envelope.ownerName + ' <' + envelope.ownerEmail + '>' : envelope.ownerEmail;
}

/**
 * Decides what the view allows: the ceremony, or the message that explains why not.
 * @param {RecipientView} view
 */
export function render(view) {
  state.view = view;
  state.screen = () => render(view);
  const envelope = view.envelope;
  const recipient = view.recipient;
  const role = recipient.role;
  const documentName = envelope.documentName;
  const acted = ['signed', 'approved', 'viewed', 'declined'].indexOf(recipient.status) >= 0;
  if (recipient.status === 'reassigned') return showReassigned(view);

  if (envelope.status === 'completed') {
    const lines = [t('completedEveryone', { document: documentName })];
    if (acted) lines.push(t('youActedOn', { role: role, date: formatDate(recipient.actedAt) }));
    lines.push(t('completedDownload'));
    showMessage(t('completedHeading'), lines, { download: view.signedUrl !== null });
    return;
  }
  if (envelope.status === 'declined') {
    showMessage(t('declinedHeading'), [
      recipient.status === 'declined'
        ? t('declinedByYou', { date: formatDate(recipient.actedAt), sender: sender(envelope) })
        : t('declinedByOther', { document: documentName, sender: sender(envelope) }),
      t('nothingMore'),
    ]);
    return;
  }
  if (envelope.status === 'voided') {
    showMessage(t('voidedHeading'), [t('voidedBody', { sender: sender(envelope), document: documentName }), t('voidedWhat')]);
    return;
  }
  if (envelope.status === 'expired' || (envelope.status === 'sent' && !view.canAct && envelope.expiresAt !== null && Date.parse(envelope.expiresAt) <= Date.now() && !acted)) {
    showMessage(t('expiredHeading'), [
      t('expiredBody', { document: documentName, date: formatDate(envelope.expiresAt) }),
      t('expiredWhat', { sender: sender(envelope) }),
    ]);
    return;
  }
  if (acted) {
    showMessage(t('alreadyHeading', { role: role }), [
      t('alreadyBody', { role: role, document: documentName, date: formatDate(recipient.actedAt) }),
      t(getsCompletedEmail(recipient) ? 'signedComesByEmail' : 'nothingMore'),
    ]);
    return;
  }
  if (recipient.role === 'cc') {
    showMessage(t('ccHeading'), [t('ccBody', { sender: sender(envelope), document: documentName }), t(getsCompletedEmail(recipient) ? 'signedComesByEmail' : 'nothingMore')]);
    return;
  }
  if (!view.canAct) {
    const lines = view.waitingFor.length > 0
      ? [t('waitingFor', { people: listPeople(view.waitingFor), document: documentName })]
      : [t('waitingForSomeone', { document: documentName })];
    lines.push(t(recipient.delivery.indexOf('embedded') !== -1 ? 'waitingEmbedded' : 'waitingEmail'));
    showMessage(t('notYourTurnHeading'), lines);
    return;
  }
  startCeremony(view).catch(showDocumentError);
}

/**
 * Whether the completed e-mail (with the signed document) reaches the recipient: always by e-mail
 * delivery; an embedded recipient only with `notifyOnCompletion`.
 * @param {RecipientView['recipient']} recipient
 */
export function getsCompletedEmail(recipient) {
  return recipient.delivery.indexOf('embedded') === -1 || recipient.notifyOnCompletion === true;
}
