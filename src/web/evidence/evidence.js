// @ts-check
/**
 * The verify page (`GET /api/verify`, docs/evidence.md#the-verify-page): a dropped or chosen PDF is
 * checked in the browser by the very verifier `npm run verify` runs (`verification.js`, the compiled
 * src/lib/verification/verify.ts, with pkijs, asn1js and canonicalize), PDF.js reading its embedded
 * `audit.json` and its certificate's text. The file never leaves the browser; with the box ticked, the
 * online checks ask this origin (its seal record and its public log) about the file's SHA-256 and its
 * audit trail head.
 */

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

/** @param {string} text */
function announce(text) {
  $('verify-status').textContent = text;
}

/**
 * Shows the report: a verdict, the file, then one item per check.
 * @param {File} file
 * @param {string} hash
 * @param {Check[]} checks
 */
function show(file, hash, checks) {
  const failed = checks.filter((check) => !check.passed).length;
  const report = $('report');
  report.hidden = false;
  report.classList.toggle('report-failed', failed > 0);
  $('report-heading').textContent = failed === 0 ? `All ${checks.length} checks passed` : `${failed} of ${checks.length} checks failed`;
  $('report-file').textContent = `${file.name}, ${file.size.toLocaleString('en')} bytes, SHA-256 ${hash}`;
  const list = $('report-checks');
  list.replaceChildren(
    ...checks.map((check) => {
      const item = document.createElement('li');
      item.className = check.passed ? 'check check-pass' : 'check check-fail';
      const verdict = document.createElement('span');
      verdict.className = 'verdict';
      verdict.textContent = check.passed ? 'PASS' : 'FAIL';
      const name = document.createElement('strong');
      name.className = 'check-name';
      name.textContent = check.name;
      const reason = document.createElement('p');
      reason.className = 'reason';
      reason.textContent = check.reason;
      item.append(verdict, ' ', name, reason);
      return item;
    }),
  );
  $('report-heading').focus();
  announce(`${file.name}: ${failed === 0 ? 'every check passed' : `${failed} check(s) failed`}.`);
}

/** @param {File} file */
async function verify(file) {
  announce(`Checking ${file.name}…`);
  $('report').hidden = true;
  try {
    const bytes = new Uint8Array(await file.arrayBuffer());
    const [verifier, pdfjs] = await load();
    const online = /** @type {HTMLInputElement} */ ($('verify-online')).checked ? { online: window.location.origin } : {};
    const checks = await verifier.verifySealedPdf(bytes, { pdfjs, ...online });
    show(file, await sha256(bytes), checks);
  } catch (error) {
    announce(`The file could not be checked: ${error instanceof Error ? error.message : String(error)}`);
  }
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

// A module of its own (its names are not the other pages' globals).
export {};
