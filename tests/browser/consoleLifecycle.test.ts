/**
 * The console's lifecycle controls in a real browser, against the local host and the suite's Azurite:
 * the expiry and reminder settings of a draft, voiding a sent envelope, deleting a draft and purging a
 * finished envelope's documents, each after a confirmation that says what is lost; and API refusals
 * shown in words a sender understands. Screenshots go to `test-output/screenshots/console-lifecycle-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SUPPORTED_LOCALES } from '../../src/lib/i18n/locales.js';
import { getServices } from '../../src/lib/services.js';
import { expectNoViolations, launchChromium, type PageWatch, screenshot, watchPage } from '../support/browser.js';
import { corpusPdf, createEnvelopeWithDocument, startTestService, type TestService, type TestUser } from '../support/service.js';
import { storedEnvelope } from '../support/signing.js';
import { refreshEnvelopeList } from '../support/consoleSession.js';
import { patience } from '../support/patience.js';

/** How long one step may take in the browser, ms. */
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
  context = await browser.newContext({ viewport: { width: 1100, height: 900 }, timezoneId: 'Europe/Berlin' });
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

/** Waits for `text` in `selector`; on timeout, the error says what the page's status and error lines showed instead. */
async function expectText(selector: string, text: string | RegExp): Promise<void> {
  try {
    await page.locator(selector).filter({ hasText: text }).first().waitFor({ state: 'visible' });
  } catch (error) {
    const shown = async (id: string) => JSON.stringify(await page.locator(id).textContent({ timeout: 1_000 }).catch(() => null));
    // A control the console disabled is an action still waiting for its answer.
    const busy = await page.evaluate(`[...document.querySelectorAll('button[id]:disabled')].filter((button) => button.offsetParent !== null).map((button) => button.id)`).catch(() => null);
    throw new Error(`${selector} never showed ${String(text)}; the page's #status showed ${await shown('#status')}, its #error ${await shown('#error')}; disabled buttons ${JSON.stringify(busy)}`, { cause: error });
  }
}

const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };

/** A draft with a document and a signer, made over the API, then opened in the console. */
async function openDraft(filename: string): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'), filename);
  expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).status).toBe(200);
  await refreshEnvelopeList(page);
  await page.locator('#envelope-rows tr').filter({ hasText: filename }).getByRole('button').click();
  await expectText('#envelope-heading', `Envelope: ${filename}`);
  return id;
}

const getEnvelope = (id: string) => env.api.request('GET', `/envelopes/${id}`, { token: owner.token });

