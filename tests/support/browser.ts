/**
 * Browser tests: Debian's Chromium driven by playwright-core (no browser download), screenshots under
 * `test-output/screenshots/` (git-ignored), and a watch on every page for what the pages promise not
 * to do: requests to origins other than the API's and Blob storage's, Content-Security-Policy
 * violations, and script errors.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { startTestService, type TestService, type TestUser } from './service.js';
import { waitUntil } from './patience.js';

/** Where the screenshots of the browser tests go. */
export const SCREENSHOT_DIR = path.resolve(process.cwd(), 'test-output/screenshots');

export { chromiumExecutable, launchChromium } from './chromium.js';

/** What a page did that it should not have. */
export interface PageWatch {
  /** Requests to origins outside `allowedOrigins`. */
  foreignRequests: string[];
  /** Console messages about the Content-Security-Policy, and page errors. */
  errors: string[];
}

/**
 * Records, for the life of `page`, every request to an origin outside `allowedOrigins` and every
 * CSP violation or uncaught script error.
 */
export function watchPage(page: Page, allowedOrigins: string[]): PageWatch {
  const watch: PageWatch = { foreignRequests: [], errors: [] };
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return;
    if (!allowedOrigins.includes(url.origin)) watch.foreignRequests.push(request.url());
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) watch.errors.push(message.text());
  });
  page.on('pageerror', (error) => watch.errors.push(`${error.name}: ${error.message}`));
  return watch;
}

/**
 * Saves a screenshot of the whole page (or, with `fullPage: false`, of what the viewport shows), or
 * of one element, as `test-output/screenshots/<name>.png`.
 */
export async function screenshot(target: Page | Locator, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  if ('goto' in target) await target.screenshot({ path: file, fullPage: options.fullPage ?? true });
  else await target.screenshot({ path: file });
  return file;
}

