// @ts-check
// Finishing, declining, and what the page shows afterwards (with the sealed PDF's download).
import { formatDate, t } from './i18n.js';
import { needsCode, showAuthentication, showLocked, showViewOrCode } from './authentication.js';
import { fieldName, isFilled, needsInput, readingOrder } from './ceremony.js';
import { afterEmbeddedAction, notifyParent } from './embedded.js';
import { getsCompletedEmail, paragraph, sender, show, showInvalidLink } from './screens.js';
import { valueFor } from './signatures.js';
import { $, signingApi, state } from './signingSession.js';
import { refusalItems, refusedField, VALUE_TYPES, valueToSend } from './valueFields.js';
/** @typedef {import('./signingSession.js').RecipientView} RecipientView */
/** @typedef {import('./signingSession.js').FieldValue} FieldValue */
/** @typedef {import('./signingSession.js').Entry} Entry */
/** @typedef {import('./signingSession.js').Schemas} Schemas */

// ---- Finish and decline --------------------------------------------------------------------------

/**
 * @param {string} message
 * @param {string[]} [items]
 * @param {HTMLElement | null} [focus]
 */
function finishError(message, items, focus) {
  const box = $('finish-error');
  box.textContent = '';
  box.appendChild(paragraph(message));
  if (items && items.length > 0) {
    const list = document.createElement('ul');
    items.forEach((item) => {
      const entry = document.createElement('li');
      entry.textContent = item;
      list.appendChild(entry);
    });
    box.appendChild(list);
  }
  box.hidden = false;
  if (focus) {
    focus.scrollIntoView({ block: 'center' });
    focus.focus({ preventScroll: true });
  }
}

export async function finish() {
  const view = state.view;
  $('finish-error').hidden = true;
  /** @type {FieldValue[]} */
  const values = [];
  /** @type {Entry[]} */
  const missing = [];
  Array.from(state.entries.values())
    .filter(needsInput)
    .sort((a, b) => readingOrder(a.field, b.field))
    .forEach((entry) => {
      const required = entry.field.required !== false;
      if (required && !isFilled(entry)) {
        missing.push(entry);
        if (entry.element.tagName === 'INPUT' || entry.element.tagName === 'SELECT') entry.element.setAttribute('aria-invalid', 'true');
        return;
      }
      if (entry.field.type === 'checkbox') values.push({ fieldId: entry.field.id, value: entry.value === true });
      else if (VALUE_TYPES.indexOf(entry.field.type) >= 0) values.push({ fieldId: entry.field.id, value: valueToSend(entry) });
      else if (entry.value !== null) values.push({ fieldId: entry.field.id, value: entry.value });
    });
  if (missing.length > 0) {
    finishError(
      t('missingFields', { count: missing.length }),
      missing.map((entry) => t('missingField', { name: fieldName(entry.field), page: entry.field.page })),
      missing[0].element,
    );
    return;
  }
  if (!$('whole-signature').hidden && state.wholeSignature === null) {
    finishError(t('adoptFirst'), [], $('whole-signature-button'));
    return;
  }
  if (state.disclosureShown !== true) {
    finishError(t('disclosureFailed'), [], $('consent'));
    return;
  }
  if (!$('consent').checked) {
    $('consent').setAttribute('aria-invalid', 'true');
    finishError(t('tickConsent', { role: view.recipient.role }), [], $('consent'));
    return;
  }
  /** @type {Schemas['CompleteSigningRequest']} */
  const body = { consent: true, values: view.recipient.role === 'signer' ? values : [] };
  // The language of the disclosure the page showed: the service records that language's text.
  if (state.disclosureLocale !== null) body.locale = /** @type {Schemas['CompleteSigningRequest']['locale']} */ (state.disclosureLocale);
  if (view.recipient.role === 'signer') {
    const signature = state.wholeSignature || (state.adopted.signature ? valueFor(state.adopted.signature, { width: 240, height: 75 }) : null);
    if (signature !== null) body.signature = signature;
  }
  state.lastValues = body.values;
  await act($('finish-button'), 'signing/complete', body, 'finish');
}

