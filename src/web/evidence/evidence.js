// @ts-check
/**
 * The verify page (`GET /api/verify`, docs/evidence.md#the-verify-page): a dropped or chosen PDF is
 * checked in the browser by the very verifier `npm run verify` runs (`verification.js`, the compiled
 * src/lib/verification/verify.ts, with pkijs, asn1js and canonicalize), which reads the file's
 * embedded `audit.json` and its certificate's text itself. The file never leaves the browser; with the
 * box ticked, the online checks ask this origin (its seal record and its public log) about the file's
 * SHA-256 and its audit trail head.
 *
 * The page speaks every language the signing page does, with the signing page's own messages
 * (`i18n.js`, its catalogues `messages-<locale>.json`, served beside this script): the language of
 * `?lang=`, else the closest to the browser's, and a switch. The checks' names and reasons stay as
 * the verifier writes them, in English, as `npm run verify` prints them (docs/api.md#the-verifier).
 */
import { addLanguageOptions, fillRich, isSupported, locale, localiseDocument, preferredLocale, t, useLocale } from './i18n.js';

/** @param {string} id */
const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const BASE = new URL('./assets/', new URL('/api/verify/', window.location.origin));

/**
 * @typedef {{ name: string, passed: boolean, reason: string }} Check
 * @typedef {{ verifySealedPdf: (bytes: Uint8Array, options: { pdfjs: unknown, online?: string }) => Promise<Check[]>, reportLines: (checks: Check[]) => string[] }} Verifier
 */

/** @type {Promise<[Verifier, unknown]> | null} */
let loading = null;

/** The verifier and PDF.js (its worker from this origin), loaded on first use. */
function load() {
  loading ??= Promise.all([
    import(new URL('verification.js', BASE).href),
    import(new URL('pdf.min.mjs', BASE).href).then(function (pdfjs) {
      pdfjs.GlobalWorkerOptions.workerSrc = new URL('pdf.worker.min.mjs', BASE).href;
      return pdfjs;
    }),
  ]);
  return loading;
}

/** @param {Uint8Array<ArrayBuffer>} bytes */
async function sha256(bytes) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The status line's message, said again in the new language when the language changes. @type {{ key: string, values: Record<string, string | number> } | null} */
let status = null;

/**
 * Says the message `key` in the status line (a live region).
 * @param {string} key
 * @param {Record<string, string | number>} values
 */
function announce(key, values) {
  status = { key, values };
  $('verify-status').textContent = t(key, values);
}

/** The last report shown, drawn again when the language changes. @type {{ file: File, hash: string, checks: Check[] } | null} */
let shown = null;

/**
 * Shows the report: a verdict, the file, then one item per check.
 * @param {File} file
 * @param {string} hash
 * @param {Check[]} checks
 * @param {boolean} [announcing] whether to move the focus to the verdict and announce it (not on a language change)
 */
function show(file, hash, checks, announcing = true) {
  shown = { file, hash, checks };
  const failed = checks.filter((check) => !check.passed).length;
  const report = $('report');
  report.hidden = false;
  report.classList.toggle('report-failed', failed > 0);
  $('report-heading').textContent = failed === 0 ? t('verifyAllPassed', { count: checks.length }) : t('verifySomeFailed', { failed, count: checks.length });
  const size = new Intl.NumberFormat(locale(), { style: 'unit', unit: 'byte', unitDisplay: 'long' }).format(file.size);
  $('report-file').textContent = `${file.name} · ${size} · SHA-256 ${hash}`;
  const list = $('report-checks');
  list.replaceChildren(
    ...checks.map((check) => {
      const item = document.createElement('li');
      item.className = check.passed ? 'check check-pass' : 'check check-fail';
      const verdict = document.createElement('span');
      verdict.className = 'verdict';
      verdict.textContent = t(check.passed ? 'verifyPassed' : 'verifyFailed');
      // The verifier's own words: English, left to right in every page direction.
      const name = document.createElement('strong');
      name.className = 'check-name';
      name.lang = 'en';
      name.dir = 'ltr';
      name.textContent = check.name;
      const reason = document.createElement('p');
      reason.className = 'reason';
      reason.lang = 'en';
      reason.dir = 'ltr';
      reason.textContent = check.reason;
      item.append(verdict, ' ', name, reason);
      return item;
    }),
  );
  if (!announcing) return;
  $('report-heading').focus();
  announce(failed === 0 ? 'verifyStatusPassed' : 'verifyStatusFailed', { file: file.name, failed, count: checks.length });
}

/** @param {File} file */
async function verify(file) {
  announce('verifyChecking', { file: file.name });
  $('report').hidden = true;
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const [verifier, pdfjs] = await load();
    const online = /** @type {HTMLInputElement} */ ($('verify-online')).checked ? { online: window.location.origin } : {};
    const checks = await verifier.verifySealedPdf(bytes, { pdfjs, ...online });
    show(file, await sha256(bytes), checks);
  } catch (error) {
    announce('verifyError', { message: error instanceof Error ? error.message : String(error) });
  }
}

/** Code elements for the rich messages' tags (`<command>`, `<doc>`): commands and paths are never translated. */
function code() {
  return (/** @type {string} */ text) => {
    const element = document.createElement('code');
    element.textContent = text;
    element.dir = 'ltr';
    return element;
  };
}

/** Puts the page in `tag` (for this page only: nothing is stored), its report included. @param {string} tag */
async function switchLanguage(tag) {
  const now = await useLocale(tag);
  localiseDocument(document);
  document.title = t('pageTitle', { heading: t('verifyHeading') });
  fillRich($('report-by-hand'), 'verifyByHand', { command: code(), doc: code() });
  /** @type {HTMLSelectElement} */ ($('language')).value = now;
  if (shown !== null) show(shown.file, shown.hash, shown.checks, false);
  if (status !== null) announce(status.key, status.values);
}

/** The language switch: every supported language, each by its own name. */
function fillLanguageSwitch() {
  const select = /** @type {HTMLSelectElement} */ ($('language'));
  addLanguageOptions(select);
  select.addEventListener('change', () => void switchLanguage(select.value));
}

const input = /** @type {HTMLInputElement} */ ($('verify-file'));
input.addEventListener('change', function () {
  const file = input.files && input.files[0];
  if (file) verify(file);
});
const zone = $('drop-zone');
zone.addEventListener('dragover', function (event) {
  event.preventDefault();
  zone.classList.add('drop-active');
});
zone.addEventListener('dragleave', function () {
  zone.classList.remove('drop-active');
});
zone.addEventListener('drop', function (event) {
  event.preventDefault();
  zone.classList.remove('drop-active');
  const file = event.dataTransfer && event.dataTransfer.files[0];
  if (file) verify(file);
});

fillLanguageSwitch();
// The language `?lang=` names, else the supported one closest to the browser's preferences.
const asked = new URLSearchParams(window.location.search).get('lang');
const tags = Array.isArray(navigator.languages) && navigator.languages.length > 0 ? navigator.languages : [navigator.language];
void switchLanguage(isSupported(asked) ? asked : preferredLocale(tags));
