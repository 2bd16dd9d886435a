/**
 * The signing page (`GET /api/sign`, docs/pages.md) in a real Chromium, driven as people would use it,
 * each from the link of the e-mail the suite's SMTP server (MailDev) received:
 *
 * - an envelope with fields for three signers, in sequential order: Ada on a 390 × 844 touch screen
 *   (initials typed, signature drawn with touch moves, a text field, consent, finish), then Grace with
 *   the keyboard alone (every field reached with Tab, the signature typed), and Katherine with a mouse
 *   (signature drawn); Katherine's answer completes the envelope and she downloads the sealed PDF, in
 *   which the ink is inside each signature field (pixels compared with the original page by pdftoppm)
 *   and the values are text (pdftotext);
 * - an envelope Katherine declines with a reason, after a resend made her first link useless;
 * - the plain messages: no link, a link no longer valid, already signed, completed, declined,
 *   withdrawn (voided) and expired, and (with the view's `canAct` and `waitingFor` set as the API
 *   sets them, since the service never hands out a link early) not the recipient's turn yet.
 *
 * axe-core finds no WCAG 2.2 A or AA violation in any state of the page. The page makes no request
 * outside the service and Blob storage, breaks no Content-Security-Policy rule, and sends the token
 * only as the bearer token of `/api/signing`. Screenshots go to `test-output/screenshots/sign-*.png`.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import {
  ceremonyReady,
  contractPdf,
  expectNoViolations,
  AGREEMENT_LAYOUT,
  launchChromium,
  screenshot,
  SCREENSHOT_DIR,
  watchPage,
  type PageRect,
  type PageWatch,
} from '../support/browser.js';
import { waitForEmails, waitForSigningLink } from '../support/mail.js';
import { createEnvelopeWithDocument, startTestService, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';
import { patience, waitUntil } from '../support/patience.js';

/** How long one step may take in the browser, ms (the last signature seals a PDF). */
const STEP_TIMEOUT_MS = patience(30_000);

let env: TestService;
let browser: Browser;
let owner: TestUser;
let contract: Buffer;
let blobOrigin: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  env = await startTestService();
  browser = await launchChromium();
  owner = await env.newUser({ name: 'Evelyn Boyd' });
  contract = await contractPdf(browser, ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']);
  blobOrigin = new URL(getServices().storage.blobService.url).origin;
});
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  await env.close();
});

/** A unique lower-case address per run, so e-mails of earlier runs never match. */
const stamp = Date.now().toString(36);
const address = (name: string) => `${name}-${stamp}@example.com`;

interface Visitor {
  page: Page;
  watch: PageWatch;
  /** Every request the page made: its URL and whether it carried an Authorization header. */
  requests: { url: string; authorization: string | undefined; referer: string | undefined }[];
}

/** A fresh browser context (its own sessionStorage) with one page, watched. */
async function visitor(options: { mobile: boolean }): Promise<Visitor> {
  const context = await browser.newContext({
    acceptDownloads: true,
    viewport: options.mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    ...(options.mobile ? { hasTouch: true, isMobile: true, deviceScaleFactor: 2 } : {}),
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  const watch = watchPage(page, [new URL(env.service.apiUrl).origin, blobOrigin]);
  const requests: Visitor['requests'] = [];
  page.on('request', (request) => {
    const headers = request.headers();
    requests.push({ url: request.url(), authorization: headers.authorization, referer: headers.referer });
  });
  return { page, watch, requests };
}

/** Opens the link's token on this test's own service (links name the suite's PUBLIC_BASE_URL), as a new page load. */
async function openLink(page: Page, token: string): Promise<void> {
  if (page.url() !== 'about:blank') await page.goto('about:blank');
  await page.goto(`${env.service.apiUrl}/sign#${token}`);
}

/** A tap, after the short pause a person makes between two (a tap at once would be taken for a double tap). */
async function tap(page: Page, selector: string): Promise<void> {
  await page.waitForTimeout(350);
  await page.locator(selector).tap();
}

/**
 * Taps `selector`, which should close the dialog `dialog`. Chromium's touch emulation may take a tap
 * that follows a stroke closely for part of the gesture when the machine is loaded (CI once saw the
 * dialog stay open with no error): the tap is repeated, at most twice, while the dialog is open and
 * its `error` element is hidden. An error the page shows (a drawing it refused) fails at once with
 * its text.
 */
async function tapToCloseDialog(page: Page, selector: string, dialog: string, error: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await tap(page, selector);
    // Polled with `page.evaluate`: the string `page.waitForFunction` evaluates is refused by the page's
    // Content-Security-Policy (an EvalError the page reports) whenever the first look is not the answer.
    const outcome = await waitUntil(
      async () =>
        (await page.evaluate(`(() => {
          const error = document.querySelector(${JSON.stringify(error)});
          if (error && !error.hidden) return 'error: ' + error.textContent;
          return document.querySelector(${JSON.stringify(dialog)})?.hasAttribute('open') ? false : 'closed';
        })()`)) as string | false,
      10_000,
      `${dialog} to close`,
      { everyMs: 100 },
    ).catch(() => 'still open');
    if (outcome === 'closed') return;
    if (outcome !== 'still open' || attempt === 3) throw new Error(`tapping ${selector} left ${dialog} open (${outcome})`);
  }
}

/** Creates and sends an envelope that expires at `expiresAt`. */
async function expiringEnvelope(recipient: string, expiresAt: string): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, owner, contract);
  const response = await env.api.request('PUT', `/envelopes/${id}`, {
    token: owner.token,
    json: { signers: [{ name: 'Annie Easley', email: recipient }], expiresAt, status: 'sent' },
  });
  expect(response.status).toBe(200);
  return id;
}

