/**
 * The verify page (`GET /api/verify`, docs/evidence.md#the-verify-page) in a real Chromium, on a
 * 390 × 844 touch screen and a desktop window: a genuine sealed PDF from the service and the same file
 * with one byte changed, chosen or dropped, get exactly the verdicts and reasons `npm run verify`
 * prints for them; the page fetches nothing from another site, breaks no Content-Security-Policy and
 * axe-core finds no WCAG 2.2 A or AA violation. The page speaks the signing page's languages: German
 * from `?lang=de`, Arabic (right to left) from its switch, Japanese from the browser's preferences,
 * each with the CLI's checks and reasons under its own verdicts, nothing wider than a phone.
 * Screenshots go to `test-output/screenshots/verify-page-*.png`.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectNoViolations, screenshot, watchPage } from '../support/browser.js';
import { startBrowserSession, type BrowserSession } from '../support/browserSession.js';
import { patience } from '../support/patience.js';
import type { TestService, TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile } from '../support/tools.js';

const STEP_TIMEOUT_MS = patience(60_000);

let session: BrowserSession;
let env: TestService;
let browser: Browser;
let owner: TestUser;
let contexts: BrowserContext[];
let genuine: Buffer;
let tampered: Buffer;

/** The lines `npm run verify` prints for `bytes` (the compiled CLI, as `npm run verify` runs it). */
async function cliLines(bytes: Buffer): Promise<{ code: number; lines: string[] }> {
  const file = await tempFile(bytes, 'sealed.pdf');
  return await new Promise((resolve) => {
    execFile(process.execPath, ['dist/src/local/verify.js', file], (error, stdout) => {
      resolve({ code: error === null ? 0 : Number((error as { code?: number }).code), lines: stdout.trimEnd().split('\n') });
    });
  });
}

beforeAll(async () => {
  session = await startBrowserSession({ name: 'Vera Fier' });
  ({ env, browser, owner, contexts } = session);
  const email = `verify-page-${Date.now().toString(36)}@example.com`;
  const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Page Signer' }] });
  const signed = await env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, email), json: { consent: true } });
  expect(signed.status).toBe(200);
  genuine = Buffer.from(await (await fetch((signed.body as { signedUrl: string }).signedUrl)).arrayBuffer());
  tampered = Buffer.from(genuine);
  const at = genuine.toString('latin1').indexOf('/Reason') + 10;
  tampered[at] = tampered[at] === 0x58 ? 0x59 : 0x58;
});
afterAll(async () => {
  await session?.close();
});

