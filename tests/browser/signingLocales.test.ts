/**
 * The signing page in every supported language, in a real Chromium:
 *
 * - the page takes the recipient's `locale` from its view (`GET /api/signing`, the view rewritten by
 *   the test where the service's view does not carry one yet), fetches that language's catalogue
 *   only, sets `lang` and `dir` on the document, words the ceremony in it, and has no WCAG 2.2 A or
 *   AA violation (axe-core) in any of the 27 languages;
 * - fonts: an English page downloads no text font, a page in Arabic, Hebrew, Hindi, Thai, Japanese,
 *   Chinese or Korean downloads its script's font only;
 * - right to left for Arabic and Hebrew: the header and texts are mirrored, the document's pages and
 *   its fields are not (a field keeps its left edge);
 * - the language switch lists all 27 languages by their own names and changes the page's language
 *   for that page only, keeping what the recipient filled in;
 * - a catalogue that fails to load leaves the page in English, with one warning in the console.
 *
 * Screenshots at 390 × 844 go to `test-output/screenshots/sign-locale-<locale>.png` (ar, he, ja, hi, th, de).
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { SUPPORTED_LOCALES } from '../../src/lib/i18n/locales.js';
import { getServices } from '../../src/lib/services.js';
import { contractPdf, AGREEMENT_LAYOUT, expectNoViolations, launchChromium, screenshot, watchPage } from '../support/browser.js';
import { startTestService, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { patience, waitUntil } from '../support/patience.js';

const STEP_TIMEOUT_MS = patience(30_000);

let env: TestService;
let browser: Browser;
let owner: TestUser;
let contract: Buffer;
let blobOrigin: string;
/** A sent envelope with a signature and a text field for its one signer, and that signer's token. */
let envelope: { id: string; token: string };
const contexts: BrowserContext[] = [];

const stamp = Date.now().toString(36);

beforeAll(async () => {
  env = await startTestService();
  browser = await launchChromium();
  owner = await env.newUser({ name: 'Evelyn Boyd' });
  contract = await contractPdf(browser, ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']);
  blobOrigin = new URL(getServices().storage.blobService.url).origin;
  const party = AGREEMENT_LAYOUT.party(0);
  const signer = `ada-locales-${stamp}@example.com`;
  const sent = await sentEnvelope(env.api, owner, {
    pdf: contract,
    signers: [{ name: 'Ada Lovelace', email: signer }],
    fields: [
      { recipient: 0, type: 'signature', ...party.signature },
      { recipient: 0, type: 'text', label: 'Job title', ...party.title },
    ],
  });
  envelope = { id: sent.id, token: await signingTokenFor(owner.userId, sent.id, signer) };
});
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await env.close();
});

interface Visit {
  page: Page;
  /** Paths below /api/sign/ the page fetched, with their status. */
  assets: { name: string; status: number }[];
  warnings: string[];
  errors: string[];
}

/**
 * Opens the signing page on a 390 × 844 touch screen with the envelope's link, its view carrying
 * `locale` for the recipient (as the service's view does once recipients have one).
 * @param options.failCatalogue a locale whose catalogue request is made to fail
 */
