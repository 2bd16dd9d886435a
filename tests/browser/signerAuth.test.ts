/**
 * The signing page's code form (signer authentication) in a real Chromium: an e-mailed one-time code
 * on a 390 × 844 touch screen (the code received by the suite's SMTP server), an access code with the
 * keyboard alone. Nothing of the document shows before the code; a wrong code is announced with the
 * attempts left; axe-core finds no WCAG 2.2 A or AA violation. Screenshots go to
 * `test-output/screenshots/sign-auth-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { expectNoViolations, screenshot, watchPage } from '../support/browser.js';
import { waitForEmails } from '../support/mail.js';
import type { TestService, TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { patience } from '../support/patience.js';
import { startBrowserSession, type BrowserSession } from '../support/browserSession.js';

/** A step's deadline (a page's load, a click's effect), scaled on a busy machine. */
const STEP_TIMEOUT_MS = patience(30_000);

let session: BrowserSession;
let env: TestService;
let browser: Browser;
let owner: TestUser;
let contexts: BrowserContext[];

beforeAll(async () => {
  session = await startBrowserSession({ name: 'Evelyn Boyd' });
  ({ env, browser, owner, contexts } = session);
});
afterAll(async () => {
  await session?.close();
});

const stamp = Date.now().toString(36);
const address = (name: string) => `${name}-${stamp}@example.com`;