describe('the console: settings, void, delete and purge', () => {
  test('sets the expiry and reminders of a draft', async () => {
    const id = await openDraft('settings.pdf');
    expect(await page.locator('#expires-at').inputValue()).toBe('');
    expect(await page.locator('#remind-every').inputValue()).toBe('');

    // A local time in Berlin (the browser's zone), ten days ahead at 17:30.
    const ahead = new Date(Date.now() + 10 * 86_400_000);
    const day = ahead.toISOString().slice(0, 10);
    await page.locator('#expires-at').fill(`${day}T17:30`);
    await page.locator('#remind-every').selectOption({ label: 'Every 3 days' });
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expectText('#status', 'Settings saved.');
    await screenshot(page.locator('#settings-form'), 'console-lifecycle-01-settings');

    const envelope = (await getEnvelope(id)).body;
    expect(envelope.remindEveryDays).toBe(3);
    const expected = new Date(await page.evaluate(`new Date('${day}T17:30').toISOString()`) as string);
    expect(envelope.expiresAt).toBe(expected.toISOString());
    await expectText('#status', `Expires ${envelope.expiresAt.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC')}`);

    // Cleared again: no expiry of its own, no reminders.
    await page.locator('#expires-at').fill('');
    await page.locator('#remind-every').selectOption('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expectText('#status', 'No reminders.');
    expect((await getEnvelope(id)).body).toMatchObject({ expiresAt: null, remindEveryDays: null });
  });

  test('lists every supported language by its own name for the envelope and for each recipient, enabled as the service takes locale', async () => {
    const id = await openDraft('languages.pdf');
    const envelope = (await getEnvelope(id)).body;
    const pickers = (await page.evaluate(`[document.getElementById('envelope-locale'), ...document.querySelectorAll('#signer-list select[data-field="locale"]')].map((select) => ({
      disabled: select.disabled,
      value: select.value,
      options: [...select.options].map((option) => [option.value, option.lang, option.textContent]),
    }))`)) as { disabled: boolean; value: string; options: [string, string, string][] }[];
    expect(pickers).toHaveLength(2);
    const [forEnvelope, forAda] = pickers;
    expect(forEnvelope!.options.map(([value]) => value)).toEqual([...SUPPORTED_LOCALES]);
    expect(forEnvelope!.options.find(([value]) => value === 'ja')).toEqual(['ja', 'ja', '日本語 (ja)']);
    expect(forEnvelope!.options.find(([value]) => value === 'de')).toEqual(['de', 'de', 'Deutsch (de)']);
    expect(forAda!.options[0]).toEqual(['', '', "The envelope's language"]);
    expect(forAda!.options.slice(1).map(([value]) => value)).toEqual([...SUPPORTED_LOCALES]);
    // The pickers follow the service: usable once it shows a locale on envelopes.
    const speaks = typeof envelope.locale === 'string';
    expect(pickers.map((picker) => picker.disabled)).toEqual([!speaks, !speaks]);
    expect(forEnvelope!.value).toBe(speaks ? envelope.locale : 'en');
    await expectNoViolations(page, 'language pickers');
  });

  test('shows a refusal in words a sender understands, naming the field as the form does', async () => {
    await openDraft('refusal.pdf');
    const first = page.locator('#signer-list fieldset').nth(0);
    await first.getByLabel('Name').fill('Ada\tLovelace');
    await page.getByRole('button', { name: 'Save signers' }).click();
    await expectText('#error', 'Some of what you entered was not accepted:');
    await expectText('#error li', 'Signer 1, name: holds an invisible character (U+0009');
    await screenshot(page.locator('#error'), 'console-lifecycle-02-refusal');
    await first.getByLabel('Name').fill('Ada Lovelace');
  });

  test('voids a sent envelope after a confirmation, then purges its documents after another', async () => {
    const id = await openDraft('void-me.pdf');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await expectText('#envelope-status', 'sent');
    // A sent envelope is not sent again: Send is disabled, and says why.
    expect(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true);
    await expectText('#send-reason', 'Already sent');
    // A sent envelope: no delete, and the page says why.
    expect(await page.locator('#delete').isDisabled()).toBe(true);
    await expectText('#lifecycle-hint', 'void it first');
    expect(await page.locator('#expires-at').isDisabled()).toBe(true);

    // Cancel changes nothing.
    await page.getByRole('button', { name: 'Void…' }).click();
    await page.locator('#confirm-dialog[open]').waitFor();
    await expectText('#confirm-heading', 'Void “void-me.pdf”?');
    await expectText('#confirm-body', 'every signing link stops working');
    await expectNoViolations(page, 'void dialog');
    await screenshot(page, 'console-lifecycle-03-void-dialog', { fullPage: false });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('#confirm-dialog').waitFor({ state: 'hidden' });
    expect((await getEnvelope(id)).body.status).toBe('sent');

    // Voiding asks for a reason (docs/api.md#update-an-envelope): the button waits for one, white space is none.
    await page.getByRole('button', { name: 'Void…' }).click();
    const voidButton = page.getByRole('button', { name: 'Void envelope' });
    expect(await voidButton.isDisabled()).toBe(true);
    const reason = page.getByLabel(/^Reason/);
    await reason.fill('   ');
    expect(await voidButton.isDisabled()).toBe(true);
    await reason.fill('  Wrong counterparty on page 2  ');
    expect(await voidButton.isDisabled()).toBe(false);
    await voidButton.click();
    await expectText('#envelope-status', 'voided');
    await expectText('#status', 'Envelope voided');
    expect((await getEnvelope(id)).body).toMatchObject({ status: 'voided', voidedReason: 'Wrong counterparty on page 2' });

    const { blobName } = await storedEnvelope(owner.userId, id);
    await page.getByRole('button', { name: 'Delete documents…' }).click();
    await expectText('#confirm-heading', 'Delete the documents of “void-me.pdf”?');
    await expectText('#confirm-body li', 'the copy that was sent for signing');
    await expectText('#confirm-body', 'Kept: the envelope’s details, its history');
    await screenshot(page, 'console-lifecycle-04-purge-dialog', { fullPage: false });
    await page.getByRole('button', { name: 'Delete documents', exact: true }).click();
    await expectText('#status', 'were deleted; its history and SHA-256 stay.');
    await expectText('#envelope-purged', 'the documents are gone');
    await expectText('#fields-note', 'The documents of this envelope were deleted');
    expect(await page.locator('#delete').isDisabled()).toBe(true);
    await expectText('#envelope-rows tr', 'documents deleted');
    await screenshot(page, 'console-lifecycle-05-purged');

    expect((await getEnvelope(id)).body).toMatchObject({ status: 'voided', documentUrl: null, purgedAt: expect.any(String) });
    const { containers } = getServices().storage;
    expect([await containers.documents.getBlockBlobClient(blobName).exists(), await containers.originals.getBlockBlobClient(blobName).exists()]).toEqual([false, false]);
  });

  test('deletes a draft after a confirmation that says what is lost', async () => {
    const id = await openDraft('delete-me.pdf');
    await page.getByRole('button', { name: 'Delete draft…' }).click();
    await expectText('#confirm-heading', 'Delete the draft “delete-me.pdf”?');
    await expectText('#confirm-body li', 'its history (audit trail)');
    await page.getByRole('button', { name: 'Delete draft', exact: true }).click();
    await expectText('#status', 'Draft delete-me.pdf deleted.');
    expect(await page.locator('#envelope').isHidden()).toBe(true);
    expect(await page.locator('#envelope-rows tr').filter({ hasText: 'delete-me.pdf' }).count()).toBe(0);
    expect((await getEnvelope(id)).status).toBe(404);
  });

  test('the confirmation fits a phone (390 px)', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await openDraft('phone.pdf');
    await page.getByRole('button', { name: 'Delete draft…' }).click();
    await page.locator('#confirm-dialog[open]').waitFor();
    // Nothing wider than the phone: wide tables scroll inside their own box.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const box = (await page.locator('#confirm-dialog').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await screenshot(page, 'console-lifecycle-06-phone-dialog', { fullPage: false });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.setViewportSize({ width: 1100, height: 900 });
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);
  });
});
