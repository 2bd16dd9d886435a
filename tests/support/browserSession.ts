/**
 * The set-up of the signing page's browser tests: the service on loopback, headless Chromium and an
 * owner with a display name. Each test opens its own contexts (phone or desktop) and registers them
 * in `contexts`, so that `close()` closes whatever a failed test left open.
 */
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from './browser.js';
import { startTestService, type TestService, type TestUser } from './service.js';

export interface SigningPageSession {
  env: TestService;
  browser: Browser;
  /** A registered, logged-in owner named Evelyn Boyd (`env.newUser`). */
  owner: TestUser;
  /** The contexts the tests opened; closed by {@link SigningPageSession.close}. */
  contexts: BrowserContext[];
  /** Closes every context, Chromium and the service. */
  close(): Promise<void>;
}

/** Starts what a signing-page test needs; call in `beforeAll`, and `close()` in `afterAll`. */
export async function startSigningPageSession(): Promise<SigningPageSession> {
  const env = await startTestService();
  let launched: Browser | undefined;
  try {
    const browser = (launched = await launchChromium());
    const owner = await env.newUser({ name: 'Evelyn Boyd' });
    const contexts: BrowserContext[] = [];
    return {
      env,
      browser,
      owner,
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
