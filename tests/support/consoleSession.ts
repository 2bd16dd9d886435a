/**
 * The set-up of the console's browser tests: the service on loopback, headless Chromium, an owner
 * account and one desktop page (1280x900) watched for requests outside the API's and Blob storage's
 * origins, Content-Security-Policy violations and script errors (`./browser.ts` {@link watchPage}).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { launchChromium, watchPage, type PageWatch } from './browser.js';
import { startTestService, type TestService, type TestUser } from './service.js';

export interface ConsoleSession {
  env: TestService;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  watch: PageWatch;
  /** A registered, logged-in owner (`env.newUser()`). */
  owner: TestUser;
  /** Closes the page's context, Chromium and the service. */
  close(): Promise<void>;
}

/**
 * Starts what a console test needs; call in `beforeAll`, and `close()` in `afterAll`.
 * @param stepTimeoutMs how long one step of the page may take (Playwright's default timeout), ms
 */
export async function startConsoleSession(stepTimeoutMs: number): Promise<ConsoleSession> {
  const env = await startTestService();
  let launched: Browser | undefined;
  try {
    const browser = (launched = await launchChromium());
    const owner = await env.newUser();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(stepTimeoutMs);
    const watch = watchPage(page, [new URL(env.service.apiUrl).origin, new URL(getServices().storage.blobService.url).origin]);
    return {
      env,
      browser,
      context,
      page,
      watch,
      owner,
      async close() {
        await context.close();
        await browser.close();
        await env.close();
      },
    };
  } catch (error) {
    // A set-up that fails half-way leaves nothing running for `afterAll` to find.
    await launched?.close();
    await env.close();
    throw error;
  }
}
