/**
 * The signing page's first load in a non-Latin language against English, in Chromium, the same
 * envelope and the same run: a fresh browser context each load (nothing cached), the recipient's view
 * (`GET /api/signing`) given the locale, as it is for a recipient with that `locale`. A load is
 * measured from navigation until the document's first page is drawn and the page's fonts are loaded:
 *
 * - bytes over the wire: the encoded length (headers and body, as received) of every response of the
 *   load, from the DevTools protocol's `Network.loadingFinished`: HTML, scripts, style sheets,
 *   fonts, the catalogue, the recipient's view and the document;
 * - time to the first rendered page: `performance.now()` (from navigation start) when the first
 *   `.pdf-page` is drawn, recorded in the page by a mutation observer.
 *
 * Rounds rotate the order of the locales. Target: each non-Latin locale at most 1.2 times
 * English, in bytes and in time.
 */
import type { Browser, CDPSession } from 'playwright-core';
import { launchChromium } from '../../tests/support/chromium.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

/** The locales measured against English: one of Han and kana, one right to left. */
export const NON_LATIN_LOCALES = ['ja', 'ar'] as const;
const TARGET = 1.2;

interface Load {
  bytes: number;
  firstPageMs: number;
  requests: number;
}

export interface SigningPageFigures {
  english: { bytes: Summary; firstPageMs: Summary; requests: Summary };
  locales: Record<string, { bytes: Summary; firstPageMs: Summary; requests: Summary; bytesRatio: Summary; firstPageRatio: Summary }>;
}

/** Records when the first page of the document is drawn, before any of the page's own scripts run. */
const FIRST_PAGE_OBSERVER = `
  new MutationObserver((changes, observer) => {
    if (document.querySelector('.pdf-page-drawn') !== null) {
      window.__firstPageMs = performance.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
`;

async function load(browser: Browser, apiUrl: string, token: string, locale: string): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  try {
    const page = await context.newPage();
    await page.addInitScript(FIRST_PAGE_OBSERVER);
    await page.route('**/api/signing', async (route) => {
      const response = await route.fetch();
      const view = await response.json();
      await route.fulfill({ response, json: { ...view, recipient: { ...view.recipient, locale } } });
    });
    const session: CDPSession = await context.newCDPSession(page);
    await session.send('Network.enable');
    let bytes = 0;
    let requests = 0;
    session.on('Network.loadingFinished', (event: { encodedDataLength: number }) => {
      bytes += event.encodedDataLength;
      requests += 1;
    });
    await page.goto(`${apiUrl}/sign#${token}`);
    const deadline = Date.now() + 60_000;
    const done = `window.__firstPageMs !== undefined && document.fonts.status === 'loaded'`;
    while (!(await page.evaluate(done))) {
      if (Date.now() > deadline) throw new Error(`the signing page in ${locale} drew no page within 60 s`);
      await page.waitForTimeout(50);
    }
    const firstPageMs = (await page.evaluate('window.__firstPageMs')) as number;
    return { bytes, firstPageMs, requests };
  } finally {
    await context.close();
  }
}

export async function benchSigningPage(context: BenchContext): Promise<SuiteResult<SigningPageFigures>> {
  const signing = context.seed.signing;
  if (signing === undefined) throw new Error('the seed sent no envelope for the signing page');
  const browser = await launchChromium();
  try {
    const locales = ['en', ...NON_LATIN_LOCALES];
    const loads: Record<string, Load[]> = Object.fromEntries(locales.map((locale) => [locale, []]));
    // One of each first, unmeasured: the service's files read and its font subsets made.
    for (const locale of locales) await load(browser, context.apiUrl, signing.token, locale);
    for (let round = 0; round < context.plan.signingPage.rounds; round++) {
      const order = locales.map((_, index) => locales[(index + round) % locales.length]!);
      for (const locale of order) loads[locale]!.push(await load(browser, context.apiUrl, signing.token, locale));
      progress(`signing page, round ${round + 1}/${context.plan.signingPage.rounds}: ` + locales.map((locale) => `${locale} ${Math.round(loads[locale]!.at(-1)!.bytes / 1024)} KiB ${Math.round(loads[locale]!.at(-1)!.firstPageMs)} ms`).join(', '));
    }
    const side = (list: Load[]) => ({
      bytes: summarize(list.map((entry) => entry.bytes)),
      firstPageMs: summarize(list.map((entry) => entry.firstPageMs)),
      requests: summarize(list.map((entry) => entry.requests)),
    });
    const english = loads.en!;
    const figures: SigningPageFigures = { english: side(english), locales: {} };
    const targets = [];
    for (const locale of NON_LATIN_LOCALES) {
      const own = loads[locale]!;
      const bytesRatio = pairedRatio(own.map((entry) => entry.bytes), english.map((entry) => entry.bytes));
      const firstPageRatio = pairedRatio(own.map((entry) => entry.firstPageMs), english.map((entry) => entry.firstPageMs));
      figures.locales[locale] = { ...side(own), bytesRatio, firstPageRatio };
      targets.push(check(`signingPage.${locale}.bytes`, `signing page first load in ${locale}: bytes over the wire ≤ ${TARGET}× English`, bytesRatio.median, '<=', TARGET));
      targets.push(check(`signingPage.${locale}.firstPage`, `signing page first load in ${locale}: time to the first rendered page ≤ ${TARGET}× English`, firstPageRatio.median, '<=', TARGET));
    }
    return { figures, targets };
  } finally {
    await browser.close();
  }
}
