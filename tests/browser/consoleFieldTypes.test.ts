/**
 * The console's placement of the field types `number`, `date` and `dropdown` and its field editor's
 * rules (options, number bounds, text lengths and pattern, prefilled value, read-only), in a real
 * Chromium with the keyboard: placed with "Add field to this page", set in the editor, saved, checked
 * through the API; a pattern that does not compile is refused by the service and the console says so.
 * The file fields (`attachment` with the types it takes and its largest size, `image`), saved and
 * saved again unchanged (docs/api.md#files-from-signers).
 * Screenshots: `console-field-types.png`, `console-file-fields.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { contractPdf, expectNoViolations, launchChromium, screenshot } from '../support/browser.js';
import { patience, waitUntil } from '../support/patience.js';
import { createEnvelopeWithDocument, startTestService, type TestService, type TestUser } from '../support/service.js';

const STEP_TIMEOUT_MS = patience(20_000);

let env: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let owner: TestUser;

beforeAll(async () => {
  env = await startTestService();
  browser = await launchChromium();
  owner = await env.newUser();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await env.close();
});

/** Adds a field of `type` to page 1 from the keyboard. */
async function addField(type: string): Promise<void> {
  await page.locator('#field-type').selectOption(type);
  await page.locator('#field-page').selectOption('1');
  await page.locator('#add-field').focus();
  await page.keyboard.press('Enter');
}