/** A rectangle as fields measure it: fractions 0 to 1 of the shown page, origin top-left (docs/api.md#fields). */
export interface PageRect {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Where the contract of {@link contractPdf} has its lines to fill in (A4, two pages): on page 2, one
 * block per party (`0`, `1`, `2`) with a signature line, a name line, a title line and a date line;
 * on page 1, an initials box at the foot.
 */
export const AGREEMENT_LAYOUT = {
  initials: { page: 1, x: 0.74, y: 0.9, width: 0.16, height: 0.045 },
  party(index: number) {
    const top = 0.4 + index * 0.19;
    return {
      signature: { page: 2, x: 0.08, y: top + 0.03, width: 0.42, height: 0.075 },
      name: { page: 2, x: 0.56, y: top + 0.065, width: 0.36, height: 0.04 },
      title: { page: 2, x: 0.08, y: top + 0.125, width: 0.42, height: 0.035 },
      date: { page: 2, x: 0.56, y: top + 0.125, width: 0.36, height: 0.035 },
    } satisfies Record<string, PageRect>;
  },
} as const;

const CLAUSES = [
  ['Purpose', 'The parties wish to explore a business relationship in connection with the design of a calculating engine (the “Purpose”), and in doing so each may disclose Confidential Information to the other.'],
  ['Confidential Information', 'Confidential Information means any information disclosed by one party to the other, directly or indirectly, in writing, orally or by inspection of tangible objects, that is marked confidential or that a reasonable person would understand to be confidential.'],
  ['Obligations', 'The receiving party shall hold the Confidential Information in strict confidence, use it only for the Purpose, and disclose it only to those of its employees and advisers who need to know it for the Purpose and who are bound by duties of confidentiality no less protective than these.'],
  ['Exclusions', 'These obligations do not apply to information that is or becomes public through no fault of the receiving party, that the receiving party knew before disclosure, or that it develops independently without use of the Confidential Information.'],
  ['Term', 'This agreement takes effect on the date of the last signature and remains in force for three years. The duty of confidentiality survives its end for a further two years.'],
  ['Return of materials', 'On request, the receiving party shall promptly return or destroy all documents and copies containing Confidential Information, and confirm in writing that it has done so.'],
  ['No licence', 'Nothing in this agreement grants either party any rights in or to the other party’s Confidential Information, except the limited right to use it for the Purpose.'],
  ['Governing law', 'This agreement is governed by the laws of England and Wales, and the courts of London have exclusive jurisdiction over any dispute arising from it.'],
  ['Entire agreement', 'This agreement is the entire agreement between the parties on its subject and replaces any earlier understanding. It may be signed electronically and in counterparts.'],
];

/**
 * A two-page A4 contract (a mutual non-disclosure agreement) printed to PDF by Chromium, with lines
 * to sign at {@link AGREEMENT_LAYOUT}: a realistic document for the signing page and the console.
 * @param parties the names printed under the three signature blocks
 */
export async function contractPdf(browser: Browser, parties: readonly [string, string, string]): Promise<Buffer> {
  const box = (rect: PageRect, content = '') =>
    `<div class="line" style="left:${rect.x * 210}mm;top:${rect.y * 297}mm;width:${rect.width * 210}mm;height:${rect.height * 297}mm">${content}</div>`;
  const clauses = (from: number, to: number) =>
    CLAUSES.slice(from, to)
      .map(([title, text], index) => `<h2>${from + index + 1}. ${title}</h2><p>${text}</p>`)
      .join('');
  const blocks = parties
    .map((party, index) => {
      const block = AGREEMENT_LAYOUT.party(index);
      return (
        `<div class="party" style="top:${(0.4 + index * 0.19) * 297}mm">Party ${index + 1}: ${party}</div>` +
        box(block.signature) +
        `<div class="caption" style="left:${block.signature.x * 210}mm;top:${(block.signature.y + block.signature.height) * 297 + 0.8}mm">Signature</div>` +
        box(block.name) +
        `<div class="caption" style="left:${block.name.x * 210}mm;top:${(block.name.y + block.name.height) * 297 + 0.8}mm">Name</div>` +
        box(block.title) +
        `<div class="caption" style="left:${block.title.x * 210}mm;top:${(block.title.y + block.title.height) * 297 + 0.8}mm">Title</div>` +
        box(block.date) +
        `<div class="caption" style="left:${block.date.x * 210}mm;top:${(block.date.y + block.date.height) * 297 + 0.8}mm">Date</div>`
      );
    })
    .join('');
  const html = `<!doctype html><html><head><meta charset="utf-8"><style>
    @page { size: A4; margin: 0; }
    body { margin: 0; font: 10.5pt/1.45 "DejaVu Serif", Georgia, serif; color: #111; }
    .page { position: relative; width: 210mm; height: 297mm; overflow: hidden; page-break-after: always; }
    .text { position: absolute; left: 18mm; right: 18mm; top: 18mm; }
    h1 { font-size: 17pt; text-align: center; margin: 0 0 4mm; letter-spacing: 0.02em; }
    .parties { text-align: center; margin: 0 0 6mm; }
    h2 { font-size: 11pt; margin: 4mm 0 1mm; }
    p { margin: 0 0 2mm; text-align: justify; }
    .line { position: absolute; border-bottom: 0.3mm solid #222; }
    .caption, .party { position: absolute; font: 8pt/1 "DejaVu Sans", Arial, sans-serif; color: #444; }
    .party { left: 16.8mm; font: bold 9.5pt/1 "DejaVu Sans", Arial, sans-serif; color: #111; }
    .foot { position: absolute; left: 18mm; bottom: 10mm; font: 8pt "DejaVu Sans", Arial, sans-serif; color: #555; }
  </style></head><body>
    <div class="page"><div class="text">
      <h1>Mutual Non-Disclosure Agreement</h1>
      <p class="parties">between ${parties.join(', ')}</p>
      ${clauses(0, 6)}
    </div>
    ${box(AGREEMENT_LAYOUT.initials)}<div class="caption" style="left:${AGREEMENT_LAYOUT.initials.x * 210}mm;top:${(AGREEMENT_LAYOUT.initials.y - 0.018) * 297}mm">Initials</div>
    <div class="foot">Mutual Non-Disclosure Agreement · page 1 of 2</div></div>
    <div class="page"><div class="text">${clauses(6, 9)}<p>Signed by the parties on the dates below.</p></div>
    ${blocks}
    <div class="foot">Mutual Non-Disclosure Agreement · page 2 of 2</div></div>
  </body></html>`;
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.setContent(html);
    return await page.pdf({ preferCSSPageSize: true, printBackground: true });
  } finally {
    await context.close();
  }
}

/** The WCAG levels the pages are held to: A and AA of WCAG 2.0, 2.1 and 2.2. */
export const WCAG_AA_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] as const;

