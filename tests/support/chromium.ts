/**
 * Headless Chromium for the browser tests and the benchmark's signing-page suite: Debian's Chromium
 * driven by playwright-core (no browser download). No test framework here (the benchmark imports
 * this module outside jest); `browser.ts` re-exports it with the tests' own helpers.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
