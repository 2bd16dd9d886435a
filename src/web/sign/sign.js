// @ts-check
// The signing page (GET /api/sign): where a recipient's e-mail link leads.
//
// The link is /api/sign#<token>. The token is read from the fragment (which browsers never send to a
// server), removed from the address bar at once, and kept in this tab's sessionStorage so a reload
// still works. It is sent only as the bearer token of /api/signing. Everything the page loads comes
// from this service; the document and the sealed PDF come from Blob storage through the read-only
// SAS URLs of the recipient's view.
import { t } from './i18n.js';
import { openPdf } from './pdfPages.js';
import { showLocked, showViewOrCode, wireAuthentication } from './authentication.js';
import { goToFinish, nextField } from './ceremony.js';
import { notifyParent } from './embedded.js';
import { decline, download, finish } from './finish.js';
import { fillLanguageSwitch, readerLocale, switchLanguage, viewLocale } from './language.js';
import { wireReassignment } from './reassign.js';
import { showInvalidLink, showMessage } from './screens.js';
import { paintWholeSignature, preparePad, toggleWholeSignature, wireAdoptDialog } from './signatures.js';
import { $, readToken, signingApi, state } from './signingSession.js';

function wire() {
  $('next-field').addEventListener('click', () => {
    if (state.view && state.view.recipient.role !== 'signer') goToFinish();
    else nextField();
  });
  $('finish-button').addEventListener('click', () => { finish(); });
  $('consent').addEventListener('change', () => $('consent').removeAttribute('aria-invalid'));
  $('decline-button').addEventListener('click', () => {
    $('decline-error').hidden = true;
    $('decline-reason').removeAttribute('aria-invalid');
    $('decline-dialog').showModal();
    $('decline-reason').focus();
  });
  $('decline-form').addEventListener('submit', decline);
  $('decline-cancel').addEventListener('click', () => {
    $('decline-dialog').close();
    $('decline-button').focus();
  });
  wireAdoptDialog();
  $('whole-signature-button').addEventListener('click', toggleWholeSignature);
  $('message-download-button').addEventListener('click', () => download($('message-download-button')));
  $('done-download-button').addEventListener('click', () => download($('done-download-button')));
  window.addEventListener('resize', () => { if (!$('draw-panel').hidden) preparePad(); });
}

async function start() {
  wire();
  fillLanguageSwitch();
  // Another link opened in this tab: start again with its token.
  window.addEventListener('hashchange', () => {
    if (window.location.hash.length > 1) {
      readToken();
      window.location.reload();
    }
  });
  paintWholeSignature();
  state.token = readToken();
  wireReassignment();
  if (state.token === null) {
    await switchLanguage(readerLocale());
    notifyParent('error', null);
    state.screen = () => showMessage(t('noLinkHeading'), [t('noLinkBody')]);
    state.screen();
    return;
  }
  wireAuthentication();
  let view;
  try {
    view = await signingApi('GET', 'signing');
  } catch (error) {
    // No view, so no recipient's language: the browser's.
    await switchLanguage(readerLocale());
    if (error.status === 401) showInvalidLink();
    else if (error.status === 423) showLocked();
    else {
      state.screen = () => showMessage(t('loadFailedHeading'), [error.message, t('reloadToRetry')]);
      state.screen();
    }
    notifyParent('error', null);
    return;
  }
  // The document downloads while the page's language loads (the two do not wait for each other).
  if (view.canAct) {
    state.pdfLoading = openPdf(view.documentUrl);
    state.pdfLoading.catch(() => {});
  }
  await switchLanguage(viewLocale(view));
  showViewOrCode(view);
  notifyParent('loaded', view);
}

start();
