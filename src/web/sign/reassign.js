// @ts-check
// Reassignment: a recipient hands its part to someone else.
import { showLocked } from './authentication.js';
import { notifyParent } from './embedded.js';
import { formatDate, t } from './i18n.js';
import { render, sender, showInvalidLink, showMessage } from './screens.js';
import { $, signingApi, state } from './signingSession.js';
/** @typedef {import('./signingSession.js').RecipientView} RecipientView */

// ---- Reassignment --------------------------------------------------------------------------------

/**
 * Offers "Someone else should sign this" when the envelope allows it and the recipient may act.
 * @param {RecipientView} view
 */
export function offerReassignment(view) {
  const role = view.recipient.role;
  $('reassign-offer').hidden = !(view.envelope.allowReassign === true && view.canAct && (role === 'signer' || role === 'approver'));
  $('reassign-button').textContent = t('reassignOffer', { role: role });
  // Codes by text message: the new recipient's come to the number named here (docs/api.md#reassignment).
  const texted = Boolean(view.authentication && view.authentication.method === 'sms');
  $('reassign-phone-label').hidden = !texted;
  $('reassign-phone').hidden = !texted;
  $('reassign-phone').required = texted;
}

/**
 * @param {string} message
 * @param {HTMLElement} [focus]
 */
function reassignError(message, focus) {
  $('reassign-error').textContent = message;
  $('reassign-error').hidden = false;
  if (focus) {
    focus.setAttribute('aria-invalid', 'true');
    focus.focus();
  }
}

/**
 * @param {SubmitEvent} event
 */
async function reassign(event) {
  event.preventDefault();
  ['reassign-name', 'reassign-email', 'reassign-phone', 'reassign-reason'].forEach((id) => $(id).removeAttribute('aria-invalid'));
  $('reassign-error').hidden = true;
  const oneLine = (/** @type {string} */ value) => value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  const name = oneLine($('reassign-name').value);
  const email = $('reassign-email').value.trim();
  const reason = oneLine($('reassign-reason').value);
  if (name === '') return reassignError(t('reassignNameMissing'), $('reassign-name'));
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return reassignError(t('reassignEmailInvalid'), $('reassign-email'));
  if (reason === '') return reassignError(t('reassignReasonMissing'), $('reassign-reason'));
  const phone = $('reassign-phone').hidden ? '' : $('reassign-phone').value.trim();
  if (!$('reassign-phone').hidden && phone === '') return reassignError(t('reassignPhoneMissing'), $('reassign-phone'));
  $('reassign-confirm').disabled = true;
  try {
    const view = await signingApi('POST', 'signing/reassign', phone === '' ? { email: email, name: name, reason: reason } : { email: email, name: name, reason: reason, phone: phone });
    state.view = view;
    $('reassign-dialog').close();
    showReassigned(view, { name: name, email: email });
  } catch (error) {
    if (error.status === 401 || error.status === 423) {
      $('reassign-dialog').close();
      if (error.status === 401) showInvalidLink();
      else showLocked();
      return notifyParent('error', null);
    }
    if (error.status === 409 && error.problem && error.problem.type === 'urn:problem:recipient-exists') return reassignError(error.message, $('reassign-email'));
    if (error.status === 409 && error.problem && error.problem.type === 'urn:problem:recipient-limit') return reassignError(error.message, null);
    if (error.status === 403 || error.status === 409) {
      $('reassign-dialog').close();
      try {
        render(await signingApi('GET', 'signing'));
      } catch (again) {
        if (again.status === 401) { showInvalidLink(); notifyParent('error', null); }
      }
      return;
    }
    const field = error.problem && Array.isArray(error.problem.errors) && error.problem.errors[0] ? error.problem.errors[0].path : '';
    reassignError(error.message, field === 'email' ? $('reassign-email') : field === 'name' ? $('reassign-name') : field === 'reason' ? $('reassign-reason') : field === 'phone' ? $('reassign-phone') : null);
  } finally {
    $('reassign-confirm').disabled = false;
  }
}

/**
 * The recipient handed its part on: nothing more to do here.
 * @param {RecipientView} view
 * @param {{ name: string, email: string }} [to]
 */
export function showReassigned(view, to) {
  state.screen = () => showReassigned(view, to);
  const documentName = view.envelope.documentName;
  const lines = [
    to
      ? t('reassignedTo', { role: view.recipient.role, name: to.name, email: to.email, document: documentName })
      : t('reassignedOn', { document: documentName, date: formatDate(view.recipient.actedAt) }),
    t('reassignedWhat', { sender: sender(view.envelope) }),
  ];
  showMessage(t('reassignedHeading'), lines);
}

export function wireReassignment() {
  $('reassign-button').addEventListener('click', () => {
    $('reassign-error').hidden = true;
    $('reassign-dialog').showModal();
    $('reassign-name').focus();
  });
  $('reassign-form').addEventListener('submit', reassign);
  $('reassign-cancel').addEventListener('click', () => {
    $('reassign-dialog').close();
    $('reassign-button').focus();
  });
}
