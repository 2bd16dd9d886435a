/**
 * The console's recipient form takes a mobile number and a delivery by e-mail, text message or both
 * (docs/api.md#delivery, docs/api.md#phone-numbers), and codes by text message
 * (docs/api.md#signer-authentication), in a real browser at a phone's size (390 × 844) and a desk's:
 * what it saves is what the API keeps (the number in E.164), a number is required when texts go to
 * it, a refused number shows the API's words, and nothing is wider than the phone. Screenshots go to
 * `test-output/screenshots/console-sms-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { expectNoViolations, screenshot, type PageWatch } from '../support/browser.js';
import { refreshEnvelopeList, startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, type TestService, type TestUser } from '../support/service.js';

/** How long one step may take in the browser, ms. */
const STEP_TIMEOUT_MS = patience(20_000);

let session: ConsoleSession;
let env: TestService;
let owner: TestUser;
let page: Page;
let watch: PageWatch;

beforeAll(async () => {
  session = await startConsoleSession(STEP_TIMEOUT_MS);
  ({ env, page, watch, owner } = session);
  await page.goto(`${env.service.apiUrl}/console`);
  await page.locator('#login-email').fill(owner.email);
  await page.locator('#login-password').fill(owner.password);
  await page.locator('#login-password').press('Enter');
  await page.locator('#session-email').filter({ hasText: owner.email }).waitFor();
}, patience(60_000));

afterAll(async () => {
  await session?.close();
});

const getEnvelope = async (id: string) => (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;

/** A draft with a document and one e-mail signer, made over the API, then opened in the console. */
async function openDraft(filename: string): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'), filename);
  expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: 'ada@example.com', name: 'Ada Lovelace' }] } })).status).toBe(200);
  await refreshEnvelopeList(page);
  await page.locator('#envelope-rows tr').filter({ hasText: filename }).getByRole('button').click();
  await page.locator('#envelope-heading').filter({ hasText: `Envelope: ${filename}` }).waitFor();
  return id;
}

/** Saves the signers and waits until the API shows the envelope changed. */
async function saveAndWait(id: string): Promise<any> {
  const before = (await getEnvelope(id)).updatedAt;
  await page.getByRole('button', { name: 'Save signers' }).click();
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const envelope = await getEnvelope(id);
    if (envelope.updatedAt !== before) return envelope;
    if (Date.now() > deadline) throw new Error(`the signers were never saved; #error shows ${JSON.stringify(await page.locator('#error').textContent())}`);
    await page.waitForTimeout(100);
  }
}

describe('the console: phone and delivery of a recipient', () => {
  test.each([
    ['phone', { width: 390, height: 844 }],
    ['desktop', { width: 1100, height: 900 }],
  ] as const)('on a %s: a number and a delivery by text message, both, or codes by text message, saved as the API keeps them', async (name, viewport) => {
    await page.setViewportSize(viewport);
    const id = await openDraft(`sms-${name}.pdf`);
    const row = page.locator('#signer-list fieldset').nth(0);
    const phone = row.getByLabel('Mobile number');
    const delivery = row.getByLabel('Delivery');
    expect(await delivery.inputValue()).toBe('email');
    expect(await phone.inputValue()).toBe('');
    expect(await phone.getAttribute('type')).toBe('tel');
    // Text messages need a number: the field says so as soon as they are chosen.
    expect(await phone.getAttribute('required')).toBeNull();
    await delivery.selectOption({ label: 'text message' });
    expect(await phone.getAttribute('required')).not.toBeNull();

    await phone.fill('+49 151 2345 6789');
    let saved = await saveAndWait(id);
    expect(saved.signers[0]).toMatchObject({ phone: '+4915123456789', delivery: ['sms'] });
    await page.locator('#signer-list fieldset').nth(0).getByLabel('Mobile number').waitFor();
    // Shown again as saved: the number in E.164, the delivery chosen.
    expect(await page.locator('#signer-list fieldset').nth(0).getByLabel('Mobile number').inputValue()).toBe('+4915123456789');
    expect(await page.locator('#signer-list fieldset').nth(0).getByLabel('Delivery').inputValue()).toBe('sms');

    const again = page.locator('#signer-list fieldset').nth(0);
    await again.getByLabel('Delivery').selectOption({ label: 'e-mail and text message' });
    await again.getByLabel('Identity check').selectOption({ label: 'code by text message' });
    saved = await saveAndWait(id);
    expect(saved.signers[0]).toMatchObject({ phone: '+4915123456789', delivery: ['email', 'sms'], authentication: { method: 'sms' } });
    expect(await page.locator('#signer-list fieldset').nth(0).getByLabel('Delivery').inputValue()).toBe('email,sms');
    expect(await page.locator('#signer-list fieldset').nth(0).getByLabel('Identity check').inputValue()).toBe('sms');

    // Nothing wider than the viewport; the form passes axe.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
    const box = (await page.locator('#signer-list fieldset').nth(0).boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
    await expectNoViolations(page, `the signer form with a phone (${name})`);
    await page.locator('#signer-list fieldset').nth(0).scrollIntoViewIfNeeded();
    await screenshot(page, `console-sms-${name}-signer`, { fullPage: false });
  }, patience(120_000));

  test('a landline is refused with the API\'s words, and nothing is saved', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const id = await openDraft('sms-landline.pdf');
    const row = page.locator('#signer-list fieldset').nth(0);
    await row.getByLabel('Delivery').selectOption({ label: 'text message' });
    await row.getByLabel('Mobile number').fill('+49 30 1234567');
    await page.getByRole('button', { name: 'Save signers' }).click();
    await page.locator('#error').filter({ hasText: /landline/ }).waitFor();
    expect((await getEnvelope(id)).signers[0]).toMatchObject({ delivery: ['email'] });
    expect((await getEnvelope(id)).signers[0].phone).toBeUndefined();
    await screenshot(page, 'console-sms-phone-landline', { fullPage: false });
    await page.setViewportSize({ width: 1100, height: 900 });
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);
  }, patience(60_000));
});
