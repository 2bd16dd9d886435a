/**
 * The console (`GET /api/console`) in a real browser, against the local host and the suite's Azurite:
 * register with an invitation code, log in, upload a corpus PDF straight to its SAS URL with a progress
 * bar, edit signers, send, complete, and download the sealed PDF, whose SHA-256 must equal the hash
 * the page shows. Errors of the API appear as their problem `detail`. One screenshot per step goes to
 * `test-output/screenshots/console-*.png`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { launchChromium, screenshot, SCREENSHOT_DIR, waitInPage, watchPage, type PageWatch } from '../support/browser.js';
import { patience } from '../support/patience.js';
import { CORPUS_DIR, startTestService, type TestService } from '../support/service.js';

const CORPUS_FILE = path.join(CORPUS_DIR, 'fill_form.pdf');
/** How long one step may take in the browser, ms (completion seals a PDF): generous, for a machine that others share. */
const STEP_TIMEOUT_MS = patience(60_000);

let env: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let watch: PageWatch;

beforeAll(async () => {
  env = await startTestService();
  browser = await launchChromium();
  context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const blobOrigin = new URL(getServices().storage.blobService.url).origin;
  watch = watchPage(page, [new URL(env.service.apiUrl).origin, blobOrigin]);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await env.close();
});