/**
 * @param {SubmitEvent} event
 */
export async function decline(event) {
  event.preventDefault();
  // A reason is one line for the API (no line breaks or other control characters): the lines a
  // person typed in the box are joined with spaces.
  const reason = $('decline-reason').value.replace(/[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g, ' ').trim();
  if (reason === '') {
    $('decline-error').textContent = t('declineReasonMissing');
    $('decline-error').hidden = false;
    $('decline-reason').setAttribute('aria-invalid', 'true');
    $('decline-reason').focus();
    return;
  }
  $('decline-dialog').close();
  await act($('decline-button'), 'signing/decline', { reason: reason }, 'decline');
}

/**
 * Sends an action; on success shows what happened, on a 409 shows why the page's state was out of date.
 * @param {HTMLButtonElement} button
 * @param {string} path
 * @param {unknown} body
 * @param {'finish' | 'decline'} kind
 */
async function act(button, path, body, kind) {
  button.disabled = true;
  try {
    const view = await signingApi('POST', path, body);
    state.view = view;
    showDone(view, kind);
    afterEmbeddedAction(view);
  } catch (error) {
    if (error.status === 401 || error.status === 423) {
      if (error.status === 401) showInvalidLink();
      else showLocked();
      return notifyParent('error', null);
    }
    if (error.status === 409 || error.status === 403) {
      try {
        showViewOrCode(await signingApi('GET', 'signing'));
      } catch (again) {
        if (again.status === 401) { showInvalidLink(); notifyParent('error', null); }
      }
      return;
    }
    const refused = refusedField(error.problem, body);
    finishError(refused ? t('refusalHeading') : error.message, refusalItems(error.problem), refused);
  } finally {
    button.disabled = false;
  }
}

/**
 * @param {RecipientView} view
 * @param {'finish' | 'decline'} kind
 */
function showDone(view, kind) {
  state.screen = () => showDone(view, kind);
  show('done');
  const envelope = view.envelope;
  const role = view.recipient.role;
  const body = $('done-body');
  body.textContent = '';
  if (kind === 'decline') {
    $('done-heading').textContent = t('declinedDoneHeading', { document: envelope.documentName });
    body.appendChild(paragraph(t('declinedDoneBody', { sender: sender(envelope) })));
    $('done-download').hidden = true;
  } else {
    $('done-heading').textContent = t('doneHeading', { role: role, document: envelope.documentName });
    body.appendChild(paragraph(t('recordedOn', { date: formatDate(view.recipient.actedAt) })));
    if (envelope.status === 'completed' && view.signedUrl !== null) {
      body.appendChild(paragraph(t(getsCompletedEmail(view.recipient) ? 'doneSealed' : 'doneSealedNoEmail')));
      $('done-download').hidden = false;
    } else {
      body.appendChild(paragraph(t(getsCompletedEmail(view.recipient) ? 'doneWaiting' : 'doneWaitingNoEmail')));
      $('done-download').hidden = true;
    }
  }
  document.title = t('pageTitle', { heading: $('done-heading').textContent });
  $('done-heading').focus();
  window.scrollTo(0, 0);
}

/**
 * Saves the sealed PDF, through a fresh read-only URL.
 * @param {HTMLButtonElement} button
 */
export async function download(button) {
  button.disabled = true;
  $('download-status').textContent = t('downloading');
  try {
    const view = await signingApi('GET', 'signing');
    if (needsCode(view)) return showAuthentication(view);
    if (view.signedUrl === null) throw new Error(t('notReady'));
    const response = await fetch(view.signedUrl, { referrerPolicy: 'no-referrer' });
    if (!response.ok) throw new Error(t('storageAnswered', { status: response.status }));
    const blob = await response.blob();
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([blob], { type: 'application/pdf' }));
    link.download = view.envelope.documentName.replace(/\.pdf$/i, '') + '-signed.pdf';
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 60000);
    $('download-status').textContent = t('downloaded', { file: link.download });
  } catch (error) {
    if (error.status === 401) return showInvalidLink();
    $('download-status').textContent = t('downloadFailed', { message: error.message });
  } finally {
    button.disabled = false;
  }
}
