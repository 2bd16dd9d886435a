/**
 * The signing page of an envelope of several documents ([docs/api.md#several-documents](../../docs/api.md#several-documents)),
 * in a real Chromium at 390 × 844 (touch) and on a desktop: a list of the documents, in order, each
 * linking to its document; each document under its name, its pages named with it; each field in its
 * own document's pages; following a link brings that document into view; the signer fills a field of
 * the second document and finishes, and the envelope completes with a sealed PDF per document.
 * Screenshots go to `test-output/screenshots/sign-documents-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext } from 'playwright-core';
import { PDF, StandardFonts } from '@libpdf/core';
import { ceremonyReady, expectNoViolations, screenshot, waitInPage } from '../support/browser.js';
import { startBrowserSession, type BrowserSession } from '../support/browserSession.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, putToSas, type TestService, type TestUser } from '../support/service.js';
import { signingTokenFor } from '../support/signing.js';

const STEP_TIMEOUT_MS = patience(30_000);

let session: BrowserSession;
let env: TestService;
let browser: Browser;
let owner: TestUser;
let contexts: BrowserContext[];

beforeAll(async () => {
  session = await startBrowserSession({ name: 'Mary Jackson' });
  ({ env, browser, owner, contexts } = session);
});
afterAll(async () => {
  await session?.close();
});

/** A one-page PDF with its title written large. */
async function titled(title: string): Promise<Uint8Array> {
  const document = PDF.create();
  document.addPage({ size: 'a4' }).drawText(title, { x: 60, y: 760, size: 20, font: StandardFonts.HelveticaBold });
  return await document.save();
}

/** A sent envelope of two documents, its signer's text field on the second; returns the signer's token. */
async function sentPacket(email: string): Promise<{ id: string; token: string; annexId: string }> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'), 'lease.pdf');
  const ticket = await env.api.request('POST', `/envelopes/${id}/documents`, { token: owner.token, json: { filename: 'house-rules.pdf', mimetype: 'application/pdf' } });
  expect(ticket.status).toBe(201);
  expect((await putToSas(ticket.body.uploadUrl, await titled('House rules'))).status).toBe(201);
  const annexId = ticket.body.documentId as string;
  const sent = await env.api.request('PUT', `/envelopes/${id}`, {
    token: owner.token,
    json: {
      signers: [{ id: '00000000-0000-4000-8000-000000000001', email, name: 'Mary Jackson' }],
      fields: [{ recipientId: '00000000-0000-4000-8000-000000000001', documentId: annexId, type: 'text', label: 'Parking space', page: 1, x: 0.1, y: 0.3, width: 0.4, height: 0.04 }],
      status: 'sent',
    },
  });
  expect(sent.status).toBe(200);
  return { id, token: await signingTokenFor(owner.userId, id, email), annexId };
}

describe('the signing page of several documents', () => {
  for (const device of [
    { name: 'phone', viewport: { width: 390, height: 844 }, mobile: true },
    { name: 'desktop', viewport: { width: 1280, height: 900 }, mobile: false },
  ]) {
    test(`${device.name}: lists the documents, shows each under its name with its own fields, and signs`, async () => {
      const { id, token, annexId } = await sentPacket(`documents-${device.name}-${Date.now().toString(36)}@example.com`);
      const context = await browser.newContext({ viewport: device.viewport, ...(device.mobile ? { hasTouch: true, isMobile: true, deviceScaleFactor: 2 } : {}) });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${env.service.apiUrl}/sign#${token}`);
      await ceremonyReady(page);

      // The list, in order, each entry linking to its document's section.
      expect(await page.locator('#document-list a').allTextContents()).toEqual(['lease.pdf', 'house-rules.pdf']);
      expect(await page.locator('#document-list a').evaluateAll((links) => links.map((link) => link.getAttribute('href')))).toEqual([`#document-${id}`, `#document-${annexId}`]);
      expect(await page.locator('section.document h3').allTextContents()).toEqual(['lease.pdf', 'house-rules.pdf']);
      // Two pages of the lease, one of the house rules, each named with its document.
      expect(await page.locator(`#document-${id} .pdf-page`).count()).toBe(2);
      expect(await page.locator(`#document-${annexId} .pdf-page`).count()).toBe(1);
      expect(await page.locator(`#document-${annexId} .pdf-page`).getAttribute('aria-label')).toBe('house-rules.pdf: Page 1 of 1');
      // The field is on the second document's page, nowhere else.
      expect(await page.locator(`#document-${annexId} .pdf-page [data-field-id]`).count()).toBeGreaterThan(0);
      expect(await page.locator(`#document-${id} .pdf-page [data-field-id]`).count()).toBe(0);
      await screenshot(page, `sign-documents-${device.name}-list`, { fullPage: false });

      // Following the second link brings the house rules into view.
      await page.locator('#document-list a').nth(1).click();
      await waitInPage(page, `(() => { const r = document.getElementById('document-${annexId}').getBoundingClientRect(); return r.top >= -1 && r.top < window.innerHeight; })()`);
      await screenshot(page, `sign-documents-${device.name}-second`, { fullPage: false });
      await expectNoViolations(page, `several documents (${device.name})`);

      // Fill the field, adopt a signature for the certificate, consent and finish.
      await page.locator(`#document-${annexId} input[data-field-id]`).fill('P-17');
      await page.locator('#whole-signature-button').click();
      await page.locator('#adopt-dialog[open]').waitFor();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('Mary Jackson');
      await page.keyboard.press('Enter');
      await page.locator('#whole-signature-button[aria-pressed="true"]').waitFor();
      await page.locator('#consent').check();
      await page.locator('#finish-button').click();
      await page.locator('#done-heading').waitFor({ timeout: patience(60_000) });
      await screenshot(page, `sign-documents-${device.name}-done`, { fullPage: false });
      expect(errors).toEqual([]);

      const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
      expect(completed.status).toBe(200);
      expect(completed.body.documents.map((document: { id: string }) => document.id)).toEqual([id, annexId]);
      expect(new Set(completed.body.documents.map((document: { hash: string }) => document.hash)).size).toBe(2);
    }, patience(180_000));
  }
});