/** The page, with what it must never have done. */
function expectWellBehaved(visit: Visitor, token: string): void {
  expect(visit.watch.foreignRequests).toEqual([]);
  expect(visit.watch.errors).toEqual([]);
  // The token travels only as the bearer token of the recipient's API: never in a URL, never elsewhere.
  expect(visit.requests.filter((request) => request.url.includes(token))).toEqual([]);
  const withToken = visit.requests.filter((request) => request.authorization === `Bearer ${token}`);
  expect(withToken.length).toBeGreaterThan(0);
  for (const request of visit.requests) {
    // The recipient's API only: its view, the disclosure in the page's language, completing and declining.
    if (request.authorization !== undefined) expect(new URL(request.url).pathname).toMatch(/^\/api\/signing(\/complete|\/decline|\/disclosure)?$/);
  }
  expect(visit.requests.filter((request) => request.referer !== undefined && request.referer.includes('#'))).toEqual([]);
}

/** Draws strokes (fractions of the element's box) with touch events, as a finger does, through the DevTools protocol. */
async function drawWithTouch(page: Page, selector: string, strokes: [number, number][][]): Promise<void> {
  const box = (await page.locator(selector).boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  for (const stroke of strokes) {
    const points = interpolate(stroke);
    const at = ([x, y]: [number, number]) => ({ x: box.x + x * box.width, y: box.y + y * box.height });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [at(points[0]!)] });
    // The moves go out together, in their order (the browser takes a session's commands in turn), as a
    // finger reports them without waiting for the page: awaiting each answer first made the three
    // strokes' 1,280 moves take about 20 ms each.
    await Promise.all(points.slice(1).map((point) => cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [at(point)] })));
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  }
  await cdp.detach();
}

/** Draws strokes (fractions of the element's box) with the mouse. */
async function drawWithMouse(page: Page, selector: string, strokes: [number, number][][]): Promise<void> {
  const box = (await page.locator(selector).boundingBox())!;
  for (const stroke of strokes) {
    const points = interpolate(stroke);
    await page.mouse.move(box.x + points[0]![0] * box.width, box.y + points[0]![1] * box.height);
    await page.mouse.down();
    for (const [x, y] of points.slice(1)) await page.mouse.move(box.x + x * box.width, box.y + y * box.height);
    await page.mouse.up();
  }
}

/** Ten points per segment, as a pointer reports a movement. */
function interpolate(stroke: [number, number][]): [number, number][] {
  const points: [number, number][] = [];
  for (let index = 0; index < stroke.length - 1; index++) {
    const [x0, y0] = stroke[index]!;
    const [x1, y1] = stroke[index + 1]!;
    for (let step = 0; step < 10; step++) points.push([x0 + ((x1 - x0) * step) / 10, y0 + ((y1 - y0) * step) / 10]);
  }
  points.push(stroke.at(-1)!);
  return points;
}

/**
 * A handwritten-looking signature in pad fractions: a capital loop, a running line of loops, and a
 * flourish under them (each point then joined by ten, as a pointer reports a movement).
 */
const SIGNATURE_STROKES: [number, number][][] = [
  curve(28, (t) => [0.12 + 0.1 * Math.sin(Math.PI * t) - 0.04 * t, 0.75 - 0.55 * Math.sin((Math.PI * t) / 1.2)]),
  curve(80, (t) => [0.16 + 0.66 * t - 0.05 * Math.sin(10 * Math.PI * t), 0.52 + 0.12 * Math.cos(10 * Math.PI * t) * (t < 0.05 ? t / 0.05 : 1)]),
  curve(20, (t) => [0.1 + 0.8 * t, 0.8 + 0.05 * Math.sin(Math.PI * t * 2)]),
];

function curve(count: number, at: (t: number) => [number, number]): [number, number][] {
  return Array.from({ length: count + 1 }, (_, index) => at(index / count));
}