async function openPage(mobile: boolean, options: { query?: string; locale?: string } = {}): Promise<{ page: Page; watch: ReturnType<typeof watchPage> }> {
  const context = await browser.newContext({
    ...(mobile ? { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 } : { viewport: { width: 1280, height: 900 } }),
    ...(options.locale === undefined ? {} : { locale: options.locale }),
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const watch = watchPage(page, [new URL(env.service.apiUrl).origin]);
  await page.goto(`${env.service.apiUrl}/verify${options.query ?? ''}`);
  await page.locator('h1').waitFor();
  return { page, watch };
}

/** The report the page shows: `PASS|FAIL name: reason` per check, then the heading. */
async function pageReport(page: Page): Promise<{ lines: string[]; heading: string }> {
  await page.locator('#report').waitFor({ state: 'visible' });
  const lines = await page.locator('#report-checks li').evaluateAll((items) =>
    items.map((item) => `${item.querySelector('.verdict')!.textContent} ${item.querySelector('.check-name')!.textContent}: ${item.querySelector('.reason')!.textContent}`),
  );
  return { lines, heading: (await page.locator('#report-heading').textContent()) ?? '' };
}

/** Drops `bytes` on the drop zone as a file dragged from the desktop would be. */
async function drop(page: Page, bytes: Buffer, name: string): Promise<void> {
  const transfer = await page.evaluateHandle(
    ({ base64, fileName }) => {
      // The page's globals (this function runs in Chromium), typed here for what is used.
      const page = globalThis as unknown as { DataTransfer: new () => { items: { add(file: unknown): void } }; File: new (parts: Uint8Array[], name: string, options: { type: string }) => unknown };
      const data = new page.DataTransfer();
      data.items.add(new page.File([Uint8Array.from(atob(base64), (character) => character.charCodeAt(0))], fileName, { type: 'application/pdf' }));
      return data;
    },
    { base64: bytes.toString('base64'), fileName: name },
  );
  await page.dispatchEvent('#drop-zone', 'drop', { dataTransfer: transfer });
}

describe('the verify page', () => {
  test.each([
    ['phone', true],
    ['desktop', false],
  ])('on a %s, a genuine and a tampered file get the CLI\'s verdicts', async (label, mobile) => {
    const { page, watch } = await openPage(mobile);
    await expectNoViolations(page, `the verify page on a ${label}, empty`);
    await screenshot(page, `verify-page-${label}-empty`, { fullPage: false });

    const expectedGood = await cliLines(genuine);
    expect(expectedGood.code).toBe(0);
    await page.setInputFiles('#verify-file', { name: 'sealed.pdf', mimeType: 'application/pdf', buffer: genuine });
    const good = await pageReport(page);
    expect(good.lines).toEqual(expectedGood.lines.slice(0, -1));
    expect(good.heading).toBe(`All ${good.lines.length} checks passed`);
    await expectNoViolations(page, `the verify page on a ${label}, a genuine file`);
    await screenshot(page, `verify-page-${label}-genuine`);

    const expectedBad = await cliLines(tampered);
    expect(expectedBad.code).toBe(1);
    if (mobile) await page.setInputFiles('#verify-file', { name: 'tampered.pdf', mimeType: 'application/pdf', buffer: tampered });
    else await drop(page, tampered, 'tampered.pdf');
    await page.locator('#report-file', { hasText: 'tampered.pdf' }).waitFor();
    const bad = await pageReport(page);
    expect(bad.lines).toEqual(expectedBad.lines.slice(0, -1));
    expect(bad.lines.some((line) => line.startsWith('FAIL seal signature: '))).toBe(true);
    expect(bad.heading).toMatch(/^\d+ of \d+ checks failed$/);
    await expectNoViolations(page, `the verify page on a ${label}, a tampered file`);
    await screenshot(page, `verify-page-${label}-tampered`);

    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);
  });

  /** The CLI's lines with `PASS`/`FAIL` in the page's words for them. */
  const inWords = (lines: string[], passed: string, failed: string): string[] => lines.map((line) => line.replace(/^PASS /, `${passed} `).replace(/^FAIL /, `${failed} `));

  /** How far the page is wider than its window, px (0: nothing to scroll sideways). */
  const overflow = (page: Page): Promise<number> => page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);

  /** The page's `lang` and `dir`. */
  const language = async (page: Page): Promise<[string | null, string | null]> => [await page.locator('html').getAttribute('lang'), await page.locator('html').getAttribute('dir')];

  test('on a phone, in German from ?lang=de, then in Arabic from the switch: the page\'s words translated, the checks as the CLI prints them', async () => {
    const expected = await cliLines(genuine);
    expect(expected.code).toBe(0);
    const { page, watch } = await openPage(true, { query: '?lang=de' });
    await page.locator('h1', { hasText: 'Ein versiegeltes PDF prüfen' }).waitFor();
    expect(await language(page)).toEqual(['de', 'ltr']);
    expect(await page.title()).toBe('Ein versiegeltes PDF prüfen · Envelope Signing Service');
    expect(await page.locator('#language').inputValue()).toBe('de');
    expect(await page.locator('.drop-title').textContent()).toBe('Versiegeltes PDF hierher ziehen');
    await page.setInputFiles('#verify-file', { name: 'sealed.pdf', mimeType: 'application/pdf', buffer: genuine });
    const german = await pageReport(page);
    expect(german.lines).toEqual(inWords(expected.lines.slice(0, -1), 'OK', 'FEHLER'));
    expect(german.heading).toBe(`Alle ${german.lines.length} Prüfungen bestanden`);
    expect(await page.locator('#report-by-hand code').allTextContents()).toEqual(['npm run verify -- sealed.pdf', 'docs/evidence.md']);
    expect(await page.locator('#verify-status').textContent()).toBe('sealed.pdf: Alle Prüfungen bestanden.');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await expectNoViolations(page, 'the verify page in German on a phone, a genuine file');
    await screenshot(page, 'verify-page-phone-de');

    await page.locator('#language').selectOption('ar');
    await page.locator('h1', { hasText: 'التحقق من ملف PDF مختوم' }).waitFor();
    expect(await language(page)).toEqual(['ar', 'rtl']);
    const arabic = await pageReport(page);
    expect(arabic.lines).toEqual(inWords(expected.lines.slice(0, -1), 'ناجح', 'فاشل'));
    expect(arabic.heading).toBe(`نجحت جميع عمليات التحقق: ${arabic.lines.length}`);
    // The status line too speaks the new language (the file's name isolated in the right-to-left text).
    expect(await page.locator('#verify-status').textContent()).toBe('\u2068sealed.pdf\u2069: نجحت جميع عمليات التحقق.');
    // The verifier's words stay English, left to right, inside the right-to-left page.
    expect(await page.locator('.reason').first().evaluate((element) => [element.getAttribute('lang'), (globalThis as unknown as { getComputedStyle(element: unknown): { direction: string } }).getComputedStyle(element).direction])).toEqual(['en', 'ltr']);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await expectNoViolations(page, 'the verify page in Arabic on a phone, a genuine file');
    await screenshot(page, 'verify-page-phone-ar');

    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);
  });

  test('a browser preferring Japanese gets the page in Japanese', async () => {
    const { page, watch } = await openPage(false, { locale: 'ja-JP' });
    await page.locator('h1', { hasText: '封印された PDF を検証' }).waitFor();
    expect((await language(page))[0]).toBe('ja');
    expect(await page.locator('#language').inputValue()).toBe('ja');
    expect(watch.errors).toEqual([]);
  });
});
