/**
 * The console shows each error where the sender acted, and disables what cannot succeed with the
 * reason shown (docs/api.md#lifecycle, docs/api.md#completing-as-the-owner); the envelope list names
 * each envelope's recipients and narrows as the sender searches. Real Chromium, the local host and
 * the suite's Azurite. Screenshots: `console-errors-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { expectNoViolations, launchChromium, type PageWatch, screenshot, watchPage } from '../support/browser.js';
import { corpusPdf, createEnvelopeWithDocument, startTestService, type TestService, type TestUser } from '../support/service.js';
import { refreshEnvelopeList } from '../support/consoleSession.js';
import { patience } from '../support/patience.js';

const STEP_TIMEOUT_MS = patience(20_000);

let env: TestService;
let owner: TestUser;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let watch: PageWatch;

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  watch = watchPage(page, [new URL(env.service.apiUrl).origin, new URL(getServices().storage.blobService.url).origin]);
  await page.goto(`${env.service.apiUrl}/console`);
  await page.locator('#login-email').fill(owner.email);
  await page.locator('#login-password').fill(owner.password);
  await page.locator('#login-password').press('Enter');
  await page.locator('#session-email').filter({ hasText: owner.email }).waitFor();
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await env.close();
});

const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };
const grace = { email: 'grace@example.com', name: 'Grace Hopper', role: 'signer' };

/** A draft with a document and `signer`, made over the API, then opened in the console, its pages laid out. */
async function openDraft(filename: string, signer = ada): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'), filename);
  expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [signer] } })).status).toBe(200);
  await refreshEnvelopeList(page);
  await page.locator('#envelope-rows tr').filter({ hasText: filename }).getByRole('button').click();
  await page.locator('#envelope-heading').filter({ hasText: `Envelope: ${filename}` }).waitFor();
  // Its pages laid out: each page is added below the last as it is read, which moves what is below
  // the fields card (the lifecycle buttons and an error next to them) further down meanwhile.
  await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });
  return id;
}

/**
 * `'inside'` when the element lies wholly inside the viewport; else where it is, the viewport and the
 * page's scroll position, so that a failure says how far off it was.
 */
async function placement(selector: string): Promise<string> {
  const box = await page.locator(selector).boundingBox();
  const viewport = page.viewportSize()!;
  if (box !== null && box.y >= 0 && box.x >= 0 && box.y + box.height <= viewport.height && box.x + box.width <= viewport.width) return 'inside';
  const scrollY = await page.evaluate('window.scrollY');
  return `${selector} at ${JSON.stringify(box)}, viewport ${viewport.width}x${viewport.height}, scrollY ${String(scrollY)}`;
}

describe('the console\'s errors and the reasons of disabled buttons', () => {
  test('a refusal far down the page shows next to the button used, focused and announced', async () => {
    const id = await openDraft('far-down.pdf');
    // A long page: the lifecycle buttons 5,000 px below the top.
    await page.evaluate(`{
      const spacer = document.createElement('div');
      spacer.style.height = '5000px';
      document.getElementById('envelope').before(spacer);
    }`);
    // Changed meanwhile (as in another tab): the page's ETag is stale, so Complete is refused.
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { remindEveryDays: 3 } })).status).toBe(200);
    const complete = page.getByRole('button', { name: 'Complete' });
    await complete.scrollIntoViewIfNeeded();
    expect(await page.evaluate('window.scrollY')).toBeGreaterThan(4000);
    await complete.click();
    const error = page.locator('#error');
    await error.filter({ hasText: 'changed meanwhile' }).waitFor({ state: 'visible' });
    await expect(placement('#error')).resolves.toBe('inside');
    await expect(page.evaluate('document.activeElement && document.activeElement.id')).resolves.toBe('error');
    await expect(error.getAttribute('role')).resolves.toBe('alert');
    await screenshot(page, 'console-errors-00-far-down', { fullPage: false });
  });

  test('Complete is disabled, with its reason, while a sent envelope\'s recipients are pending', async () => {
    const id = await openDraft('pending.pdf');
    await expect(page.locator('#complete').isEnabled()).resolves.toBe(true);
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } })).status).toBe(200);
    await page.locator('#envelope-rows tr').filter({ hasText: 'pending.pdf' }).getByRole('button').click();
    await page.locator('#envelope-status').filter({ hasText: 'sent' }).waitFor();
    const complete = page.locator('#complete');
    await expect(complete.isDisabled()).resolves.toBe(true);
    await expect(complete.getAttribute('aria-describedby')).resolves.toBe('complete-reason');
    const reason = page.locator('#complete-reason');
    await expect(reason.isVisible()).resolves.toBe(true);
    await expect(reason.textContent()).resolves.toContain('Ada Lovelace <ada@example.com> (signer, sent)');
    // And a draft with fields: Complete would be refused, so it is disabled and says to send it.
    await openDraft('with-fields.pdf');
    const draft = (await env.api.request('GET', '/envelopes', { token: owner.token })).body.find((item: { documentName: string }) => item.documentName === 'with-fields.pdf');
    expect((await env.api.request('PATCH', `/envelopes/${draft.id}`, { token: owner.token, json: { fields: [{ recipientId: draft.signers[0].id, type: 'signature', page: 1, x: 0.1, y: 0.1, width: 0.2, height: 0.05 }] } })).status).toBe(200);
    await page.locator('#envelope-rows tr').filter({ hasText: 'with-fields.pdf' }).getByRole('button').click();
    await page.locator('#complete-reason').filter({ hasText: 'send it' }).waitFor();
    await expect(complete.isDisabled()).resolves.toBe(true);
    await expectNoViolations(page, 'complete disabled with its reason');
  });

  test('the list names the recipients and narrows to a search by document, recipient or status', async () => {
    await openDraft('grace-contract.pdf', grace);
    const rows = page.locator('#envelope-rows tr');
    await expect(rows.filter({ hasText: 'grace-contract.pdf' }).textContent()).resolves.toContain('Grace Hopper');
    await expect(rows.filter({ hasText: 'pending.pdf' }).textContent()).resolves.toContain('Ada Lovelace');
    const search = page.getByLabel('Search envelopes');
    await search.fill('grace@example');
    await expect(rows.allTextContents().then((texts) => texts.map((text) => text.split('.pdf')[0]))).resolves.toEqual(['grace-contract']);
    await search.fill('hopper');
    await expect(rows.count()).resolves.toBe(1);
    await search.fill('far-down');
    await expect(rows.count()).resolves.toBe(1);
    await search.fill('sent');
    await expect(rows.allTextContents().then((texts) => texts.map((text) => text.split('.pdf')[0]))).resolves.toEqual(['pending']);
    await expect(page.locator('#envelope-search-hint').textContent()).resolves.toBe('1 of 4 loaded envelopes match.');
    await search.fill('');
    await expect(rows.count()).resolves.toBe(4);
    await expectNoViolations(page, 'envelope list with search');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#envelopes').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-errors-01-list-phone', { fullPage: false });
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.locator('#envelopes').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-errors-02-list', { fullPage: false });
    expect(watch).toEqual({ foreignRequests: [], errors: [] });
  });
});