async function visit(locale: string, options: { failCatalogue?: string } = {}): Promise<Visit> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const watch = watchPage(page, [new URL(env.service.apiUrl).origin, blobOrigin]);
  const result: Visit = { page, assets: [], warnings: [], errors: watch.errors };
  page.on('console', (message) => { if (message.type() === 'warning') result.warnings.push(message.text()); });
  page.on('response', (response) => {
    const match = /\/api\/sign\/([^/?#]+)$/.exec(new URL(response.url()).pathname);
    if (match !== null) result.assets.push({ name: match[1]!, status: response.status() });
  });
  await page.route('**/api/signing', async (route) => {
    const response = await route.fetch();
    const view = await response.json();
    await route.fulfill({ response, json: { ...view, recipient: { ...view.recipient, locale } } });
  });
  if (options.failCatalogue !== undefined) await page.route(`**/api/sign/messages-${options.failCatalogue}.json`, (route) => route.abort('failed'));
  await page.goto(`${env.service.apiUrl}/sign#${envelope.token}`);
  await ready(page);
  return result;
}

/**
 * Waits until the document's pages are drawn and the fonts loaded: a promise in the page that a
 * MutationObserver resolves once every page has its `pdf-page-drawn` class, then `document.fonts.ready`
 * (the page's policy forbids the string evaluation waitForFunction uses; `evaluate` is allowed).
 */
async function ready(page: Page): Promise<void> {
  await page.locator('#pages[data-ready="true"]').waitFor({ state: 'attached' });
  const drawn = `new Promise((resolve) => {
    const drawn = () => document.querySelectorAll('.pdf-page').length > 0 && [...document.querySelectorAll('.pdf-page')].every((page) => page.classList.contains('pdf-page-drawn'));
    if (drawn()) return resolve(true);
    const observer = new MutationObserver(() => { if (drawn()) { observer.disconnect(); resolve(true); } });
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
  }).then(() => document.fonts.ready).then(() => true)`;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the pages were not drawn')), STEP_TIMEOUT_MS);
  });
  const evaluation = page.evaluate(drawn);
  // Past the deadline the evaluation may still fail later (the page closed): nobody waits for it then.
  evaluation.catch(() => undefined);
  try {
    await Promise.race([evaluation, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads until `accept` takes the value (the page reacts to a choice asynchronously), within a step's deadline. */
async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean): Promise<T> {
  return (await waitUntil(async () => {
    const value = await read();
    return accept(value) ? { value } : undefined;
  }, 30_000, 'the page to take the choice')).value;
}

/** What the page says and how it is set: language, direction, heading, switch. */
interface PageState {
  lang: string;
  dir: string;
  heading: string;
  progress: string;
  language: string;
  consent: string;
}
async function pageState(page: Page): Promise<PageState> {
  return (await page.evaluate(`({
    lang: document.documentElement.lang,
    dir: document.documentElement.dir,
    heading: document.getElementById('request-heading').textContent,
    progress: document.getElementById('progress').textContent,
    language: document.getElementById('language').value,
    consent: document.getElementById('consent-label').textContent,
  })`)) as PageState;
}

const FONT_OF: Record<string, string> = { ar: 'arabic', he: 'hebrew', hi: 'devanagari', th: 'thai', ja: 'cjk', 'zh-CN': 'cjk', 'zh-TW': 'cjk', ko: 'hangul' };
const SCREENSHOTS = ['ar', 'he', 'ja', 'hi', 'th', 'de'];

/** What the English page says for this envelope's signer (two required fields: a signature and a text). */
const ENGLISH = {
  heading: 'Please sign contract.pdf',
  progress: '0 of 2 required fields done',
  consent: 'I agree to sign this document electronically. My electronic signature counts as my handwritten signature.',
};

describe('the signing page in every language', () => {
  test('English: the bundled catalogue, no text font, no violation', async () => {
    const { page, assets, errors } = await visit('en');
    expect(await pageState(page)).toEqual({ lang: 'en', dir: 'ltr', language: 'en', ...ENGLISH });
    expect(assets.filter((asset) => asset.name.startsWith('messages-') && asset.name.endsWith('.json'))).toEqual([]);
    expect(assets.filter((asset) => asset.name.startsWith('font-'))).toEqual([]);
    await expectNoViolations(page, 'en');
    expect(errors).toEqual([]);
    await page.context().close();
  });

  // Each language in its own context of the one browser, a few at once (jest's maxConcurrency, 5): a
  // page mostly waits for the service, its fonts and axe, so 26 of them one after another left the
  // machine idle. Nothing is shared between them but the envelope, which they only read. The English
  // test before them has loaded every handler they use: under jest 30, a concurrent test that ends
  // marks the runtime "between tests" while the others run, and a first import would then fail.
  test.concurrent.each(SUPPORTED_LOCALES.filter((locale) => locale !== 'en').map((locale) => [locale]))('%s: its own catalogue, lang and dir, its script font, no violation', async (locale) => {
    const { page, assets, errors } = await visit(locale);
    const state = await pageState(page);
    expect(state).toMatchObject({ lang: locale, dir: locale === 'ar' || locale === 'he' ? 'rtl' : 'ltr', language: locale });
    // Worded in the language: nothing of the ceremony is left in English.
    expect(state.heading).toContain('contract.pdf');
    expect(state.heading).not.toBe(ENGLISH.heading);
    // "0 of 2": Arabic and Hebrew say the two in the dual, with no digit.
    expect(state.progress).toMatch(/0/);
    expect(state.progress).not.toBe(ENGLISH.progress);
    expect(state.consent).not.toBe(ENGLISH.consent);
    // The disclosure above the consent box is that language's, word for word, in that language's font.
    const disclosure = (await env.api.request('GET', `/disclosure?locale=${locale}`)).body as { text: string; locale: string };
    expect(disclosure.locale).toBe(locale);
    await until(async () => await page.locator('#disclosure').textContent(), (text) => text === disclosure.text);
    expect(await page.locator('#disclosure').getAttribute('lang')).toBe(locale);
    expect(assets.filter((asset) => /^messages-.+\.json$/.test(asset.name))).toEqual([{ name: `messages-${locale}.json`, status: 200 }]);
    const fonts = assets.filter((asset) => asset.name.startsWith('font-')).map((asset) => asset.name);
    expect(fonts).toEqual(FONT_OF[locale] === undefined ? [] : [`font-${FONT_OF[locale]}.ttf`]);
    await expectNoViolations(page, locale);
    if (locale === 'ar' || locale === 'he') {
      // The page's texts run right to left, the document does not: pages and fields keep the PDF's left and right.
      const layout = (await page.evaluate(`(() => {
        const field = document.querySelector('.pdf-page .field-text');
        const pageBox = field.closest('.pdf-page').getBoundingClientRect();
        return {
          headingDirection: getComputedStyle(document.getElementById('request-heading')).direction,
          pagesDirection: getComputedStyle(document.getElementById('pages')).direction,
          fieldLeft: (field.getBoundingClientRect().left - pageBox.left) / pageBox.width,
          titleRight: document.querySelector('.site-title').getBoundingClientRect().right,
          switchLeft: document.querySelector('.language-switch').getBoundingClientRect().left,
        };
      })()`)) as { headingDirection: string; pagesDirection: string; fieldLeft: number; titleRight: number; switchLeft: number };
      expect(layout.headingDirection).toBe('rtl');
      expect(layout.pagesDirection).toBe('ltr');
      expect(layout.fieldLeft).toBeCloseTo(AGREEMENT_LAYOUT.party(0).title.x, 2);
      // Mirrored header: the service's name on the right, the language switch on the left.
      expect(layout.switchLeft).toBeLessThan(layout.titleRight);
    }
    if (SCREENSHOTS.includes(locale)) {
      await screenshot(page, `sign-locale-${locale}`, { fullPage: false });
      // The finish section, disclosure and consent box as they appear on the phone.
      await page.locator('#disclosure').scrollIntoViewIfNeeded();
      await screenshot(page, `sign-disclosure-${locale}`, { fullPage: false });
    }
    expect(errors).toEqual([]);
    await page.context().close();
  });
});

describe('the language switch', () => {
  test('lists every language by its own name and changes the page for this page only, keeping what was filled in', async () => {
    const { page } = await visit('de');
    const options = (await page.evaluate(`[...document.querySelectorAll('#language option')].map((option) => ({ value: option.value, lang: option.getAttribute('lang'), name: option.textContent }))`)) as { value: string; lang: string; name: string }[];
    expect(options.map((option) => option.value)).toEqual([...SUPPORTED_LOCALES]);
    expect(options.find((option) => option.value === 'ja')).toEqual({ value: 'ja', lang: 'ja', name: '日本語' });
    expect(options.find((option) => option.value === 'ar')).toEqual({ value: 'ar', lang: 'ar', name: 'العربية' });
    expect(await page.locator('#request-heading').textContent()).toBe('Bitte unterschreiben Sie contract.pdf');

    await page.locator('.pdf-page .field-text').fill('Mathematikerin');
    await page.locator('#language').selectOption('ar');
    const arabic = await until(() => pageState(page), (state) => state.lang === 'ar');
    expect(arabic).toMatchObject({ lang: 'ar', dir: 'rtl', language: 'ar', heading: 'يُرجى توقيع \u2068contract.pdf\u2069' });
    // Names and addresses inside right-to-left text are isolated (FSI … PDI), so they keep their order.
    // The recipient's work stays; the field's name follows the language.
    expect(await page.locator('.pdf-page .field-text').inputValue()).toBe('Mathematikerin');
    expect(await page.locator('.pdf-page .field-button').textContent()).toBe('التوقيع');
    expect(await page.locator('.pdf-page').first().getAttribute('aria-label')).toMatch(/^الصفحة 1 من \d+$/);
    // The disclosure follows the switch: the Arabic text, word for word.
    const arabicDisclosure = (await env.api.request('GET', '/disclosure?locale=ar')).body as { text: string };
    await until(async () => await page.locator('#disclosure').textContent(), (text) => text === arabicDisclosure.text);
    await expectNoViolations(page, 'ar, switched on the page');

    await page.locator('#language').selectOption('en');
    expect(await until(() => pageState(page), (state) => state.lang === 'en')).toMatchObject({ lang: 'en', dir: 'ltr', heading: 'Please sign contract.pdf' });

    // For this page only: opened again, the page speaks the recipient's language again.
    await page.reload();
    await ready(page);
    expect(await pageState(page)).toMatchObject({ lang: 'de', language: 'de' });
    await page.context().close();
  });
});

describe('a catalogue that fails to load', () => {
  test('leaves the page in English and warns once in the console', async () => {
    const { page, warnings, errors } = await visit('ja', { failCatalogue: 'ja' });
    expect(await pageState(page)).toMatchObject({ lang: 'en', dir: 'ltr', language: 'en', heading: 'Please sign contract.pdf', progress: '0 of 2 required fields done' });
    expect(warnings.filter((warning) => warning.includes('could not be loaded'))).toHaveLength(1);
    // Choosing it again fails again, still without taking the page down or warning twice.
    await page.locator('#language').selectOption('ja');
    // The page settles back on English once the request has failed.
    expect(await until(() => pageState(page), (state) => state.language === 'en')).toMatchObject({ lang: 'en', language: 'en' });
    expect(warnings.filter((warning) => warning.includes('could not be loaded'))).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
