/**
 * The set-up of the browser tests: the service on loopback, headless Chromium and a registered owner.
 * Tests open their own contexts (phone or desktop) and register them in `contexts`, so that `close()`
 * closes whatever a failed test left open. The console's tests add one watched page on top
 * (`consoleSession.ts`).
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from './browser.js';
import { startTestService, type TestService, type TestUser } from './service.js';

export interface BrowserSession {
  env: TestService;
  browser: Browser;
  /** A registered, logged-in owner (`env.newUser`). */
  owner: TestUser;
  /** The contexts the tests opened; closed by {@link BrowserSession.close}. */
  contexts: BrowserContext[];
  /** Closes every context, Chromium and the service. */
  close(): Promise<void>;
}

/**
 * Starts what a browser test needs; call in `beforeAll`, and `close()` in `afterAll`.
 * @param owner the owner's display name (`name`); none by default
 */
export async function startBrowserSession(owner: { name?: string } = {}): Promise<BrowserSession> {
  const env = await startTestService();
  let launched: Browser | undefined;
  try {
    const browser = (launched = await launchChromium());
    const contexts: BrowserContext[] = [];
    return {
      env,
      browser,
      owner: await env.newUser(owner),
      contexts,
      async close() {
        for (const context of contexts) await context.close().catch(() => undefined);
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
