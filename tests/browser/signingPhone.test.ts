/**
 * The signing page on a phone (360 × 640 and 390 × 844, touch), in a real Chromium: fields that are
 * small on the page keep their true size and get invisible hit areas for a finger that never overlap
 * (check boxes 2 to 2.5 % of the page apart, in a row and in a column); a tap anywhere in a check
 * box's hit area toggles that box and no other; long values (a name, a typed text, a value an earlier
 * recipient gave, a date in a narrow box) are drawn whole, shrunk to fit their box as the seal draws
 * them. Screenshots go to `test-output/screenshots/sign-phone-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ceremonyReady, contractPdf, screenshot } from '../support/browser.js';
import type { TestService, TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { patience } from '../support/patience.js';
import { startBrowserSession, type BrowserSession } from '../support/browserSession.js';

/** A step's deadline (a page's load, a click's effect), scaled on a busy machine. */
const STEP_TIMEOUT_MS = patience(30_000);

let session: BrowserSession;
let env: TestService;
let browser: Browser;
let owner: TestUser;
let contexts: BrowserContext[];

beforeAll(async () => {
  session = await startBrowserSession({ name: 'Evelyn Boyd' });
  ({ env, browser, owner, contexts } = session);
});
afterAll(async () => {
  await session?.close();
});

const stamp = Date.now().toString(36);
const LONG_NAME = 'Maria Anna Sophia Theresia von Habsburg-Lothringen';
const EARLIER_VALUE = 'Department of Analytical Engines and Difference Calculators, London';
const TYPED_VALUE = 'Senior Vice President of Computational Mathematics';

/** Check boxes about 9 points square on A4: five in a row 2.5 % of the width apart, four in a column 2 % of the height apart. */
const ROW = Array.from({ length: 5 }, (_, index) => ({ page: 1, x: 0.1 + index * 0.025, y: 0.5, width: 0.016, height: 0.011 }));
const COLUMN = Array.from({ length: 4 }, (_, index) => ({ page: 1, x: 0.6, y: 0.5 + index * 0.02, width: 0.016, height: 0.011 }));

interface Rect { left: number; top: number; right: number; bottom: number }

/** Every check box of the first page: its hit area (the input), its drawn box, and whether it is ticked. */
async function checkBoxes(page: Page): Promise<{ id: string; hit: Rect; box: Rect; checked: boolean }[]> {
  return (await page.evaluate(`[...document.querySelectorAll('.pdf-page input.field-check')].map((input) => {
    const rect = (element) => { const r = element.getBoundingClientRect(); return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }; };
    return { id: input.dataset.fieldId, hit: rect(input), box: rect(input.nextElementSibling), checked: input.checked };
  })`)) as { id: string; hit: Rect; box: Rect; checked: boolean }[];
}

/** Text shown in a field: the box it must fit, the width of its text at its size, and the element's scroll widths. */
async function textFit(page: Page, selector: string): Promise<{ text: string; box: number; text_width: number; scrollWidth: number; clientWidth: number }> {
  return (await page.evaluate(`(() => {
    const element = document.querySelector(${JSON.stringify(selector)});
    const style = getComputedStyle(element);
    const canvas = document.createElement('canvas').getContext('2d');
    canvas.font = style.fontStyle + ' ' + style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily;
    const text = element.tagName === 'INPUT' ? element.value : element.textContent;
    const box = element.tagName === 'INPUT' ? element.nextElementSibling.getBoundingClientRect().width : element.parentElement.clientWidth;
    return { text, box, text_width: canvas.measureText(text).width, scrollWidth: element.scrollWidth, clientWidth: element.clientWidth };
  })()`)) as { text: string; box: number; text_width: number; scrollWidth: number; clientWidth: number };
}

const overlaps = (a: Rect, b: Rect) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
const contains = (outer: Rect, inner: Rect) =>
  inner.left >= outer.left - 0.5 && inner.top >= outer.top - 0.5 && inner.right <= outer.right + 0.5 && inner.bottom <= outer.bottom + 0.5;

