/**
 * The console's API keys panel in Chromium, against the local host and the suite's Azurite: create a
 * key with a name and an expiry, see it once with a copy button (the clipboard holds it afterwards),
 * use it from a server, see the list's prefix, created, last used and expiry, and delete it after a
 * confirmation (a cancelled one deletes nothing). Screenshots at desktop and phone sizes go to
 * `test-output/screenshots/console-apikeys-*.png`; axe-core finds nothing at WCAG 2.2 AA.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expectNoViolations, launchChromium, screenshot, watchPage, type PageWatch } from '../support/browser.js';
import { waitUntil } from '../support/patience.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let watch: PageWatch;
let user: TestUser;

beforeAll(async () => {
  env = await startTestService({ triggers: false });
  user = await env.newUser();
  browser = await launchChromium();
  const origin = new URL(env.service.apiUrl).origin;
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  page = await context.newPage();
  page.setDefaultTimeout(20_000);
  watch = watchPage(page, [origin]);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await env.close();
});

async function logIn(): Promise<void> {
  await page.goto(`${env.service.apiUrl}/console`);
  await page.locator('#login-email').fill(user.email);
  await page.locator('#login-password').fill(user.password);
  await page.locator('#login-password').press('Enter');
  await page.locator('#session-email').filter({ hasText: user.email }).waitFor();
  await page.locator('#apikeys-empty').filter({ hasText: 'No API keys yet' }).waitFor();
}

describe('the API keys panel of GET /api/console', () => {
  test('creates a key shown once with a copy button, lists it, and deletes it after a confirmation', async () => {
    await logIn();
    const panel = page.locator('#apikeys');

    await panel.getByLabel('Name', { exact: true }).fill('CRM integration');
    await panel.getByLabel('Expires', { exact: true }).selectOption({ label: 'in 90 days' });
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#apikey-secret').filter({ hasText: 'you will not see it again' }).waitFor();
    const key = (await page.locator('#apikey-secret-value').textContent()) ?? '';
    expect(key).toMatch(/^esk_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.locator('#apikey-copied').filter({ hasText: 'Copied' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

    // The list: the prefix (never the key), created, never used, the expiry 90 days ahead.
    const row = page.locator('#apikey-rows tr', { hasText: 'CRM integration' });
    await row.waitFor();
    const cells = await row.locator('th, td').allTextContents();
    expect(cells[1]).toBe(`${key.slice(0, 12)}…`);
    expect(cells[2]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(cells[3]).toBe('never used');
    expect(Date.parse(cells[4]!.replace(' UTC', 'Z').replace(' ', 'T')) - Date.now()).toBeGreaterThan(89 * 86_400_000);
    expect(await page.locator('#apikey-table').textContent()).not.toContain(key);
    await screenshot(page, 'console-apikeys-01-created');
    await screenshot(panel, 'console-apikeys-02-panel');

    // A server uses it; the list shows when, once refreshed.
    expect((await env.api.request('GET', '/envelopes', { token: key })).status).toBe(200);
    await waitUntil(
      async () => {
        await page.getByRole('button', { name: 'Refresh API keys' }).click();
        await page.locator('#status').filter({ hasText: 'API keys refreshed' }).waitFor();
        const lastUsed = await row.locator('td').nth(2).textContent();
        return lastUsed !== 'never used' ? lastUsed : undefined;
      },
      15_000,
      'the last use in the list',
    );
    expect(await page.locator('#apikey-secret').isVisible()).toBe(true);

    // Delete asks first; Cancel keeps the key.
    await row.getByRole('button', { name: 'Delete the API key CRM integration' }).click();
    await row.filter({ hasText: 'Servers using it stop working' }).waitFor();
    await screenshot(panel, 'console-apikeys-03-confirm');
    await row.getByRole('button', { name: 'Cancel' }).click();
    await row.getByRole('button', { name: 'Delete the API key CRM integration' }).waitFor();
    expect((await env.api.request('GET', '/apikeys', { token: user.token })).body).toHaveLength(1);

    await row.getByRole('button', { name: 'Delete the API key CRM integration' }).click();
    await row.getByRole('button', { name: 'Delete key' }).click();
    await page.locator('#status').filter({ hasText: 'API key “CRM integration” deleted' }).waitFor();
    await page.locator('#apikeys-empty').filter({ hasText: 'No API keys yet' }).waitFor();
    expect((await env.api.request('GET', '/apikeys', { token: user.token })).body).toEqual([]);
    expect((await env.api.request('GET', '/envelopes', { token: key })).status).toBe(401);

    await expectNoViolations(page, 'the API keys section');
    expect(watch.errors).toEqual([]);
    expect(watch.foreignRequests).toEqual([]);
  });

  test('shows the problem detail of a refused creation, and fits a phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await logIn();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#error').filter({ hasText: 'name' }).waitFor();
    expect(await page.locator('#apikey-secret').isHidden()).toBe(true);

    await page.locator('#apikeys').getByLabel('Name', { exact: true }).fill('Nightly export');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#apikey-secret').waitFor();
    await page.locator('#apikey-rows tr', { hasText: 'Nightly export' }).waitFor();
    // The panel fits the screen; its table scrolls sideways inside its own box.
    const fits = await page.evaluate(`(() => {
      const panel = document.getElementById('apikeys');
      return panel.getBoundingClientRect().right <= document.documentElement.clientWidth && panel.scrollWidth <= panel.clientWidth;
    })()`);
    expect(fits).toBe(true);
    await screenshot(page.locator('#apikeys'), 'console-apikeys-04-phone');
  });
});
