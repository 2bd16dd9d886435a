// @ts-check
/**
 * The page a verification link opens (`<PUBLIC_BASE_URL>/api/verify-email#<token>`): posts the token
 * from the fragment to `POST /api/VerifyEmail` and says what came of it. The token never leaves the
 * fragment but for that request's body (no Referer: the page sends none).
 */
/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * @param {string} heading
 * @param {string} body
 * @param {boolean} next whether to show the way on (the console)
 */
function show(heading, body, next) {
  $('verify-heading').textContent = heading;
  $('verify-body').textContent = body;
  $('verify-next').hidden = !next;
  $('verify-heading').focus();
}

async function verify() {
  const token = decodeURIComponent(window.location.hash.slice(1));
  // The token has done its work once read: keep it out of the address bar and history.
  history.replaceState(null, '', window.location.pathname);
  if (token === '') {
    show('This page needs the link from your e-mail', 'Open the verification link in the e-mail you received after creating your account.', false);
    return;
  }
  let response;
  try {
    response = await fetch(new URL('/api/VerifyEmail', window.location.origin), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ token }),
      cache: 'no-store',
      referrerPolicy: 'no-referrer',
    });
  } catch (ignored) {
    show('The service could not be reached', 'Check your connection, then open the link from your e-mail again.', false);
    return;
  }
  let body = null;
  try { body = await response.json(); } catch (ignored) { body = null; }
  if (response.ok) {
    show('Your e-mail address is verified', (body && body.email ? body.email + ' is verified. ' : '') + 'You can now send documents for signature.', true);
  } else {
    show('This link does not work', body && typeof body.detail === 'string' ? body.detail : 'The service answered ' + response.status + '.', true);
  }
}

verify();
