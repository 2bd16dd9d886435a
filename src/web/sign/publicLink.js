// @ts-check
/**
 * The page of a template's public link (`<PUBLIC_BASE_URL>/api/sign/t/<publicId>`, docs/api.md#public-links),
 * in the signing page's styles and languages: what the link is for (`GET /api/public/{publicId}`),
 * then a name and an e-mail address (and the Turnstile widget when the service shows one), posted to
 * `POST /api/public/{publicId}/start`, then the e-mailed code, posted to `.../verify`, whose answer's
 * `signingUrl` the page opens. A link that does not work says why.
 */
import { addLanguageOptions, isSupported, localiseDocument, preferredLocale, t, useLocale } from './i18n.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));

const publicId = decodeURIComponent(window.location.pathname.split('/').pop() || '');
const api = (/** @type {string} */ path) => new URL('/api/public/' + encodeURIComponent(publicId) + path, window.location.origin);

/** What the page knows: the link's facts once read, the address the code went to, the screen to redraw after a language switch. */
const state = {
  /** @type {{ name: string, sender: string, locale: string, turnstileSiteKey: string | null } | null} */
  facts: null,
  email: '',
  /** @type {number | null} */
  attemptsLeft: null,
  /** @type {(() => void) | null} */
  screen: null,
  languageChosen: false,
};

/**
 * Sends JSON to the API.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<{ status: number, body: any, retryAfter: string | null }>}
 */