/** One axe-core finding: the rule, its impact, and the elements (CSS selectors) that break it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

let axeSource: string | undefined;

/**
 * Runs axe-core (the installed `axe-core` package) on the page as it is now, for the rules of
 * {@link WCAG_AA_TAGS}, and returns what it finds (`[]` when nothing). The library is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern, so the
 * page is checked with its real policy in force.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated once per document: a page checked again (another state of the same page) has it already.
  if (!(await page.evaluate(`typeof window.axe === 'object' && typeof window.axe.run === 'function'`))) {
    axeSource ??= await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.evaluate(axeSource);
  }
  const tags = JSON.stringify(WCAG_AA_TAGS);
  return (await page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ${tags} }, resultTypes: ['violations'] }).then((results) =>
    results.violations.map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, nodes: violation.nodes.map((node) => node.target.join(' ')) })))`)) as AxeViolation[];
}

/**
 * Fails unless axe-core finds nothing on the page as it is now ({@link axeViolations}); `state` names
 * what the page shows, so that a failure says where.
 */
export async function expectNoViolations(page: Page, state: string): Promise<void> {
  // Thrown, not jest's `expect`: the benchmarks import this module outside jest (bench/suites/signingPage.ts).
  const violations = await axeViolations(page);
  if (violations.length > 0) throw new Error(`axe-core found ${violations.length} violation(s) on ${state}:\n${JSON.stringify(violations, null, 2)}`);
}

/**
 * Polls `expression` in the page until it is true; `page.evaluate` is not governed by the page's
 * Content-Security-Policy, as `page.waitForFunction` would be.
 * @param timeoutMs the deadline on a quiet machine, scaled by `patience`
 */
export async function waitInPage(page: Page, expression: string, timeoutMs = 60_000): Promise<void> {
  await waitUntil(async () => Boolean(await page.evaluate(expression)), timeoutMs, `${expression} to be true`, { everyMs: 100 });
}

/** Waits until the signing page has its pages and every one of them is drawn (a short document is drawn whole at once). */
export async function ceremonyReady(page: Page, timeoutMs = 30_000): Promise<void> {
  await page.locator('#pages[data-ready="true"]').waitFor({ state: 'attached' });
  await waitInPage(page, `document.querySelectorAll('.pdf-page').length > 0 && [...document.querySelectorAll('.pdf-page')].every((page) => page.classList.contains('pdf-page-drawn'))`, timeoutMs);
}

/**
 * Opens the signing page for `token` in a fresh context (closed by the caller through `contexts`):
 * on a 390 × 844 touch screen (`mobile`) or a 1280 × 900 desk, in American English, each step
 * allowed `stepTimeoutMs`; resolves once its pages and fields are laid out (`#pages[data-ready]`).
 */
export async function openSigningPage(browser: Browser, contexts: BrowserContext[], apiUrl: string, token: string, mobile: boolean, stepTimeoutMs: number): Promise<Page> {
  const context = await browser.newContext({
    locale: 'en-US',
    viewport: mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    ...(mobile ? { hasTouch: true, isMobile: true, deviceScaleFactor: 2 } : {}),
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(stepTimeoutMs);
  await page.goto(`${apiUrl}/sign#${token}`);
  await page.locator('#pages[data-ready="true"]').waitFor({ state: 'attached' });
  return page;
}

/** What {@link signingPageFile} started for a test file. */
export interface SigningPageFile {
  env: TestService;
  browser: Browser;
  /** An owner named Evelyn Boyd. */
  owner: TestUser;
  /** A contract PDF with a line for each of Ada Lovelace, Grace Hopper and Katherine Johnson ({@link contractPdf}). */
  contract: Buffer;
  /**
   * The signing page for `token` in a fresh context on a 390 × 844 touch screen (`mobile`) or a desk,
   * each step allowed `stepTimeoutMs` ({@link openSigningPage}); the context closes with the file.
   */
  open(token: string, mobile: boolean, stepTimeoutMs: number): Promise<Page>;
}

/**
 * A test file of the signing page: starts a service, Chromium, an owner and the contract before its
 * tests, hands them to `ready`, and closes every context it opened, Chromium and the service after them.
 */
export function signingPageFile(ready: (started: SigningPageFile) => unknown): void {
  let env: TestService | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    const started = (env = await startTestService());
    const launched = (browser = await launchChromium());
    const owner = await started.newUser({ name: 'Evelyn Boyd' });
    const contract = await contractPdf(launched, ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']);
    await ready({
      env: started,
      browser: launched,
      owner,
      contract,
      open: (token, mobile, stepTimeoutMs) => openSigningPage(launched, contexts, started.service.apiUrl, token, mobile, stepTimeoutMs),
    });
  });
  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await browser?.close();
    await env?.close();
  });
}