/** Waits until the element's text contains `text`. */
async function expectText(selector: string, text: string | RegExp): Promise<void> {
  const locator = page.locator(selector);
  await locator.filter({ hasText: text }).waitFor({ state: 'visible' });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('GET /api/console in Chromium', () => {
  test('goes through the whole flow, from registration to the sealed PDF whose SHA-256 matches the one shown', async () => {
    const email = `console-${Date.now()}@example.com`;
    const password = 'correct horse battery';

    await page.goto(`${env.service.apiUrl}/console`);
    await expectText('h1', 'Console');
    await screenshot(page, 'console-01-start');

    // Register: a wrong invitation code first, whose problem detail the page shows.
    await page.getByLabel('E-mail address').first().fill(email);
    await page.getByLabel(/^Password/).first().fill(password);
    await page.getByLabel('Invitation code').fill('inv_not-a-code');
    await page.getByRole('button', { name: 'Register' }).click();
    await expectText('#error', 'The invitation code is invalid, expired or used up.');
    await screenshot(page, 'console-02-register-refused');

    // Then the right one, submitted from the keyboard.
    await page.getByLabel('Invitation code').fill(await env.invitation());
    await page.getByLabel('Invitation code').press('Enter');
    await expectText('#status', `Account created for ${email}`);
    expect(await page.locator('#error').isHidden()).toBe(true);
    await screenshot(page, 'console-03-registered');

    // Log in: the page filled in the address and moved the focus to the password.
    expect(await page.locator('#login-email').inputValue()).toBe(email);
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('login-password');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await expectText('#session-email', email);
    await expectText('#envelopes-empty', 'No envelopes yet');
    await screenshot(page, 'console-04-logged-in');

    // Upload the PDF straight to Blob storage.
    await page.locator('#upload-file').setInputFiles(CORPUS_FILE);
    await page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expectText('#envelope-heading', 'Envelope: fill_form.pdf');
    await expectText('#envelope-status', 'draft');
    expect(await page.locator('#upload-progress').getAttribute('value')).toBe('100');
    expect(await page.locator('#upload-percent').textContent()).toBe('100%');
    expect(await page.locator('#envelope-rows tr').count()).toBe(1);
    const envelopeId = (await page.locator('#envelope-id').textContent())!;
    await screenshot(page, 'console-05-uploaded');

    // The blob holds exactly the file the browser sent.
    const user = await env.api.request('POST', '/Login', { json: { email, password } });
    const envelope = await env.api.request('GET', `/envelopes/${envelopeId}`, { token: user.body.token });
    const uploaded = Buffer.from(await (await fetch(envelope.body.documentUrl)).arrayBuffer());
    expect(sha256(uploaded)).toBe(sha256(await readFile(CORPUS_FILE)));

    // Sending without a signer would be refused by the API: Send is disabled, and the page says why.
    await expect(page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Send', exact: true }).getAttribute('aria-describedby')).resolves.toBe('send-reason');
    await expectText('#send-reason', 'Send needs at least one saved recipient with the role signer');
    await screenshot(page, 'console-06-send-refused');

    // Two signers, one of them a cc.
    await page.getByRole('button', { name: 'Add signer' }).click();
    const first = page.locator('#signer-list fieldset').nth(0);
    await first.getByLabel('Name').fill('Bob Builder');
    // A mistyped address: the page names the field as the form does, not as the API's body does.
    await first.getByLabel('E-mail address').fill('bob@');
    await page.getByRole('button', { name: 'Save signers' }).click();
    await expectText('#error', 'Some of what you entered was not accepted:');
    expect(await page.locator('#error li').allTextContents()).toEqual(['Signer 1, e-mail address: must be a valid e-mail address']);
    await screenshot(page, 'console-06b-signer-refused');
    await first.getByLabel('E-mail address').fill('bob@example.com');
    await page.getByRole('button', { name: 'Add signer' }).click();
    const second = page.locator('#signer-list fieldset').nth(1);
    await second.getByLabel('Name').fill('Carol Copy');
    await second.getByLabel('E-mail address').fill('carol@example.com');
    await second.getByLabel('Role').selectOption('cc');
    await page.getByRole('button', { name: 'Save signers' }).click();
    await expectText('#status', 'Signers saved: 2.');
    await screenshot(page, 'console-07-signers');

    // Changed elsewhere meanwhile (here through the API): saving from the stale page is refused, and
    // the page says so in a sender's words, not with the API's ETag and If-Match.
    const elsewhere = await env.api.request('PUT', `/envelopes/${envelopeId}`, { token: user.body.token, json: { signingOrder: 'sequential' } });
    expect(elsewhere.status).toBe(200);
    await page.getByRole('button', { name: 'Save signers' }).click();
    await expectText('#error', 'This envelope was changed meanwhile (in another tab, or by a recipient). The page now shows it as it is: check it and try again.');
    expect(await page.locator('#error').textContent()).not.toMatch(/ETag|If-Match/);
    await page.getByRole('button', { name: /^Open fill_form\.pdf/ }).click();
    await waitInPage(page, `document.getElementById('signing-order').value === 'sequential'`);

    // The owner seals the draft as it is (a sent envelope completes once its recipients have acted).
    await page.getByRole('button', { name: 'Complete' }).click();
    await expectText('#envelope-status', 'completed');
    const shownHash = (await page.locator('#sealed-hash').textContent())!;
    expect(shownHash).toMatch(/^[0-9a-f]{64}$/);
    await screenshot(page, 'console-09-completed');

    // Download: the file saved is the sealed PDF whose SHA-256 the page showed.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download sealed PDF' }).click()]);
    expect(download.suggestedFilename()).toBe('fill_form-sealed.pdf');
    const saved = path.join(SCREENSHOT_DIR, '..', download.suggestedFilename());
    await download.saveAs(saved);
    const sealed = await readFile(saved);
    expect(sealed.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(sha256(sealed)).toBe(shownHash);
    await expectText('#download-verdict', 'matches the API.');
    expect(await page.locator('#download-hash').textContent()).toBe(shownHash);
    await screenshot(page, 'console-10-downloaded');

    // The service vouches for it.
    const verified = await env.api.request('GET', `/verify/${shownHash}`);
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ envelopeId, documentName: 'fill_form.pdf' });

    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);

    // The link in the owner's "completed" e-mail names this envelope: after logging in, it opens.
    const linked = await context.newPage();
    linked.setDefaultTimeout(STEP_TIMEOUT_MS);
    await linked.goto(`${env.service.apiUrl}/console#envelope=${envelopeId}`);
    await linked.locator('#address-hint').filter({ hasText: 'Log in to open the envelope your link points to.' }).waitFor();
    await linked.locator('#login-email').fill(email);
    await linked.locator('#login-password').fill(password);
    await linked.locator('#login-password').press('Enter');
    await linked.locator('#envelope-heading').filter({ hasText: 'Envelope: fill_form.pdf' }).waitFor();
    expect(await linked.locator('#envelope-id').textContent()).toBe(envelopeId);
    expect(await linked.locator('#status').textContent()).toBe(`Logged in as ${email}. Opened fill_form.pdf from your link.`);
    expect(await linked.evaluate('document.activeElement && document.activeElement.id')).toBe('envelope-heading');
    await screenshot(linked, 'console-11-opened-from-link');
    await linked.close();
  }, patience(300_000));

  test('labels every form control and names every button (keyboard and screen-reader users)', async () => {
    // Runs in the page (a string: this project compiles for Node, without the DOM's types).
    const unnamed = await page.evaluate(`(() => {
      const problems = [];
      for (const control of document.querySelectorAll('input, select, textarea')) {
        if (control.labels.length === 0 && !control.getAttribute('aria-label')) problems.push(control.tagName + ' ' + (control.id || control.name));
      }
      for (const button of document.querySelectorAll('button')) {
        if ((button.getAttribute('aria-label') || button.textContent || '').trim() === '') problems.push('button ' + button.id);
      }
      return problems;
    })()`);
    expect(unnamed).toEqual([]);
    expect(await page.locator('#signer-list fieldset').count()).toBe(2);
  });
});