/** The element that has the focus, described: tag, id, data-type, aria-label, text. */
async function focused(page: Page): Promise<{ id: string; type: string; name: string; visibleFocus: boolean }> {
  return (await page.evaluate(`(() => {
    const element = document.activeElement;
    // A field on a page is an invisible hit area: its ring goes round the drawn box that follows it.
    const ringed = element.classList.contains('field-hit') ? element.nextElementSibling : element;
    const style = getComputedStyle(ringed);
    return {
      id: element.id,
      type: element.dataset.type || element.type || element.tagName.toLowerCase(),
      name: element.getAttribute('aria-label') || element.textContent.trim(),
      visibleFocus: (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2) || style.boxShadow !== 'none',
    };
  })()`)) as { id: string; type: string; name: string; visibleFocus: boolean };
}

/** Presses Tab until `matches` holds for the focused element; every stop on the way must show its focus. */
async function tabTo(page: Page, matches: (element: Awaited<ReturnType<typeof focused>>) => boolean, limit = 40): Promise<void> {
  for (let step = 0; step < limit; step++) {
    await page.keyboard.press('Tab');
    const element = await focused(page);
    expect({ element, visibleFocus: element.visibleFocus }).toEqual({ element, visibleFocus: true });
    if (matches(element)) return;
  }
  throw new Error('the focus never reached the element');
}

// ---- The sealed PDF's pixels ----------------------------------------------------------------------

interface GrayImage {
  width: number;
  height: number;
  pixels: Uint8Array;
}

/** One page of a PDF as a grayscale image (pdftoppm's PGM), `dpi` dots per inch. */
async function renderGray(pdf: Uint8Array, page: number, dpi: number): Promise<GrayImage> {
  const file = await tempFile(pdf);
  const result = await tool('pdftoppm', ['-gray', '-r', String(dpi), '-f', String(page), '-l', String(page), file, `${file}-page`]);
  expect(result.code).toBe(0);
  const produced = (await tool('sh', ['-c', `ls "${file}-page"*.pgm`])).stdout.trim();
  const bytes = await readFile(produced);
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 40).toString('latin1'))!;
  const width = Number(header[1]);
  const height = Number(header[2]);
  return { width, height, pixels: bytes.subarray(header[0].length, header[0].length + width * height) };
}

/** Pixels darker than mid-grey inside a rectangle (fractions of the page). */
function darkPixels(image: GrayImage, rect: PageRect): number {
  let count = 0;
  for (let y = Math.ceil(rect.y * image.height); y < Math.floor((rect.y + rect.height) * image.height); y++) {
    for (let x = Math.ceil(rect.x * image.width); x < Math.floor((rect.x + rect.width) * image.width); x++) {
      if (image.pixels[y * image.width + x]! < 128) count++;
    }
  }
  return count;
}

