/**
 * The set-up of the console's browser tests: the service on loopback, headless Chromium, an owner
 * account and one desktop page (1280x900) watched for requests outside the API's and Blob storage's
 * origins, Content-Security-Policy violations and script errors (`./browser.ts` {@link watchPage}).
 */
import type { BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { watchPage, type PageWatch } from './browser.js';
import { startBrowserSession, type BrowserSession } from './browserSession.js';

export interface ConsoleSession extends BrowserSession {
  /** The page's context (in `contexts`, so `close()` closes it). */
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
}

/**
 * Starts what a console test needs; call in `beforeAll`, and `close()` in `afterAll`.
 * @param stepTimeoutMs how long one step of the page may take (Playwright's default timeout), ms
 */
export async function startConsoleSession(stepTimeoutMs: number): Promise<ConsoleSession> {
  const session = await startBrowserSession();
  try {
    const context = await session.browser.newContext({ viewport: { width: 1280, height: 900 } });
    session.contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(stepTimeoutMs);
    const watch = watchPage(page, [new URL(session.env.service.apiUrl).origin, new URL(getServices().storage.blobService.url).origin]);
    return { ...session, context, page, watch };
  } catch (error) {
    // A set-up that fails half-way leaves nothing running for `afterAll` to find.
    await session.close();
    throw error;
  }
}

/**
 * Clicks the console's Refresh (the envelope list) and waits until that refresh is done: the button
 * is enabled again once the list is drawn and "Envelopes refreshed." shown (the console disables a
 * control while its action runs). Going on at once is a race: a row may already be there, drawn by
 * the load that follows logging in, and the refresh's answer, arriving later, would then replace the
 * message of the test's next action in `#status`.
 */
export async function refreshEnvelopeList(page: Page): Promise<void> {
  await page.locator('#refresh').click();
  await page.locator('#refresh:enabled').waitFor();
  await page.locator('#status').filter({ hasText: 'Envelopes refreshed.' }).waitFor();
}
