/**
 * The page of a public link ([docs/api.md#public-links](../../docs/api.md#public-links)) on a phone
 * (390 × 844, touch) in a real Chromium: it names the template and who asks, fits the screen's width,
 * takes a name and an e-mail address, then the e-mailed code (a wrong one says how many tries are
 * left), then opens the signing page of the person's new envelope; it speaks the reader's language
 * (German here); a disabled link says it does not work. No request leaves the service's origins and no
 * policy is broken. Screenshots go to `test-output/screenshots/public-link-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { ceremonyReady, screenshot, watchPage } from '../support/browser.js';
import { startBrowserSession, type BrowserSession } from '../support/browserSession.js';
import { waitForEmails } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { activeOneRoleTemplate } from '../support/service.js';

const STEP_TIMEOUT_MS = patience(30_000);
const VIEWPORT = { width: 390, height: 844 };

let session: BrowserSession;
let publicId: string;
let templateId: string;
beforeAll(async () => {
  session = await startBrowserSession({ name: 'Grace Hopper' });
  const { env, owner } = session;
  templateId = await activeOneRoleTemplate(env.api, owner);
  expect((await env.api.request('PATCH', `/templates/${templateId}`, { token: owner.token, json: { name: 'Gym waiver' } })).status).toBe(200);
  const enabled = await env.api.request('PATCH', `/templates/${templateId}`, { token: owner.token, json: { publicLink: { enabled: true, roleName: 'Client' } } });
  expect(enabled.status).toBe(200);
  publicId = String(enabled.body.publicLink.url).split('/').pop()!;
}, patience(90_000));
afterAll(async () => {
  await session?.close();
});

async function phone(locale: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await session.browser.newContext({ viewport: VIEWPORT, hasTouch: true, isMobile: true, deviceScaleFactor: 2, locale });
  session.contexts.push(context);
  return { context, page: await context.newPage() };
}

/** The page's width fits the screen: nothing to scroll sideways. */
async function fitsWidth(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) as boolean;
}

describe('the public link page on a phone', () => {
  test('at 390 × 844: name and address, a wrong code with the tries left, then the signing page of a new envelope', async () => {
    const { page } = await phone('en-US');
    const { apiUrl, publicBaseUrl } = session.env.service;
    const origins = [new URL(apiUrl).origin, new URL(publicBaseUrl).origin, new URL(getServices().storage.blobService.url).origin];
    const watch = watchPage(page, origins);
    // The signing URL is on PUBLIC_BASE_URL, which names no host here: sent on to the service (the fragment stays).
    await page.route(`${publicBaseUrl}/**`, async (route) => await route.fulfill({ status: 302, headers: { Location: route.request().url().replace(publicBaseUrl, new URL(apiUrl).origin) } }));
    await page.goto(`${session.env.service.apiUrl}/sign/t/${publicId}`);
    await page.locator('#start').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await expect(page.locator('#start-heading').textContent()).resolves.toBe('Sign Gym waiver');
    await expect(page.locator('#start-intro').textContent()).resolves.toContain('Grace Hopper asks you to sign this document.');
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'public-link-390x844-start');

    // Nothing filled in: said so, nothing sent.
    await page.locator('#start-submit').tap();
    await expect(page.locator('#start-error').textContent()).resolves.toBe('Enter your name and a valid e-mail address.');

    const email = `phone-${Date.now().toString(36)}@example.com`;
    await page.locator('#public-name').fill('Pat Public');
    await page.locator('#public-email').fill(email);
    await page.locator('#start-submit').tap();
    await page.locator('#code').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await expect(page.locator('#code-sent').textContent()).resolves.toBe(`We e-mailed a 6-digit code to ${email}. It works for 10 minutes.`);
    const code = /\b(\d{6})\b/.exec((await waitForEmails(email, { subject: 'Your code for Gym waiver' }))[0]!.text)![1]!;

    await page.locator('#public-code').fill(String((Number(code) + 1) % 1_000_000).padStart(6, '0'));
    await page.locator('#code-submit').tap();
    await page.locator('#code-error').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await expect(page.locator('#code-error').textContent()).resolves.toBe('That code is not right.');
    await expect(page.locator('#code-attempts').textContent()).resolves.toBe('Tries left: 4');
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'public-link-390x844-code');

    await page.locator('#public-code').fill(code);
    await page.locator('#code-submit').tap();
    await page.waitForURL(/\/api\/sign#[A-Za-z0-9_-]{43}$/, { timeout: STEP_TIMEOUT_MS });
    await ceremonyReady(page);
    await screenshot(page, 'public-link-390x844-signing');
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);

    const envelopes = await session.env.api.request('GET', '/envelopes', { token: session.owner.token });
    const made = (envelopes.body as any[]).find((envelope) => envelope.signers.some((signer: any) => signer.email === email));
    expect(made).toMatchObject({ status: 'sent', source: 'publicLink', templateId });
  });

  test('in the reader\'s language: German', async () => {
    const { page } = await phone('de-DE');
    await page.goto(`${session.env.service.apiUrl}/sign/t/${publicId}`);
    await page.locator('#start').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await expect(page.locator('#start-heading').textContent()).resolves.toBe('Gym waiver unterschreiben');
    await expect(page.locator('#start-submit').textContent()).resolves.toBe('Code per E-Mail senden');
    await expect(page.evaluate('document.documentElement.lang')).resolves.toBe('de');
  });

  test('a disabled link says it does not work', async () => {
    const { env, owner } = session;
    const other = await activeOneRoleTemplate(env.api, owner);
    const enabled = await env.api.request('PATCH', `/templates/${other}`, { token: owner.token, json: { publicLink: { enabled: true, roleName: 'Client' } } });
    const url = String(enabled.body.publicLink.url).replace(env.service.publicBaseUrl, new URL(env.service.apiUrl).origin);
    expect((await env.api.request('PATCH', `/templates/${other}`, { token: owner.token, json: { publicLink: { enabled: false, roleName: 'Client' } } })).status).toBe(200);
    const { page } = await phone('en-US');
    const answer = await page.goto(url);
    expect(answer?.status()).toBe(404);
    await page.locator('#message').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    await expect(page.locator('#message-heading').textContent()).resolves.toBe('This link does not work');
    await screenshot(page, 'public-link-390x844-disabled');
  });
});