/** Pixels that differ clearly between two renderings, outside every one of `rects` (each widened by `margin` pixels). */
function changedOutside(before: GrayImage, after: GrayImage, rects: PageRect[], margin: number): number {
  let count = 0;
  for (let y = 0; y < before.height; y++) {
    for (let x = 0; x < before.width; x++) {
      const inside = rects.some(
        (rect) =>
          x >= rect.x * before.width - margin && x <= (rect.x + rect.width) * before.width + margin &&
          y >= rect.y * before.height - margin && y <= (rect.y + rect.height) * before.height + margin,
      );
      if (!inside && Math.abs(before.pixels[y * before.width + x]! - after.pixels[y * before.width + x]!) > 64) count++;
    }
  }
  return count;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('GET /api/sign in Chromium', () => {
  const ada = address('ada');
  const grace = address('grace');
  const katherine = address('katherine');
  const adaBlock = AGREEMENT_LAYOUT.party(0);
  const graceBlock = AGREEMENT_LAYOUT.party(1);
  const katherineBlock = AGREEMENT_LAYOUT.party(2);
  const graceCheckbox = { page: 2, x: graceBlock.date.x, y: graceBlock.date.y, width: 0.035, height: 0.025 };
  let envelopeId: string;
  let adaToken: string;

  test('three signers sign in turn, by touch, by keyboard and by mouse, and the last downloads the sealed PDF', async () => {
    const sent = await sentEnvelope(env.api, owner, {
      pdf: contract,
      signingOrder: 'sequential',
      signers: [
        { name: 'Ada Lovelace', email: ada, routingOrder: 1 },
        { name: 'Grace Hopper', email: grace, routingOrder: 2 },
        { name: 'Katherine Johnson', email: katherine, routingOrder: 2 },
      ],
      fields: [
        { recipient: 0, type: 'initials', ...AGREEMENT_LAYOUT.initials },
        { recipient: 0, type: 'signature', ...adaBlock.signature },
        { recipient: 0, type: 'name', ...adaBlock.name },
        { recipient: 0, type: 'text', label: 'Job title', ...adaBlock.title },
        { recipient: 0, type: 'date_signed', ...adaBlock.date },
        { recipient: 1, type: 'signature', ...graceBlock.signature },
        { recipient: 1, type: 'name', ...graceBlock.name },
        { recipient: 1, type: 'text', label: 'Job title', required: false, ...graceBlock.title },
        { recipient: 1, type: 'checkbox', label: 'I accept the term of clause 5', ...graceCheckbox },
        { recipient: 2, type: 'signature', ...katherineBlock.signature },
        { recipient: 2, type: 'date_signed', ...katherineBlock.date },
      ],
    });
    envelopeId = sent.id;

    // ---- Ada, on a phone: touch only.
    adaToken = (await waitForSigningLink(ada, { subject: /^Please review and sign/ })).token;
    const first = await visitor({ mobile: true });
    const page = first.page;
    await openLink(page, adaToken);
    await ceremonyReady(page);
    // The token left the address bar at once, and stays in this tab for a reload.
    expect(page.url()).toBe(`${env.service.apiUrl}/sign`);
    expect(await page.evaluate(`sessionStorage.getItem('envelope-signing-token')`)).toBe(adaToken);
    await page.reload();
    await ceremonyReady(page);
    await expect(page.locator('#request-heading').textContent()).resolves.toBe('Please sign contract.pdf');
    // The owner is named with the display name given at registration.
    await expect(page.locator('#request-line').textContent()).resolves.toBe(`Evelyn Boyd <${owner.email}> asks you to sign contract.pdf.`);
    await expect(page.locator('#recipient-line').textContent()).resolves.toBe(`You sign as Ada Lovelace (${ada}).`);
    // Only Ada's fields are on the pages, each named by its label or its type.
    const names = await page.locator('.pdf-page .field').evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label') ?? element.textContent));
    expect(names).toEqual(['Initials', 'Signature', 'Name', 'Job title', 'Date signed']);
    await expect(page.locator('#progress').textContent()).resolves.toBe('0 of 3 required fields done');
    await screenshot(page, 'sign-01-mobile-start', { fullPage: false });
    await expectNoViolations(page, 'ceremony, 390 px');

    // "Next field" leads to the initials; adopting them typed (the name's initials are offered).
    await tap(page, '#next-field');
    expect(await focused(page)).toMatchObject({ type: 'initials' });
    await tap(page, 'button.field[data-type="initials"]');
    await page.locator('#adopt-dialog[open]').waitFor();
    await expect(page.locator('#typed-input').inputValue()).resolves.toBe('AL');
    await expectNoViolations(page, 'adopt dialog, typed');
    await tap(page, '#adopt-button');
    await page.locator('.field[data-type="initials"][aria-pressed="true"]').waitFor();

    // The signature, drawn with a finger: the page does not scroll while drawing.
    await tap(page, '#next-field');
    expect(await focused(page)).toMatchObject({ type: 'signature' });
    await tap(page, 'button.field[data-type="signature"]');
    await page.locator('#adopt-dialog[open]').waitFor();
    await tap(page, 'label[for="mode-draw"]');
    await page.locator('#signature-pad').waitFor({ state: 'visible' });
    expect(await page.evaluate(`getComputedStyle(document.getElementById('signature-pad')).touchAction`)).toBe('none');
    const scrolled = await page.evaluate('window.scrollY');
    await drawWithTouch(page, '#signature-pad', SIGNATURE_STROKES);
    expect(await page.evaluate('window.scrollY')).toBe(scrolled);
    await screenshot(page, 'sign-02-mobile-drawn', { fullPage: false });
    await expectNoViolations(page, 'adopt dialog, drawn');
    // A finger lifts before it taps again (a tap at once would be taken for part of the gesture).
    await page.waitForTimeout(300);
    await tapToCloseDialog(page, '#adopt-button', '#adopt-dialog', '#adopt-error');
    await page.locator('.field[data-type="signature"][aria-pressed="true"] svg path').waitFor();

    // The text field, then the consent box: Finish without consent is refused with a plain message.
    await tap(page, '#next-field');
    expect(await focused(page)).toMatchObject({ type: 'text', name: 'Job title' });
    await page.keyboard.type('Mathematician');
    await expect(page.locator('#progress').textContent()).resolves.toBe('3 of 3 required fields done');
    await screenshot(page, 'sign-mobile-viewport', { fullPage: false });
    await tap(page, '#next-field');
    expect(await focused(page)).toMatchObject({ id: 'consent' });
    await screenshot(page, 'sign-03-mobile-filled', { fullPage: false });
    await tap(page, '#finish-button');
    await expect(page.locator('#finish-error').textContent()).resolves.toContain('Tick the box to agree to sign electronically.');
    await expectNoViolations(page, 'finish refused without consent');
    // The disclosure above the box is the service's, word for word.
    const disclosure = (await env.api.request('GET', '/disclosure')).body as { text: string; version: string };
    await expect(page.locator('#disclosure').textContent()).resolves.toBe(disclosure.text);
    await tap(page, '#consent');
    await tap(page, '#finish-button');
    await page.locator('#done-heading').filter({ hasText: 'Thank you: you signed contract.pdf' }).waitFor();
    await expect(page.locator('#done-body').textContent()).resolves.toContain('Once everyone has acted, the signed document comes to you by e-mail.');
    // The time it was recorded names its time zone (the browser's: the context's below).
    await expect(page.locator('#done-body').textContent()).resolves.toMatch(/Recorded on .+ at \d{1,2}:\d{2}(?: [AP]M)? (?:UTC|GMT[+-]?\d*|[A-Z]{3,5})\./);
    expect(await page.locator('#done-download').isHidden()).toBe(true);
    await screenshot(page, 'sign-04-mobile-done', { fullPage: false });
    await expectNoViolations(page, 'signed, waiting for the others');

    // Her link again: she already signed.
    await page.reload();
    await page.locator('#message-heading').filter({ hasText: 'You already signed this document' }).waitFor();
    await expect(page.locator('#message-body').textContent()).resolves.toContain('the signed document comes to you by e-mail');
    await expectNoViolations(page, 'already signed');
    expectWellBehaved(first, adaToken);

    // ---- Grace, at a desk: the keyboard alone.
    const graceToken = (await waitForSigningLink(grace, { subject: /^Please review and sign/ })).token;
    const second = await visitor({ mobile: false });
    const desk = second.page;
    await openLink(desk, graceToken);
    await ceremonyReady(desk);
    // What Ada filled in shows in place, read-only: her initials and signature as drawn or typed, her
    // name, job title and signing date; none of it can take the focus.
    const filled = desk.locator('.field-filled');
    await expect(filled.count()).resolves.toBe(5);
    await expect(filled.evaluateAll((elements) => elements.map((element) => element.getAttribute('aria-label')))).resolves.toEqual(
      expect.arrayContaining([expect.stringMatching(/^Initials of Ada Lovelace/), expect.stringMatching(/^Signature of Ada Lovelace/), 'Name, filled in by Ada Lovelace: Ada Lovelace', 'Job title, filled in by Ada Lovelace: Mathematician']),
    );
    await expect(desk.locator('.field-filled[data-type="signature"] svg path, .field-filled[data-type="signature"] svg text').count()).resolves.toBeGreaterThan(0);
    await expect(desk.locator('.field-filled[data-type="text"]').textContent()).resolves.toBe('Mathematician');
    await expect(filled.evaluateAll((elements) => elements.filter((element) => element.matches(':focus-within, [tabindex]')).length)).resolves.toBe(0);
    // "Open the document in your own PDF viewer" asks for a fresh read URL when it is used (the one the
    // page loaded with lasts 15 minutes), and opens it in a new window.
    const [fresh, viewer] = await Promise.all([
      desk.waitForRequest((request) => request.method() === 'GET' && /\/api\/signing$/.test(new URL(request.url()).pathname)),
      desk.context().waitForEvent('page'),
      desk.click('#document-link'),
    ]);
    expect(fresh.headers().authorization).toBe(`Bearer ${graceToken}`);
    await viewer.close();
    await screenshot(desk, 'sign-05-desktop-start');
    await expectNoViolations(desk, 'ceremony, 1280 px');
    // Tab leads through the page in reading order to her signature field.
    await tabTo(desk, (element) => element.type === 'signature');
    expect(await focused(desk)).toMatchObject({ name: 'Signature' });
    await desk.keyboard.press('Enter');
    await desk.locator('#adopt-dialog[open]').waitFor();
    expect(await focused(desk)).toMatchObject({ id: 'typed-input' });
    await desk.keyboard.press('ControlOrMeta+a');
    await desk.keyboard.type('Grace M. Hopper');
    await expect(desk.locator('#typed-preview').textContent()).resolves.toBe('Grace M. Hopper');
    await desk.keyboard.press('Enter');
    await desk.locator('.field[data-type="signature"][aria-pressed="true"] svg text').waitFor();
    await screenshot(desk, 'sign-desktop-viewport', { fullPage: false });
    // The focus came back to the field, now signed.
    expect(await focused(desk)).toMatchObject({ type: 'signature' });
    // "Next field" from the keyboard: the required check box (the optional text field is skipped).
    await tabTo(desk, (element) => element.id === 'next-field');
    await desk.keyboard.press('Enter');
    expect(await focused(desk)).toMatchObject({ type: 'checkbox', name: 'I accept the term of clause 5' });
    await desk.keyboard.press('Space');
    await tabTo(desk, (element) => element.id === 'consent');
    await desk.keyboard.press('Space');
    await tabTo(desk, (element) => element.id === 'finish-button');
    await screenshot(desk, 'sign-06-desktop-filled');
    await desk.keyboard.press('Enter');
    await desk.locator('#done-heading').filter({ hasText: 'Thank you: you signed contract.pdf' }).waitFor();
    expect(await focused(desk)).toMatchObject({ id: 'done-heading' });
    expectWellBehaved(second, graceToken);

    // ---- Katherine, with a mouse; her signature completes the envelope.
    const katherineToken = (await waitForSigningLink(katherine, { subject: /^Please review and sign/ })).token;
    const third = await visitor({ mobile: false });
    const mouse = third.page;
    await openLink(mouse, katherineToken);
    await ceremonyReady(mouse);
    await mouse.locator('button.field[data-type="signature"]').click();
    await mouse.locator('label[for="mode-draw"]').click();
    await drawWithMouse(mouse, '#signature-pad', SIGNATURE_STROKES.slice(2));
    await mouse.locator('#adopt-button').click();
    await mouse.locator('.field[data-type="signature"][aria-pressed="true"] svg path').waitFor();
    await mouse.locator('#consent').check();
    await mouse.locator('#finish-button').click();
    await mouse.locator('#done-heading').filter({ hasText: 'Thank you: you signed contract.pdf' }).waitFor({ timeout: 60_000 });
    await expect(mouse.locator('#done-body').textContent()).resolves.toContain('Everyone has now acted');
    await screenshot(mouse, 'sign-07-completed');
    await expectNoViolations(mouse, 'signed, envelope completed');
    const [download] = await Promise.all([mouse.waitForEvent('download'), mouse.getByRole('button', { name: 'Download the signed PDF' }).click()]);
    expect(download.suggestedFilename()).toBe('contract-signed.pdf');
    const saved = path.join(SCREENSHOT_DIR, '..', `sign-${stamp}.pdf`);
    await download.saveAs(saved);
    const sealed = await readFile(saved);
    expectWellBehaved(third, katherineToken);

    // The file is the envelope's sealed PDF.
    const envelope = await env.api.request('GET', `/envelopes/${envelopeId}`, { token: owner.token });
    expect(envelope.body.status).toBe('completed');
    expect(sha256(sealed)).toBe(envelope.body.hash);
    expect(envelope.body.signers.map((signer: { status: string }) => signer.status)).toEqual(['signed', 'signed', 'signed']);

    // The ink is inside each signature field, and nothing else on the pages changed.
    const dpi = 100;
    const [before1, after1, before2, after2] = await Promise.all([renderGray(contract, 1, dpi), renderGray(sealed, 1, dpi), renderGray(contract, 2, dpi), renderGray(sealed, 2, dpi)]);
    for (const [rect, before, after] of [
      [AGREEMENT_LAYOUT.initials, before1, after1],
      [adaBlock.signature, before2, after2],
      [graceBlock.signature, before2, after2],
      [katherineBlock.signature, before2, after2],
      [graceCheckbox, before2, after2],
    ] as const) {
      expect(darkPixels(after, rect) - darkPixels(before, rect)).toBeGreaterThan(20);
    }
    const page2Rects = [adaBlock, graceBlock, katherineBlock].flatMap((block) => [block.signature, block.name, block.title, block.date]);
    expect(changedOutside(before1, after1, [AGREEMENT_LAYOUT.initials], 2)).toBe(0);
    expect(changedOutside(before2, after2, [...page2Rects, graceCheckbox], 2)).toBe(0);
    // The values are text.
    const text = (await tool('pdftotext', ['-layout', await tempFile(sealed), '-'])).stdout;
    expect(text).toContain('Mathematician');
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('Grace Hopper');
    expect(text).toContain(new Date().toISOString().slice(0, 10));

    // Ada's link now offers the sealed PDF.
    await page.reload();
    await page.locator('#message-heading').filter({ hasText: 'This envelope is completed' }).waitFor();
    await page.getByRole('button', { name: 'Download the signed PDF' }).waitFor();
    await screenshot(page, 'sign-08-mobile-completed', { fullPage: false });
    await expectNoViolations(page, 'completed');
  }, patience(240_000));

  test('an approver approves, a viewer confirms having read it, and a signer without fields signs on the certificate', async () => {
    const signer = address('whole-signer');
    const approver = address('approver');
    const viewer = address('viewer');
    const sent = await sentEnvelope(env.api, owner, {
      pdf: contract,
      signers: [
        { name: 'Mary Somerville', email: signer },
        { name: 'Emmy Noether', email: approver, role: 'approver' },
        { name: 'Sophie Germain', email: viewer, role: 'viewer' },
      ],
    });

    // The viewer: no fields, no decline; she confirms having read the document.
    const reading = await visitor({ mobile: true });
    const viewerToken = (await waitForSigningLink(viewer, { subject: /^Please review: / })).token;
    await openLink(reading.page, viewerToken);
    await ceremonyReady(reading.page);
    await expect(reading.page.locator('#request-heading').textContent()).resolves.toBe('Please review contract.pdf');
    expect(await reading.page.locator('#decline-button').isHidden()).toBe(true);
    expect(await reading.page.locator('.pdf-page .field').count()).toBe(0);
    await expectNoViolations(reading.page, 'viewer');
    await tap(reading.page, '#next-field');
    expect(await focused(reading.page)).toMatchObject({ id: 'consent' });
    await tap(reading.page, '#consent');
    await tap(reading.page, '#finish-button');
    await reading.page.locator('#done-heading').filter({ hasText: 'Thank you: you reviewed contract.pdf' }).waitFor();
    expectWellBehaved(reading, viewerToken);

    // The approver, with the keyboard.
    const approving = await visitor({ mobile: false });
    const approverToken = (await waitForSigningLink(approver, { subject: /^Please review and approve: / })).token;
    await openLink(approving.page, approverToken);
    await ceremonyReady(approving.page);
    await expect(approving.page.locator('#request-heading').textContent()).resolves.toBe('Please approve contract.pdf');
    await tabTo(approving.page, (element) => element.id === 'consent');
    await approving.page.keyboard.press('Space');
    await tabTo(approving.page, (element) => element.id === 'finish-button');
    expect(await focused(approving.page)).toMatchObject({ name: 'Approve' });
    await approving.page.keyboard.press('Enter');
    await approving.page.locator('#done-heading').filter({ hasText: 'Thank you: you approved contract.pdf' }).waitFor();
    expectWellBehaved(approving, approverToken);

    // The signer has no field: she adopts a signature for the certificate, typed, and her answer completes the envelope.
    const signing = await visitor({ mobile: false });
    const signerToken = (await waitForSigningLink(signer, { subject: /^Please review and sign/ })).token;
    await openLink(signing.page, signerToken);
    await ceremonyReady(signing.page);
    await signing.page.locator('#consent').check();
    await signing.page.locator('#finish-button').click();
    await expect(signing.page.locator('#finish-error').textContent()).resolves.toContain('Adopt your signature first');
    expect(await focused(signing.page)).toMatchObject({ id: 'whole-signature-button', name: 'Signature' });
    await signing.page.keyboard.press('Enter');
    await signing.page.locator('#adopt-dialog[open]').waitFor();
    await signing.page.keyboard.press('ControlOrMeta+a');
    await signing.page.keyboard.type('M. Somerville');
    await signing.page.keyboard.press('Enter');
    await signing.page.locator('#whole-signature-button[aria-pressed="true"] svg text').waitFor();
    await expectNoViolations(signing.page, 'signature for the certificate');
    await signing.page.locator('#finish-button').click();
    await signing.page.locator('#done-heading').filter({ hasText: 'Thank you: you signed contract.pdf' }).waitFor({ timeout: 60_000 });
    await signing.page.getByRole('button', { name: 'Download the signed PDF' }).waitFor();
    expectWellBehaved(signing, signerToken);

    const envelope = await env.api.request('GET', `/envelopes/${sent.id}`, { token: owner.token });
    expect(envelope.body.status).toBe('completed');
    expect(envelope.body.signers.map((recipient: { status: string }) => recipient.status)).toEqual(['signed', 'approved', 'viewed']);
    const sealed = Buffer.from(await (await fetch(envelope.body.signedUrl)).arrayBuffer());
    const text = (await tool('pdftotext', [await tempFile(sealed), '-'])).stdout;
    expect(text).toContain('M. Somerville');
  }, patience(180_000));

  test('a signer declines with a reason; the older link of a resent invitation no longer works', async () => {
    const dorothy = address('dorothy');
    const katherineB = address('katherine-b');
    const sent = await sentEnvelope(env.api, owner, {
      pdf: contract,
      signers: [
        { name: 'Katherine Johnson', email: katherineB },
        { name: 'Dorothy Vaughan', email: dorothy },
      ],
      fields: [
        { recipient: 0, type: 'signature', ...katherineBlock.signature },
        { recipient: 1, type: 'signature', ...adaBlock.signature },
      ],
    });
    const oldToken = (await waitForSigningLink(katherineB, { subject: /^Please review and sign/ })).token;
    const resend = await env.api.request('POST', `/envelopes/${sent.id}/recipients/${sent.recipientIds[0]}/resend`, { token: owner.token });
    expect(resend.status).toBe(202);
    const newToken = (await waitForSigningLink(katherineB, { subject: /^Please review and sign/, count: 2 })).token;
    expect(newToken).not.toBe(oldToken);

    const visit = await visitor({ mobile: true });
    const page = visit.page;
    await openLink(page, oldToken);
    await page.locator('#message-heading').filter({ hasText: 'This link no longer works' }).waitFor();
    await screenshot(page, 'sign-09-link-replaced', { fullPage: false });
    await expectNoViolations(page, 'link no longer valid');

    await openLink(page, newToken);
    await ceremonyReady(page);
    await tap(page, '#decline-button');
    await page.locator('#decline-dialog[open]').waitFor();
    await tap(page, '#decline-confirm');
    await expect(page.locator('#decline-error').textContent()).resolves.toContain('Please say why you are declining');
    // Two lines in the box: the API takes a reason on one line, so the page joins them with a space.
    await page.locator('#decline-reason').fill('The term in clause 5\nis too long.');
    await expectNoViolations(page, 'decline dialog');
    await screenshot(page, 'sign-09-decline-dialog', { fullPage: false });
    await tap(page, '#decline-confirm');
    await page.locator('#done-heading').filter({ hasText: 'You declined contract.pdf' }).waitFor();
    await screenshot(page, 'sign-10-declined', { fullPage: false });
    await expectNoViolations(page, 'declined');
    expectWellBehaved(visit, newToken);

    const envelope = await env.api.request('GET', `/envelopes/${sent.id}`, { token: owner.token });
    expect(envelope.body.status).toBe('declined');
    expect(envelope.body.signers[0]).toMatchObject({ status: 'declined', declineReason: 'The term in clause 5 is too long.' });
    const declined = await waitForEmails(owner.email, { subject: 'Declined: contract.pdf' });
    expect(declined.at(-1)!.text).toContain('The term in clause 5 is too long.');

    // The other signer's link now says so.
    const other = await visitor({ mobile: false });
    await openLink(other.page, (await waitForSigningLink(dorothy, { subject: /^Please review and sign/ })).token);
    await other.page.locator('#message-heading').filter({ hasText: 'This envelope was declined' }).waitFor();
    await expect(other.page.locator('#message-body').textContent()).resolves.toContain('A recipient declined contract.pdf');
    await expectNoViolations(other.page, 'declined by another');
  }, patience(120_000));

  test('says plainly when there is no link, when it is not the recipient\'s turn, and when the envelope was withdrawn or has expired', async () => {
    const visit = await visitor({ mobile: false });
    const page = visit.page;
    await page.goto(`${env.service.apiUrl}/sign`);
    await page.locator('#message-heading').filter({ hasText: 'This page needs the link from your e-mail' }).waitFor();
    await expectNoViolations(page, 'no link');
    await openLink(page, 'x'.repeat(43));
    await page.locator('#message-heading').filter({ hasText: 'This link no longer works' }).waitFor();

    // Not the recipient's turn: the service never gives a link before a recipient's turn comes (its
    // guard answers 409 all the same), so this view is the real one with `canAct` and `waitingFor` as
    // the API would set them, put in place of the answer to `GET /api/signing`.
    const earlyAddress = address('early');
    await sentEnvelope(env.api, owner, { pdf: contract, signers: [{ name: 'Valerie Thomas', email: earlyAddress }] });
    const earlyToken = (await waitForSigningLink(earlyAddress, { subject: /^Please review and sign/ })).token;
    await page.route(`${env.service.apiUrl}/signing`, async (route) => {
      const response = await route.fetch();
      const view = { ...(await response.json()), canAct: false, waitingFor: [{ name: 'Ada Lovelace', role: 'signer' }, { name: 'Emmy Noether', role: 'approver' }] };
      await route.fulfill({ response, json: view });
    });
    await openLink(page, earlyToken);
    await page.locator('#message-heading').filter({ hasText: 'It is not your turn yet' }).waitFor();
    await expect(page.locator('#message-body').textContent()).resolves.toContain('Ada Lovelace must sign and Emmy Noether must approve contract.pdf first.');
    await expectNoViolations(page, 'not your turn');
    await page.unroute(`${env.service.apiUrl}/signing`);

    const voidedAddress = address('voided');
    const voided = await sentEnvelope(env.api, owner, { pdf: contract, signers: [{ name: 'Mary Jackson', email: voidedAddress }] });
    const voidedToken = (await waitForSigningLink(voidedAddress, { subject: /^Please review and sign/ })).token;
    expect((await env.api.request('PATCH', `/envelopes/${voided.id}`, { token: owner.token, json: { status: 'voided' } })).status).toBe(200);
    await openLink(page, voidedToken);
    await page.locator('#message-heading').filter({ hasText: 'This envelope was withdrawn' }).waitFor();
    await expect(page.locator('#message-body').textContent()).resolves.toContain(`Its sender, Evelyn Boyd <${owner.email}>, withdrew (voided) contract.pdf`);
    await expectNoViolations(page, 'voided');

    const expiringAddress = address('expiring');
    const expiresAt = new Date(Date.now() + 4000).toISOString();
    await expiringEnvelope(expiringAddress, expiresAt);
    const expiringToken = (await waitForSigningLink(expiringAddress, { subject: /^Please review and sign/ })).token;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(expiresAt) - Date.now() + 200)));
    await openLink(page, expiringToken);
    await page.locator('#message-heading').filter({ hasText: 'This envelope has expired' }).waitFor();
    await screenshot(page, 'sign-11-expired');
    await expectNoViolations(page, 'expired');
    expect(visit.watch.foreignRequests).toEqual([]);
    expect(visit.watch.errors).toEqual([]);
  }, patience(120_000));
});