async function call(method, path, body) {
  const response = await fetch(api(path), {
    method,
    headers: { Accept: 'application/json', ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    cache: 'no-store',
    referrerPolicy: 'no-referrer',
  });
  let parsed = null;
  try { parsed = await response.json(); } catch (ignored) { parsed = null; }
  return { status: response.status, body: parsed, retryAfter: response.headers.get('Retry-After') };
}

/** @param {string} visible the id of the one section to show */
function show(visible) {
  ['loading', 'message', 'start', 'code'].forEach((id) => { $(id).hidden = id !== visible; });
}

/**
 * A link that does not work, or a request refused: a heading and a sentence, by the problem's type.
 * @param {{ status: number, body: any }} answer
 */
function showProblem(answer) {
  const type = answer.body && typeof answer.body.type === 'string' ? answer.body.type.replace('urn:problem:', '') : '';
  const known = { 'public-link-not-found': 'publicNotFound', 'link-expired': 'publicExpired', 'link-exhausted': 'publicExhausted', 'public-link-limit': 'publicLimit', 'rate-limited': 'publicLimit', 'email-quota': 'publicLimit' };
  const key = /** @type {Record<string, string>} */ (known)[type] || (answer.status === 0 ? 'publicOffline' : 'publicFailed');
  state.screen = () => {
    $('message-heading').textContent = t(key + 'Heading');
    $('message-body').textContent = t(key + 'Body');
    document.title = t('pageTitle', { heading: t(key + 'Heading') });
  };
  state.screen();
  show('message');
  $('message-heading').focus();
}

/** The first screen: what the link is for, name and address. */
function showStart() {
  const facts = /** @type {NonNullable<typeof state.facts>} */ (state.facts);
  state.screen = () => {
    $('start-heading').textContent = t('publicHeading', { document: facts.name });
    $('start-intro').textContent = t('publicIntro', { sender: facts.sender });
    document.title = t('pageTitle', { heading: t('publicHeading', { document: facts.name }) });
  };
  state.screen();
  show('start');
}

/** The second screen: the code of the e-mail. */
function showCode() {
  state.screen = () => {
    $('code-sent').textContent = t('publicCodeSent', { email: state.email });
    $('code-attempts').textContent = state.attemptsLeft === null ? '' : t('publicAttemptsLeft', { count: String(state.attemptsLeft) });
    document.title = t('pageTitle', { heading: t('publicCodeHeading') });
  };
  state.screen();
  show('code');
  input('public-code').value = '';
  input('public-code').focus();
}

/**
 * @param {string} id the error box
 * @param {string} text
 */
function fail(id, text) {
  $(id).textContent = text;
  $(id).hidden = text === '';
}

/** The Turnstile token of the widget, `undefined` without one. */
function turnstileToken() {
  const field = /** @type {HTMLInputElement | null} */ (document.querySelector('#turnstile input[name="cf-turnstile-response"]'));
  return field === null || field.value === '' ? undefined : field.value;
}

/** Shows Cloudflare's widget (its script, which the page's policy allows only when the service has a site key). */
function loadTurnstile(/** @type {string} */ siteKey) {
  const box = $('turnstile');
  box.className = 'cf-turnstile';
  box.dataset.sitekey = siteKey;
  box.hidden = false;
  const script = document.createElement('script');
  script.src = 'https://challenges.cloudflare.com/turnstile/v0/api.js';
  script.async = true;
  document.head.appendChild(script);
}

async function requestCode() {
  const name = input('public-name').value.trim();
  const email = input('public-email').value.trim();
  if (name === '' || email === '' || !input('public-email').checkValidity()) {
    fail('start-error', t('publicRequired'));
    return;
  }
  fail('start-error', '');
  /** @type {HTMLButtonElement} */ ($('start-submit')).disabled = true;
  try {
    const token = turnstileToken();
    const answer = await call('POST', '/start', { name, email, ...(token === undefined ? {} : { turnstileToken: token }) });
    if (answer.status === 202) {
      state.email = email.toLowerCase();
      state.attemptsLeft = null;
      showCode();
    } else if (answer.status === 400 || answer.status === 403) {
      fail('start-error', answer.status === 403 ? t('publicCaptcha') : t('publicRequired'));
    } else {
      showProblem(answer);
    }
  } catch (ignored) {
    showProblem({ status: 0, body: null });
  } finally {
    /** @type {HTMLButtonElement} */ ($('start-submit')).disabled = false;
  }
}

async function sendCode() {
  const code = input('public-code').value.replace(/\s/g, '');
  if (!/^\d{6}$/.test(code)) {
    fail('code-error', t('publicCodeShape'));
    return;
  }
  fail('code-error', '');
  /** @type {HTMLButtonElement} */ ($('code-submit')).disabled = true;
  try {
    const answer = await call('POST', '/verify', { email: state.email, code });
    if (answer.status === 201 && answer.body && typeof answer.body.signingUrl === 'string') {
      show('loading');
      $('loading').textContent = t('publicOpening');
      window.location.assign(answer.body.signingUrl);
    } else if (answer.status === 403) {
      state.attemptsLeft = answer.body && typeof answer.body.attemptsLeft === 'number' ? answer.body.attemptsLeft : 0;
      fail('code-error', state.attemptsLeft > 0 ? t('publicWrongCode') : t('publicCodeSpent'));
      if (state.screen) state.screen();
    } else {
      showProblem(answer);
    }
  } catch (ignored) {
    showProblem({ status: 0, body: null });
  } finally {
    /** @type {HTMLButtonElement} */ ($('code-submit')).disabled = false;
  }
}

/** The language switch: every supported language, each by its own name. */
function fillLanguageSwitch() {
  const select = /** @type {HTMLSelectElement} */ ($('language'));
  addLanguageOptions(select);
  select.addEventListener('change', async () => {
    state.languageChosen = true;
    select.value = await useLocale(select.value);
    localiseDocument(document);
    if (state.screen) state.screen();
  });
}

/** The reader's language: the browser's, else the template's. */
function readerLocale() {
  const tags = Array.isArray(navigator.languages) && navigator.languages.length > 0 ? navigator.languages : [navigator.language];
  return preferredLocale(tags);
}

async function main() {
  fillLanguageSwitch();
  const select = /** @type {HTMLSelectElement} */ ($('language'));
  select.value = await useLocale(readerLocale());
  localiseDocument(document);
  $('start-form').addEventListener('submit', (event) => { event.preventDefault(); void requestCode(); });
  $('code-form').addEventListener('submit', (event) => { event.preventDefault(); void sendCode(); });
  $('code-again').addEventListener('click', () => { fail('code-error', ''); showStart(); });
  let answer;
  try {
    answer = await call('GET', '');
  } catch (ignored) {
    showProblem({ status: 0, body: null });
    return;
  }
  if (answer.status !== 200) {
    showProblem(answer);
    return;
  }
  state.facts = answer.body;
  // A reader whose browser speaks none of the supported languages reads the template's.
  if (!state.languageChosen && readerLocale() === 'en' && isSupported(answer.body.locale) && answer.body.locale !== 'en' && !navigator.languages.some((tag) => tag.toLowerCase().startsWith('en'))) {
    select.value = await useLocale(answer.body.locale);
    localiseDocument(document);
  }
  if (typeof answer.body.turnstileSiteKey === 'string') loadTurnstile(answer.body.turnstileSiteKey);
  showStart();
  input('public-name').focus();
}

void main();