describe('the signing page on a phone', () => {
  let token: string;

  beforeAll(async () => {
    const earlier = `earlier-${stamp}@example.com`;
    const phone = `phone-${stamp}@example.com`;
    const sent = await sentEnvelope(env.api, owner, {
      pdf: await contractPdf(browser, ['Ada Lovelace', LONG_NAME, 'Katherine Johnson']),
      signingOrder: 'sequential',
      signers: [
        { name: 'Ada Lovelace', email: earlier, routingOrder: 1 },
        { name: LONG_NAME, email: phone, routingOrder: 2 },
      ],
      fields: [
        { recipient: 0, type: 'text', label: 'Department', page: 1, x: 0.08, y: 0.2, width: 0.3, height: 0.025 },
        { recipient: 1, type: 'name', page: 1, x: 0.08, y: 0.3, width: 0.25, height: 0.022 },
        { recipient: 1, type: 'date_signed', page: 1, x: 0.6, y: 0.3, width: 0.09, height: 0.02 },
        { recipient: 1, type: 'text', label: 'Job title', page: 1, x: 0.08, y: 0.36, width: 0.3, height: 0.022, required: false },
        ...[...ROW, ...COLUMN].map((rect) => ({ recipient: 1, type: 'checkbox', required: false, ...rect })),
      ],
    });
    // The first signer answers through the API: the phone's signer then sees the value in place.
    const first = await signingTokenFor(owner.userId, sent.id, earlier);
    const view = await env.api.request('GET', '/signing', { token: first });
    expect(view.status).toBe(200);
    const done = await env.api.request('POST', '/signing/complete', {
      token: first,
      json: { consent: true, values: [{ fieldId: view.body.fields[0].id, value: EARLIER_VALUE }], signature: { typed: 'Ada Lovelace' } },
    });
    expect(done.status).toBe(200);
    token = await signingTokenFor(owner.userId, sent.id, phone);
  }, patience(60_000));

  for (const viewport of [{ width: 360, height: 640 }, { width: 390, height: 844 }]) {
    test(`at ${viewport.width} × ${viewport.height}: small check boxes keep their size, their hit areas never overlap, a tap toggles its own box only, long text is whole`, async () => {
      const context = await browser.newContext({ viewport, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${env.service.apiUrl}/sign#${token}`);
      await ceremonyReady(page);
      await page.locator('.pdf-page input.field-check').first().scrollIntoViewIfNeeded();
      const name = `sign-phone-${viewport.width}x${viewport.height}`;
      await screenshot(page, `${name}-fields`, { fullPage: false });

      // The drawn boxes at their true size; every hit area holds its box, none overlaps another.
      const pageBox = (await page.locator('.pdf-page').first().boundingBox())!;
      let boxes = await checkBoxes(page);
      expect(boxes).toHaveLength(ROW.length + COLUMN.length);
      const inRow = (box: { box: Rect }) => box.box.left < pageBox.x + pageBox.width / 2;
      expect(boxes.filter(inRow)).toHaveLength(ROW.length);
      for (const box of boxes) {
        expect(Math.abs(box.box.right - box.box.left - 0.016 * pageBox.width)).toBeLessThan(1.5);
        expect(Math.abs(box.box.bottom - box.box.top - 0.011 * pageBox.height)).toBeLessThan(1.5);
        expect(contains(box.hit, box.box)).toBe(true);
        // Grown to a full touch target across the line of neighbours, to the middle of the gap along it.
        const [across, along] = inRow(box)
          ? [box.hit.bottom - box.hit.top, box.hit.right - box.hit.left]
          : [box.hit.right - box.hit.left, box.hit.bottom - box.hit.top];
        expect(across).toBeGreaterThanOrEqual(44 - 0.5);
        expect(along).toBeGreaterThan((inRow(box) ? box.box.right - box.box.left : box.box.bottom - box.box.top) + 2);
      }
      const hits = await page.evaluate(`[...document.querySelectorAll('.pdf-page .field-hit')].map((element) => {
        const r = element.getBoundingClientRect();
        return { id: element.dataset.fieldId, left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      })`) as (Rect & { id: string })[];
      expect(hits.length).toBe(boxes.length + 3);
      const overlapping = hits.flatMap((a, i) => hits.slice(i + 1).filter((b) => overlaps(a, b)).map((b) => [a.id, b.id]));
      expect(overlapping).toEqual([]);

      // A tap near the edge of each hit area, well outside the drawn box, ticks that box only.
      const ticked = new Set<string>();
      for (const box of boxes) {
        const [x, y] = inRow(box)
          ? [(box.box.left + box.box.right) / 2, box.hit.bottom - 3]
          : [box.hit.right - 3, (box.box.top + box.box.bottom) / 2];
        expect(x > box.box.right + 10 || y > box.box.bottom + 10).toBe(true);
        await page.waitForTimeout(350); // a second tap at once would be taken for a double tap
        await page.touchscreen.tap(x, y);
        ticked.add(box.id);
        const now = await checkBoxes(page);
        expect(now.filter((entry) => entry.checked).map((entry) => entry.id).sort()).toEqual([...ticked].sort());
      }
      boxes = await checkBoxes(page);
      expect(boxes.every((box) => box.checked)).toBe(true);
      await screenshot(page, `${name}-ticked`, { fullPage: false });

      // Long text is whole: the name filled in for the signer, a narrow date, a long typed value, the earlier signer's value.
      const jobTitle = page.locator('.pdf-page input.field-text');
      await jobTitle.tap();
      await jobTitle.fill(TYPED_VALUE);
      for (const selector of ['.pdf-page input.field-auto[data-type="name"]', '.pdf-page input.field-auto[data-type="date_signed"]', '.pdf-page input.field-text', '.pdf-page .field-filled > span']) {
        const fit = await textFit(page, selector);
        expect({ selector, text: fit.text.length > 0 }).toEqual({ selector, text: true });
        expect({ selector, fits: fit.text_width <= fit.box }).toEqual({ selector, fits: true });
        expect({ selector, scrolls: fit.scrollWidth > fit.clientWidth }).toEqual({ selector, scrolls: false });
      }
      expect((await textFit(page, '.pdf-page input.field-auto[data-type="name"]')).text).toBe(LONG_NAME);
      expect((await textFit(page, '.pdf-page .field-filled > span')).text).toBe(EARLIER_VALUE);
      // The measure can fail: the same value at a fixed 16 px overflows its input.
      const overflowed = (await page.evaluate(`(() => {
        const input = document.querySelector('.pdf-page input.field-text');
        const size = input.style.fontSize;
        input.style.fontSize = '16px';
        const result = input.scrollWidth > input.clientWidth;
        input.style.fontSize = size;
        return result;
      })()`)) as boolean;
      expect(overflowed).toBe(true);
      await page.locator('.pdf-page input.field-auto[data-type="name"]').scrollIntoViewIfNeeded();
      await screenshot(page, `${name}-text`, { fullPage: false });
      expect(errors).toEqual([]);
    }, patience(120_000));
  }
});
