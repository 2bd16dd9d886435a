/**
 * The console's placement of the field types `number`, `date` and `dropdown` and its field editor's
 * rules (options, number bounds, text lengths and pattern, prefilled value, read-only), in a real
 * Chromium with the keyboard: placed with "Add field to this page", set in the editor, saved, checked
 * through the API; a pattern that does not compile is refused by the service and the console says so.
 * Screenshot: `console-field-types.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { contractPdf, expectNoViolations, launchChromium, screenshot } from '../support/browser.js';
import { patience } from '../support/patience.js';
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
});
