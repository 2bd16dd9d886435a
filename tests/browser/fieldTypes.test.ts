/**
 * The signing page's number, date and dropdown fields, text rules and the sender's prefilled values
 * in a real Chromium: filled with the keyboard alone (Tab to each field, keys to type, pick a date
 * and choose an option) and on a 390 × 844 touch screen (taps, a decimal keyboard, the native
 * picker and select). A pattern the value breaks is refused by the service and the page says which
 * field and why, marks it invalid and moves the focus to it. Read-only values are shown, cannot be
 * changed, and are not sent. The sealed PDF carries every value (pdftotext). axe-core finds no
 * WCAG 2.2 A or AA violation. Screenshots: `test-output/screenshots/sign-types-*.png`.
 */
import { describe, expect, test } from '@jest/globals';
import type { Locator, Page } from 'playwright-core';
import { expectNoViolations, screenshot, signingPageFile, type SigningPageFile } from '../support/browser.js';
import type { TestService, TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';
import { patience } from '../support/patience.js';

const STEP_TIMEOUT_MS = patience(30_000);

let env: TestService;
let owner: TestUser;
let contract: Buffer;
let openPage: SigningPageFile['open'];
signingPageFile((started) => ({ env, owner, contract, open: openPage } = started));

const field = (type: string, y: number, extra: Record<string, unknown> = {}) => ({ recipient: 0, type, page: 1, x: 0.55, y, width: 0.35, height: 0.03, ...extra });

/** An envelope for one signer with every new kind of field; its id and the signer's token. */
async function envelopeFor(email: string): Promise<{ id: string; token: string; ids: string[] }> {
  const { id, envelope } = await sentEnvelope(env.api, owner, {
    pdf: contract,
    signers: [{ email, name: 'Ada Lovelace' }],
    fields: [
      field('number', 0.3, { label: 'Amount', min: 0, max: 100000 }),
      field('date', 0.35, { label: 'Start date' }),
      field('dropdown', 0.4, { label: 'Wood', options: ['Oak', 'Birch', 'Elm'] }),
      field('text', 0.45, { label: 'Reference', pattern: '[A-Z]{2}[0-9]{2}', maxLength: 4 }),
      field('text', 0.5, { label: 'Terms', value: 'Fixed by sender', readOnly: true }),
      field('checkbox', 0.55, { label: 'Insured', value: true, readOnly: true, width: 0.03 }),
    ],
  });
  return { id, token: await signingTokenFor(owner.userId, id, email), ids: envelope.fields.map((entry: { id: string }) => entry.id) };
}

const open = (mobile: boolean, token: string): Promise<Page> => openPage(token, mobile, STEP_TIMEOUT_MS);

const byLabel = (page: Page, label: string) => page.locator(`.pdf-page .field[aria-label="${label}"]`);

/** Presses Tab until the element named `label` (or with the id `#id`) has the focus (at most 80 presses). */
async function tabTo(page: Page, label: string): Promise<void> {
  for (let press = 0; press < 80; press++) {
    await page.keyboard.press('Tab');
    const focused: (string | null)[] = await page.evaluate(`[document.activeElement?.getAttribute('aria-label') ?? null, '#' + (document.activeElement?.id ?? '')]`);
    if (focused.includes(label)) return;
  }
  throw new Error(`Tab never reached ${label}`);
}

/** Waits until `locator`'s box has stayed put for three animation frames: no scroll or layout change still moving it. */
async function settled(locator: Locator): Promise<void> {
  await locator.evaluate(
    (element, maxFrames) =>
      new Promise<void>((resolve, reject) => {
        // The page's globals, typed here (the tests compile without the DOM library).
        const nextFrame = (callback: () => void) => (globalThis as unknown as { requestAnimationFrame(callback: () => void): number }).requestAnimationFrame(callback);
        let last = '';
        let still = 0;
        let frames = 0;
        const check = () => {
          const box = element.getBoundingClientRect();
          const now = `${box.x} ${box.y} ${box.width} ${box.height}`;
          still = now === last ? still + 1 : 0;
          last = now;
          if (still >= 3) resolve();
          else if (++frames > maxFrames) reject(new Error(`the box of ${element.outerHTML.slice(0, 80)} never settled`));
          else nextFrame(check);
        };
        nextFrame(check);
      }),
    600,
  );
}

/**
 * Taps a field once its box has settled, and waits until the tap has landed: the field has the
 * focus. (A tap the browser holds back to tell it from a double tap lands only then, so the next tap
 * is never taken for the second half of a double tap.)
 */
async function tapField(page: Page, locator: Locator): Promise<void> {
  await settled(locator);
  await locator.tap();
  await page.waitForFunction((element) => (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement === element, await locator.elementHandle());
}

/** The first page's text of the sealed PDF, white space removed. */
async function sealedText(id: string): Promise<string> {
  const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
  expect(completed.status).toBe(200);
  const file = await tempFile(Buffer.from(await (await fetch(completed.body.signedUrl)).arrayBuffer()));
  return (await tool('pdftotext', ['-f', '1', '-l', '1', file, '-'])).stdout.replace(/\s+/g, '');
}

describe('the new field types on the signing page', () => {
  test('on a phone a value field lower than its text draws the text to fit: a 0.020-high dropdown showing "Yearly", a date, a number', async () => {
    const small = { x: 0.1, width: 0.35, height: 0.02 };
    const { token } = await (async () => {
      const email = 'small@example.com';
      const { id } = await sentEnvelope(env.api, owner, {
        pdf: contract,
        signers: [{ email, name: 'Ada Lovelace' }],
        fields: [
          field('dropdown', 0.3, { ...small, label: 'Billing', options: ['Monthly', 'Yearly'], value: 'Yearly' }),
          field('date', 0.35, { ...small, label: 'Renewal', value: '2026-12-01' }),
          field('number', 0.4, { ...small, label: 'Seats', value: '12' }),
        ],
      });
      return { token: await signingTokenFor(owner.userId, id, email) };
    })();
    const page = await open(true, token);
    await byLabel(page, 'Billing').waitFor();
    await expect(byLabel(page, 'Billing').inputValue()).resolves.toBe('Yearly');
    // The text's box (font size × a normal line) within the field's box, and nothing to scroll.
    const fit = (label: string) => byLabel(page, label).evaluate((element) => {
      const style = (globalThis as unknown as { getComputedStyle(element: unknown): Record<string, string> }).getComputedStyle(element);
      const box = element as unknown as { clientHeight: number; scrollHeight: number };
      return { fontSize: parseFloat(style.fontSize!), content: box.clientHeight - parseFloat(style.paddingTop!) - parseFloat(style.paddingBottom!), scrollHeight: box.scrollHeight, clientHeight: box.clientHeight };
    });
    await screenshot(page.locator('.pdf-page').first(), 'sign-types-small-fields-phone');
    for (const label of ['Billing', 'Renewal', 'Seats']) {
      const measured = await fit(label);
      expect(measured.content).toBeLessThan(14); // the field is small: 0.020 of the page's height
      expect({ label, fits: measured.fontSize * 1.2 <= measured.content + 0.5 }).toEqual({ label, fits: true });
      expect({ label, scrolls: measured.scrollHeight > measured.clientHeight }).toEqual({ label, scrolls: false });
    }
    // Another choice is fitted again.
    await byLabel(page, 'Billing').selectOption('Monthly');
    const after = await fit('Billing');
    expect(after.fontSize * 1.2).toBeLessThanOrEqual(after.content + 0.5);
  }, patience(120_000));


  test('keyboard alone: each field reached with Tab and filled with keys; a refused pattern is named and focused; read-only values stay', async () => {
    const { id, token } = await envelopeFor('keys@example.com');
    const page = await open(false, token);

    // The controls a recipient expects: a decimal text box, a date picker, a native select, a text box limited to 4 characters.
    await expect(byLabel(page, 'Amount').getAttribute('inputmode')).resolves.toBe('decimal');
    await expect(byLabel(page, 'Start date').getAttribute('type')).resolves.toBe('date');
    await expect(byLabel(page, 'Wood').evaluate((element) => element.tagName)).resolves.toBe('SELECT');
    await expect(byLabel(page, 'Reference').getAttribute('maxlength')).resolves.toBe('4');
    await expect(byLabel(page, 'Terms').inputValue()).resolves.toBe('Fixed by sender');
    await expect(byLabel(page, 'Terms').evaluate((element) => (element as unknown as { readOnly: boolean }).readOnly)).resolves.toBe(true);
    await expect(byLabel(page, 'Insured').isChecked()).resolves.toBe(true);

    await tabTo(page, 'Amount');
    await page.keyboard.type('250.75');
    await tabTo(page, 'Start date');
    await page.keyboard.type('12242026');
    await tabTo(page, 'Wood');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await tabTo(page, 'Reference');
    await page.keyboard.type('ab12345');
    await expect(byLabel(page, 'Reference').inputValue()).resolves.toBe('ab12');
    // A read-only value cannot be changed: typing into it and pressing Space on the check box change nothing.
    await tabTo(page, 'Terms');
    await page.keyboard.type('zzz');
    await tabTo(page, 'Insured');
    await page.keyboard.press('Space');
    await expect(byLabel(page, 'Terms').inputValue()).resolves.toBe('Fixed by sender');
    await expect(byLabel(page, 'Insured').isChecked()).resolves.toBe(true);
    await expect(byLabel(page, 'Start date').inputValue()).resolves.toBe('2026-12-24');
    await expect(byLabel(page, 'Wood').inputValue()).resolves.toBe('Birch');
    await screenshot(page, 'sign-types-keyboard-filled');

    // No signature field: the signer adopts a typed signature for the certificate, by keyboard.
    await tabTo(page, '#whole-signature-button');
    await page.keyboard.press('Enter');
    await page.locator('#adopt-dialog[open]').waitFor();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Ada Lovelace');
    await page.keyboard.press('Enter');
    await page.locator('#whole-signature-button[aria-pressed="true"]').waitFor();
    await tabTo(page, '#consent');
    await page.keyboard.press('Space');
    // The page translates a refusal by its rule (docs/api.md#errors), never by the English wording:
    // the service's message is reworded on the way, and the page's words stay the same.
    await page.route('**/api/signing/complete', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { errors?: { message: string }[] };
      for (const item of body.errors ?? []) item.message = 'reworded by a later version of the service';
      await route.fulfill({ response, json: body });
    });
    await tabTo(page, '#finish-button');
    await page.keyboard.press('Enter');

    // The service judges the pattern: the page names the field and why, and moves the focus to it.
    const error = page.locator('#finish-error');
    await error.waitFor({ state: 'visible' });
    await expect(error.textContent()).resolves.toMatch(/Reference \(page 1\): Must be in the format the sender asks for\./);
    await expect(page.evaluate(`document.activeElement?.getAttribute('aria-label') ?? null`)).resolves.toBe('Reference');
    await expect(byLabel(page, 'Reference').getAttribute('aria-invalid')).resolves.toBe('true');
    await screenshot(page, 'sign-types-keyboard-refused');
    await expectNoViolations(page, 'refused');
    await page.unroute('**/api/signing/complete');

    await page.keyboard.press('Control+A');
    await page.keyboard.type('AB12');
    await tabTo(page, '#finish-button');
    await page.keyboard.press('Enter');
    await page.locator('#done').waitFor({ state: 'visible' });

    const text = await sealedText(id);
    for (const value of ['250.75', '2026-12-24', 'Birch', 'AB12', 'Fixedbysender']) expect(text).toContain(value);
  });

  test('touch at 390 × 844: taps, a decimal comma, the date picker and the native select', async () => {
    const { id, token } = await envelopeFor('touch@example.com');
    const page = await open(true, token);
    await expectNoViolations(page, 'loaded');

    await byLabel(page, 'Amount').scrollIntoViewIfNeeded();
    await tapField(page, byLabel(page, 'Amount'));
    await page.keyboard.type('12,5');
    await tapField(page, byLabel(page, 'Start date'));
    await byLabel(page, 'Start date').fill('2027-01-31');
    await tapField(page, byLabel(page, 'Wood'));
    await byLabel(page, 'Wood').selectOption('Elm');
    await tapField(page, byLabel(page, 'Reference'));
    await page.keyboard.type('XY99');
    await tapField(page, byLabel(page, 'Insured'));
    await expect(byLabel(page, 'Insured').isChecked()).resolves.toBe(true);
    await screenshot(page, 'sign-types-phone-filled');
    // Each control is a touch target of at least 24 × 24 CSS pixels (WCAG 2.5.8).
    for (const label of ['Amount', 'Start date', 'Wood', 'Reference', 'Terms', 'Insured']) {
      const box = (await byLabel(page, label).boundingBox())!;
      expect({ label, big: box.width >= 24 && box.height >= 24 }).toEqual({ label, big: true });
    }

    // Each tap waits for the box to settle and for what the previous tap did (the dialog open, the
    // signature adopted, the box ticked).
    await page.locator('#whole-signature-button').scrollIntoViewIfNeeded();
    await settled(page.locator('#whole-signature-button'));
    await page.locator('#whole-signature-button').tap();
    await page.locator('#adopt-dialog[open]').waitFor();
    await page.locator('#typed-input').fill('Ada Lovelace');
    await settled(page.locator('#adopt-button'));
    await page.locator('#adopt-button').tap();
    await page.locator('#whole-signature-button[aria-pressed="true"]').waitFor();
    await page.locator('#consent').scrollIntoViewIfNeeded();
    await tapField(page, page.locator('#consent'));
    await page.locator('#consent:checked').waitFor();
    await settled(page.locator('#finish-button'));
    await page.locator('#finish-button').tap();
    await page.locator('#done').waitFor({ state: 'visible' });
    await screenshot(page, 'sign-types-phone-done');

    const text = await sealedText(id);
    for (const value of ['12.5', '2027-01-31', 'Elm', 'XY99', 'Fixedbysender']) expect(text).toContain(value);
  });

  test('after a switch to German: the rules, the read-only note, the title and the placeholder in German', async () => {
    const { token } = await envelopeFor('german@example.com');
    const page = await open(false, token);
    await page.locator('#language').selectOption('de');
    await page.locator('html[lang="de"]').waitFor({ state: 'attached' });
    const description = (label: string) => page.evaluate(`document.getElementById(document.querySelector('.pdf-page .field[aria-label="${label}"]').getAttribute('aria-describedby')).textContent`);
    await expect(description('Amount')).resolves.toBe('Pflichtfeld. Eine Zahl, zum Beispiel 12,50. Von 0 bis 100000. Seite 1.');
    await expect(description('Reference')).resolves.toContain('Höchstens 4 Zeichen. Muss dem vom Absender verlangten Format entsprechen.');
    await expect(description('Terms')).resolves.toContain('Vom Absender ausgefüllt; es kann nicht geändert werden.');
    await expect(byLabel(page, 'Terms').getAttribute('title')).resolves.toBe('Terms: vom Absender festgelegt');
    await expect(byLabel(page, 'Amount').getAttribute('placeholder')).resolves.toBe('Amount (0,00)');
  });
});
