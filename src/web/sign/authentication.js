// @ts-check
// Signer authentication: the code before the document.
// A recipient with an access code or e-mailed one-time codes sees only who asks it to act until it
// enters its code; five wrong codes lock the link until the sender sends a new one (423).
import { notifyParent } from './embedded.js';
import { t } from './i18n.js';
import { switchLanguage, viewLocale } from './language.js';
import { render, sender, show, showInvalidLink, showMessage } from './screens.js';
import { $, signingApi, state } from './signingSession.js';
/** @typedef {import('./signingSession.js').RecipientView} RecipientView */
/** @typedef {import('./signingSession.js').RestrictedRecipientView} RestrictedRecipientView */

/**
 * The view, or the code form when the recipient must (again) enter its code.
 * @param {RecipientView | RestrictedRecipientView} view
 */
export function showViewOrCode(view) {
  if (needsCode(view)) showAuthentication(view);
  else render(view);
}

/**
 * Whether the view is the restricted one (nothing of the document before the code).
 * @param {RecipientView | RestrictedRecipientView | null} view
 * @returns {view is RestrictedRecipientView}
 */
export function needsCode(view) {
  return Boolean(view && view.authentication && view.authentication.verified === false);
}

/**
 * @param {RestrictedRecipientView} view
 */
export function showAuthentication(view) {
  state.screen = () => relabelAuthentication(view);
  show('authenticate');
  relabelAuthentication(view);
  // One-time codes come by e-mail (`emailOtp`) or text message (`sms`): 6 digits, asked for below.
  const otp = view.authentication.method === 'emailOtp' || view.authentication.method === 'sms';
  state.texted = view.authentication.method === 'sms';
  const code = $('auth-code');
  if (otp) {
    code.setAttribute('inputmode', 'numeric');
    code.setAttribute('pattern', '[0-9]*');
    code.setAttribute('maxlength', '6');
  } else {
    code.removeAttribute('inputmode');
    code.removeAttribute('pattern');
    code.setAttribute('maxlength', '64');
  }
  $('auth-send').hidden = !otp;
  state.attemptsLeft = view.authentication.attemptsLeft;
  showAttemptsLeft(state.attemptsLeft);
  $('auth-heading').focus();
}

/**
 * The code form's words in the page's language (again after a switch of language).
 * @param {RestrictedRecipientView} view
 */
function relabelAuthentication(view) {
  const method = view.authentication.method;
  document.title = t('pageTitle', { heading: t('authHeading') });
  $('auth-request').textContent = t('authRequest', { sender: view.envelope.ownerEmail, document: view.envelope.documentName });
  $('auth-hint').textContent = method === 'sms' ? t('authHintSms') : method === 'emailOtp' ? t('authHintEmailOtp') : t('authHintAccessCode');
  $('auth-label').textContent = method === 'sms' ? t('authLabelSms') : method === 'emailOtp' ? t('authLabelEmailOtp') : t('authLabelAccessCode');
  $('auth-send-button').textContent = state.codeSent ? t('authSendNewCode') : t('authSendCode');
  if (state.attemptsLeft !== undefined) showAttemptsLeft(state.attemptsLeft);
}

/**
 * @param {number} left wrong codes still allowed
 */
function showAttemptsLeft(left) {
  state.attemptsLeft = left;
  $('auth-attempts').textContent = left >= 5 ? '' : t('authAttemptsLeft', { count: left });
}

/**
 * @param {string} message
 */
function authError(message) {
  const error = $('auth-error');
  error.textContent = message;
  error.hidden = false;
  $('auth-code').setAttribute('aria-invalid', 'true');
  $('auth-code').focus();
}

export function showLocked() {
  state.screen = showLocked;
  showMessage(t('lockedHeading'), [t('lockedWhy'), t('lockedWhat')]);
}

/**
 * @param {SubmitEvent} event
 */
async function submitCode(event) {
  event.preventDefault();
  const code = $('auth-code').value.trim();
  $('auth-error').hidden = true;
  $('auth-code').removeAttribute('aria-invalid');
  if (code === '') {
    authError(t('authEmpty'));
    return;
  }
  const button = $('auth-submit');
  button.disabled = true;
  try {
    const view = await signingApi('POST', 'signing/authenticate', { code: code });
    $('auth-code').value = '';
    // Now the recipient's own language is known: the page takes it, unless the reader chose one.
    if (!state.languageChosen) await switchLanguage(viewLocale(view));
    render(view);
  } catch (error) {
    if (error.status === 423 || error.status === 401) {
      if (error.status === 423) showLocked();
      else showInvalidLink();
      notifyParent('error', null);
    } else {
      if (error.problem && typeof error.problem.attemptsLeft === 'number') showAttemptsLeft(error.problem.attemptsLeft);
      authError(error.status === 403 ? t('authWrong') : error.message);
    }
  } finally {
    button.disabled = false;
  }
}

async function sendCode() {
  const button = $('auth-send-button');
  button.disabled = true;
  $('auth-status').textContent = '';
  try {
    await signingApi('POST', 'signing/otp');
    state.codeSent = true;
    $('auth-status').textContent = state.texted ? t('authCodeSentSms') : t('authCodeSent');
    button.textContent = t('authSendNewCode');
    $('auth-code').focus();
  } catch (error) {
    if (error.status === 423 || error.status === 401) {
      if (error.status === 423) showLocked();
      else showInvalidLink();
      notifyParent('error', null);
    }
    else $('auth-status').textContent = error.message;
  } finally {
    button.disabled = false;
  }
}

export function wireAuthentication() {
  $('auth-form').addEventListener('submit', submitCode);
  $('auth-send-button').addEventListener('click', () => { sendCode(); });
  $('auth-code').addEventListener('input', () => $('auth-code').removeAttribute('aria-invalid'));
}