describe('GET /api/console: the new field types', () => {
  test('places number, date and dropdown fields and sets their rules and prefilled values', async () => {
    const contract = await contractPdf(browser, ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']);
    const id = await createEnvelopeWithDocument(env.api, owner, contract, 'lease.pdf');
    const saved = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ name: 'Ada Lovelace', email: 'ada-types@example.com' }] } });
    expect(saved.status).toBe(200);

    await page.goto(`${env.service.apiUrl}/console`);
    await page.locator('#login-email').fill(owner.email);
    await page.locator('#login-password').fill(owner.password);
    await page.locator('#login-password').press('Enter');
    await page.getByRole('button', { name: /^Open lease\.pdf/ }).click();
    await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });
    await expect(page.locator('#field-type option').allTextContents()).resolves.toEqual(expect.arrayContaining(['Number', 'Date', 'Dropdown']));

    await addField('dropdown');
    // The rules, folded away until asked for (the editor stays small); only those a dropdown takes are offered.
    await expect(page.locator('#edit-options').isVisible()).resolves.toBe(false);
    await page.locator('#edit-rules summary').focus();
    await page.keyboard.press('Enter');
    await expect(page.locator('#edit-options').isVisible()).resolves.toBe(true);
    await expect(page.locator('#edit-pattern').isVisible()).resolves.toBe(false);
    await page.locator('#edit-options').fill('Monthly\nYearly\n');
    await page.locator('#edit-value').fill('Yearly');
    await page.locator('#edit-read-only').check();

    await addField('number');
    await expect(page.locator('#edit-options').isVisible()).resolves.toBe(false);
    await page.locator('#edit-min').fill('0');
    await page.locator('#edit-max').fill('2500.5');
    await page.locator('#edit-value').fill('1200.00');

    await addField('date');
    await page.locator('#edit-label').fill('Start date');

    await addField('text');
    await page.locator('#edit-min-length').fill('2');
    await page.locator('#edit-max-length').fill('8');
    await page.locator('#edit-pattern').fill('[A-Z]{2}(');
    await expectNoViolations(page, 'the field types');
    await screenshot(page, 'console-field-types', { fullPage: false });

    // A pattern that does not compile: the service refuses it and the console names the field.
    await page.getByRole('button', { name: 'Save fields' }).click();
    await page.locator('#error').filter({ hasText: /Field 4, pattern: is not a valid regular expression/ }).waitFor();
    await page.locator('#edit-pattern').fill('[A-Z]{2}[0-9]+');
    await page.getByRole('button', { name: 'Save fields' }).click();
    await page.locator('#status').filter({ hasText: 'Fields saved: 4.' }).waitFor();

    const fields = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.fields;
    expect(fields.map((field: { type: string }) => field.type)).toEqual(['dropdown', 'number', 'date', 'text']);
    expect(fields[0]).toMatchObject({ options: ['Monthly', 'Yearly'], value: 'Yearly', readOnly: true });
    expect(fields[1]).toMatchObject({ min: 0, max: 2500.5, value: '1200.00' });
    expect(fields[1]).not.toHaveProperty('readOnly');
    expect(fields[2]).toMatchObject({ label: 'Start date' });
    expect(fields[3]).toMatchObject({ minLength: 2, maxLength: 8, pattern: '[A-Z]{2}[0-9]+' });
  }, 6 * STEP_TIMEOUT_MS);

  test('places a file upload (types and largest size) and a photo field; a size set through the API is kept exactly when saved again', async () => {
    const contract = await contractPdf(browser, ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']);
    const id = await createEnvelopeWithDocument(env.api, owner, contract, 'claim.pdf');
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ name: 'Ada Lovelace', email: 'ada-files@example.com' }] } })).status).toBe(200);

    await page.goto(`${env.service.apiUrl}/console`);
    await page.locator('#login-email').fill(owner.email);
    await page.locator('#login-password').fill(owner.password);
    await page.locator('#login-password').press('Enter');
    await page.getByRole('button', { name: /^Open claim\.pdf/ }).click();
    await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });

    await addField('attachment');
    const summary = page.locator('#edit-rules summary');
    if ((await page.locator('#edit-rules').getAttribute('open')) === null) await summary.click();
    // All three types are ticked by default; the text rules are not offered.
    await expect(page.locator('#edit-rules [data-accept]:checked').count()).resolves.toBe(3);
    await expect(page.locator('#edit-pattern').isVisible()).resolves.toBe(false);
    await page.getByLabel('JPEG').uncheck();
    await page.locator('#edit-max-bytes').fill('2');
    await page.locator('#edit-label').fill('Receipt');

    await addField('image');
    // Placed where the file field is; moved down the page so that neither covers the other.
    await page.locator('#edit-y').fill('55');
    await page.locator('#edit-y').press('Tab');
    await expect(page.locator('#edit-accept-pdf').isVisible()).resolves.toBe(false);
    await expect(page.locator('#edit-max-bytes').isVisible()).resolves.toBe(true);
    await expectNoViolations(page, 'the file fields');
    await screenshot(page, 'console-file-fields', { fullPage: false });
    await page.getByRole('button', { name: 'Save fields' }).click();
    await page.locator('#status').filter({ hasText: 'Fields saved: 2.' }).waitFor();

    const saved = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
    expect(saved.fields.map((field: { type: string }) => field.type)).toEqual(['attachment', 'image']);
    expect(saved.fields[0]).toMatchObject({ label: 'Receipt', accept: ['application/pdf', 'image/png'], maxBytes: 2 * 1024 * 1024 });
    expect(saved.fields[1]).not.toHaveProperty('accept');
    expect(saved.fields[1]).not.toHaveProperty('maxBytes');

    // A limit that is no round number of MiB, set through the API, survives the console's save.
    const fields = saved.fields.map((field: Record<string, unknown>) => (field.type === 'image' ? { ...field, maxBytes: 1_500_000 } : field));
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { fields } })).status).toBe(200);
    await page.getByRole('button', { name: /^Open claim\.pdf/ }).click();
    // Opened again: the heading takes the focus once the envelope as the API now has it is on show.
    await waitUntil(async () => (await page.evaluate("document.activeElement !== null && document.activeElement.id === 'envelope-heading'")) === true, 20_000, 'the envelope opened again');
    await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });
    await page.getByRole('button', { name: 'Photo · Ada Lovelace' }).click();
    await waitUntil(async () => (await page.locator('#edit-max-bytes').inputValue()) === '1.43', 20_000, 'the photo field\'s largest size shown in MiB');
    await page.getByRole('button', { name: 'Save fields' }).click();
    await page.locator('#status').filter({ hasText: 'Fields saved: 2.' }).waitFor();
    const again = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.fields;
    expect(again[0]).toMatchObject({ accept: ['application/pdf', 'image/png'], maxBytes: 2 * 1024 * 1024 });
    expect(again[1]).toMatchObject({ type: 'image', maxBytes: 1_500_000 });
  }, 6 * STEP_TIMEOUT_MS);
});
