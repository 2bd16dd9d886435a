/**
 * Browser tests: Debian's Chromium driven by playwright-core (no browser download), screenshots under
 * `test-output/screenshots/` (git-ignored), and a watch on every page for what the pages promise not
 * to do: requests to origins other than the API's and Blob storage's, Content-Security-Policy
 * violations, and script errors.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

/** Where the screenshots of the browser tests go. */
export const SCREENSHOT_DIR = path.resolve(process.cwd(), 'test-output/screenshots');

/**
 * Chromium's executable: `CHROMIUM_PATH` when set, else Debian's `/usr/bin/chromium` (`.ci/run`
 * installs it), else Google Chrome where a machine has that instead (GitHub's Ubuntu runners).
 * @throws Error naming what to install when none is there
 */
export function chromiumExecutable(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/google-chrome'].filter((candidate): candidate is string => Boolean(candidate));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) throw new Error(`No Chromium found (looked at ${candidates.join(', ')}): apt-get install chromium, or set CHROMIUM_PATH.`);
  return found;
}

/** Starts headless Chromium. Close it in `afterAll`. */
export async function launchChromium(): Promise<Browser> {
  return await chromium.launch({
    executablePath: chromiumExecutable(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** What a page did that it should not have. */
export interface PageWatch {
  /** Requests to origins outside `allowedOrigins`. */
  foreignRequests: string[];
  /** Console messages about the Content-Security-Policy, and page errors. */
  errors: string[];
}

/**
 * Records, for the life of `page`, every request to an origin outside `allowedOrigins` and every
 * CSP violation or uncaught script error.
 */
export function watchPage(page: Page, allowedOrigins: string[]): PageWatch {
  const watch: PageWatch = { foreignRequests: [], errors: [] };
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol === 'data:' || url.protocol === 'blob:') return;
    if (!allowedOrigins.includes(url.origin)) watch.foreignRequests.push(request.url());
  });
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) watch.errors.push(message.text());
  });
  page.on('pageerror', (error) => watch.errors.push(`${error.name}: ${error.message}`));
  return watch;
}

/** Saves a screenshot of the whole page, or of one element, as `test-output/screenshots/<name>.png`. */
export async function screenshot(target: Page | Locator, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  if ('goto' in target) await target.screenshot({ path: file, fullPage: true });
  else await target.screenshot({ path: file });
  return file;
}
