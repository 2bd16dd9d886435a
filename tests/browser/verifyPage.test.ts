/**
 * The verify page (`GET /api/verify`, docs/evidence.md#the-verify-page) in a real Chromium, on a
 * 390 × 844 touch screen and a desktop window: a genuine sealed PDF from the service and the same file
 * with one byte changed, chosen or dropped, get exactly the verdicts and reasons `npm run verify`
 * prints for them; the page fetches nothing from another site, breaks no Content-Security-Policy and
 * axe-core finds no WCAG 2.2 A or AA violation. Screenshots go to `test-output/screenshots/verify-page-*.png`.
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

async function openPage(mobile: boolean): Promise<{ page: Page; watch: ReturnType<typeof watchPage> }> {
  const context = await browser.newContext(mobile ? { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 } : { viewport: { width: 1280, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const watch = watchPage(page, [new URL(env.service.apiUrl).origin]);
  await page.goto(`${env.service.apiUrl}/verify`);
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
});