/** A page in a context of its own: a 390 × 844 touch screen or a desktop window; `locale` sets the browser's language (`navigator.languages`). */
async function openPage(mobile: boolean, locale?: string): Promise<{ page: Page; watch: ReturnType<typeof watchPage> }> {
  const context = await browser.newContext({
    ...(mobile ? { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 } : { viewport: { width: 1280, height: 900 } }),
    ...(locale === undefined ? {} : { locale }),
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const watch = watchPage(page, [new URL(env.service.apiUrl).origin, new URL(getServices().storage.blobService.url).origin]);
  return { page, watch };
}

describe('the code form of the signing page', () => {
  test('a one-time code on a phone: ask for it, a wrong one announced with the attempts left, the right one opens the document', async () => {
    const email = address('otp-phone');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Otto Phone', authentication: { method: 'emailOtp' } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    const { page, watch } = await openPage(true);
    await page.goto(`${env.service.apiUrl}/sign#${token}`);

    const form = page.locator('#authenticate');
    await form.waitFor({ state: 'visible' });
    expect(await page.locator('#ceremony').isHidden()).toBe(true);
    expect(await page.locator('.pdf-page').count()).toBe(0);
    const code = page.getByLabel('Code from your e-mail');
    expect(await code.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await code.getAttribute('inputmode')).toBe('numeric');
    const sendBox = await page.locator('#auth-send-button').boundingBox();
    expect(sendBox!.height).toBeGreaterThanOrEqual(44);
    expect(sendBox!.x + sendBox!.width).toBeLessThanOrEqual(390);
    await expectNoViolations(page, 'code form, e-mailed code');
    await screenshot(page, 'sign-auth-otp-phone');

    await page.locator('#auth-send-button').tap();
    await page.getByRole('status').filter({ hasText: 'We sent a code' }).waitFor();
    const [mail] = await waitForEmails(email, { subject: /^Your code for / });
    const sent = /\b(\d{6})\b/.exec(mail!.text)![1]!;

    await code.tap();
    await code.fill(sent === '000000' ? '111111' : '000000');
    await page.locator('#auth-submit').tap();
    const alert = page.getByRole('alert').filter({ hasText: 'not right' });
    await alert.waitFor();
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#auth-attempts').textContent()).toBe('Attempts left before this link locks: 4');
    await expectNoViolations(page, 'code form, wrong code');
    await screenshot(page, 'sign-auth-otp-phone-wrong');

    await code.fill(sent);
    await page.locator('#auth-submit').tap();
    await page.locator('#ceremony').waitFor({ state: 'visible' });
    await page.locator('.pdf-page').first().waitFor();
    await screenshot(page, 'sign-auth-otp-phone-open');
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });

  test('an access code with the keyboard alone: Tab to the field, type, Enter', async () => {
    const email = address('code-keys');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Keyes Board', authentication: { method: 'accessCode', code: 'harbour-42' } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    const { page, watch } = await openPage(false);
    await page.goto(`${env.service.apiUrl}/sign#${token}`);
    await page.locator('#authenticate').waitFor({ state: 'visible' });
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('auth-heading');
    expect(await page.locator('#auth-send').isHidden()).toBe(true);
    const code = page.getByLabel('Access code');
    expect(await code.getAttribute('inputmode')).toBeNull();
    await expectNoViolations(page, 'code form, access code');
    await screenshot(page, 'sign-auth-access-code');

    // The language switch rewords the form (the sign catalogue), then English again.
    await page.locator('#language').selectOption('de');
    await page.locator('#auth-heading').filter({ hasText: 'Code eingeben' }).waitFor();
    expect(await page.locator('#auth-label').textContent()).toBe('Zugangscode');
    expect(await page.locator('#auth-submit').textContent()).toBe('Weiter');
    expect(await page.title()).toBe('Code eingeben · Envelope Signing Service');
    await page.locator('#language').selectOption('en');
    await page.locator('#auth-heading').filter({ hasText: 'Enter your code' }).waitFor();
    await page.locator('#auth-heading').focus();

    for (let presses = 0; presses < 10 && (await page.evaluate('document.activeElement && document.activeElement.id')) !== 'auth-code'; presses++) await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('auth-code');
    await page.keyboard.type('harbour-41');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'not right' }).waitFor();
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('auth-code');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('harbour-42');
    await page.keyboard.press('Enter');
    await page.locator('#ceremony').waitFor({ state: 'visible' });
    expect(watch.errors).toEqual([]);
  });

  test('before the code the form speaks the browser\'s language (de-AT: German), after it the recipient\'s own (French)', async () => {
    const email = address('code-browser-language');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Lena Sprache', locale: 'fr', authentication: { method: 'accessCode', code: 'harbour-43' } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    const { page, watch } = await openPage(true, 'de-AT');
    expect(await page.evaluate('navigator.languages')).toEqual(['de-AT']);
    await page.goto(`${env.service.apiUrl}/sign#${token}`);
    await page.locator('#auth-heading').filter({ hasText: 'Code eingeben' }).waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('de');
    expect(await page.locator('#language').inputValue()).toBe('de');
    expect(await page.locator('#auth-label').textContent()).toBe('Zugangscode');
    expect(await page.locator('#auth-hint').textContent()).toBe('Geben Sie den Zugangscode ein, den Ihnen der Absender gegeben hat (nicht in der E-Mail mit dem Link).');
    expect(await page.locator('#auth-submit').textContent()).toBe('Weiter');
    await expectNoViolations(page, 'code form in the browser\'s language');
    await screenshot(page, 'sign-auth-access-code-de-phone');

    await page.getByLabel('Zugangscode').fill('harbour-43');
    await page.locator('#auth-submit').tap();
    await page.locator('#ceremony').waitFor({ state: 'visible' });
    await page.locator('html[lang="fr"]').waitFor({ state: 'attached' });
    expect(await page.locator('#language').inputValue()).toBe('fr');
    expect(watch.errors).toEqual([]);
  });

  test('the browser\'s languages are matched to the supported ones (BCP 47, most preferred first)', async () => {
    const email = address('code-languages');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Mira Match', authentication: { method: 'accessCode', code: 'harbour-44' } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    const cases: [browser: string, page: string, heading: string][] = [
      ['pt-BR', 'pt-BR', 'Digite seu código'],
      ['pt-PT', 'pt-BR', 'Digite seu código'],
      ['zh-HK', 'zh-TW', '輸入驗證碼'],
      ['zh-SG', 'zh-CN', '输入验证码'],
      ['sr', 'en', 'Enter your code'],
    ];
    for (const [browserLocale, pageLocale, heading] of cases) {
      const { page } = await openPage(false, browserLocale);
      await page.goto(`${env.service.apiUrl}/sign#${token}`);
      await page.locator('#authenticate').waitFor({ state: 'visible' });
      await page.locator(`html[lang="${pageLocale}"]`).waitFor({ state: 'attached' });
      expect(await page.locator('#auth-heading').textContent()).toBe(heading);
      await page.context().close();
    }
  });
});
