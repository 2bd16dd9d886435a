/**
 * The console's documents card in a real Chromium (`GET /api/console`, docs/api.md#several-documents,
 * docs/api.md#documents-of-a-template): on a draft template, a second PDF is added from the browser,
 * renamed, moved first, chosen in the fields card (its page drawn), the output set to one combined
 * PDF, then removed after a confirmation; on a draft envelope, a document is added the same way.
 * Each step is checked through the API. axe-core finds no WCAG 2.2 A or AA violation, on a desktop
 * and at 390x844. Screenshots: `console-documents-*.png`.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { PDF, StandardFonts } from '@libpdf/core';
import { expectNoViolations, screenshot, waitInPage } from '../support/browser.js';
import { startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { patience } from '../support/patience.js';
import { corpusPdf, type TestService, type TestUser } from '../support/service.js';

const STEP_TIMEOUT_MS = patience(60_000);

let session: ConsoleSession;
let env: TestService;
let page: Page;
let owner: TestUser;

beforeAll(async () => {
  session = await startConsoleSession(STEP_TIMEOUT_MS);
  ({ env, page, owner } = session);
  // Handlers loaded one at a time before the console's first lists (see consoleTemplates.test.ts).
  for (const route of ['/templates', '/envelopes', '/webhooks', '/apikeys']) await env.api.request('GET', route, { token: owner.token });
});
afterAll(async () => {
  await session?.close();
});

const stamp = Date.now().toString(36);

/** A one-page PDF with its title written large, saved under the temporary folder as `<name>`. */
async function titledFile(name: string, title: string): Promise<string> {
  const document = PDF.create();
  document.addPage({ size: 'a4' }).drawText(title, { x: 60, y: 760, size: 20, font: StandardFonts.HelveticaBold });
  const file = path.join(os.tmpdir(), name);
  await writeFile(file, await document.save());
  return file;
}

const templateNow = async (id: string): Promise<any> => (await env.api.request('GET', `/templates/${id}`, { token: owner.token })).body;

describe('the console\'s documents card', () => {
  test('a draft template: add, rename, move first, place on the chosen document, combined output, remove', async () => {
    const lease = path.join(os.tmpdir(), `lease-${stamp}.pdf`);
    await writeFile(lease, await corpusPdf('normal.pdf'));
    const rules = await titledFile(`rules-${stamp}.pdf`, 'House rules');

    await page.goto(`${env.service.apiUrl}/console`);
    await page.locator('#login-email').fill(owner.email);
    await page.locator('#login-password').fill(owner.password);
    await page.locator('#login-password').press('Enter');
    await page.locator('#templates').waitFor();
    await page.locator('#template-name').fill('Packet');
    await page.locator('#template-file').setInputFiles(lease);
    await page.getByRole('button', { name: 'Create and upload' }).click();
    await page.locator('#template-heading').filter({ hasText: 'Template: Packet' }).waitFor();
    await waitInPage(page, `document.querySelectorAll('#template #field-pages .pdf-page-drawn').length === 2`);
    const id = (await page.locator('#template-id').textContent())!;
    // One document: no choice of document in the fields card.
    await expect(page.locator('#template #document-list li').count()).resolves.toBe(1);
    await expect(page.locator('#field-document-choice').isHidden()).resolves.toBe(true);

    // Add.
    await page.locator('#document-file').setInputFiles(rules);
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.locator('#status').filter({ hasText: `Added rules-${stamp}.pdf.` }).waitFor();
    await expect(page.locator('#document-list li').count()).resolves.toBe(2);
    let template = await templateNow(id);
    expect(template.documents.map((document: any) => document.name)).toEqual([`lease-${stamp}.pdf`, `rules-${stamp}.pdf`]);
    const rulesId = template.documents[1].id as string;

    // Rename: type the new name and leave the box.
    const name = page.getByLabel('Name of document 2');
    await name.fill('House rules.pdf');
    await name.press('Tab');
    await page.locator('#status').filter({ hasText: 'Renamed document 2 to House rules.pdf.' }).waitFor();
    // Move it first.
    await page.getByRole('button', { name: 'Move House rules.pdf up' }).click();
    await page.locator('#status').filter({ hasText: 'Moved House rules.pdf to place 1.' }).waitFor();
    template = await templateNow(id);
    expect(template.documents.map((document: any) => [document.id, document.name, document.order])).toEqual([
      [rulesId, 'House rules.pdf', 1],
      [id, `lease-${stamp}.pdf`, 2],
    ]);
    await expect(page.getByLabel('Name of document 1').inputValue()).resolves.toBe('House rules.pdf');

    // The fields card offers both documents and keeps the one on show (the lease, two pages); the
    // one chosen is drawn with its own pages.
    await expect(page.locator('#field-document-choice').isVisible()).resolves.toBe(true);
    await expect(page.locator('#field-document option').allTextContents()).resolves.toEqual(['1. House rules.pdf', `2. lease-${stamp}.pdf`]);
    await expect(page.locator('#field-document').inputValue()).resolves.toBe(id);
    await waitInPage(page, `document.querySelectorAll('#template #field-pages .pdf-page-drawn').length === 2`);
    await page.locator('#field-document').selectOption(rulesId);
    await waitInPage(page, `document.querySelectorAll('#template #field-pages .pdf-page-drawn').length === 1`);
    await expect(page.locator('#field-pages .pdf-page').first().getAttribute('aria-label')).resolves.toBe('Page 1 of 1 of House rules.pdf');

    // Output.
    await page.locator('#document-output').selectOption('combined');
    await page.locator('#status').filter({ hasText: 'Output: one PDF of all documents.' }).waitFor();
    expect((await templateNow(id)).output).toBe('combined');

    await page.locator('#documents-card').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'template with two documents');
    await screenshot(page, 'console-documents-01-template', { fullPage: false });
    const wide = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#documents-card').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'template with two documents, phone');
    await screenshot(page, 'console-documents-01-template-phone', { fullPage: false });
    await page.setViewportSize(wide);

    // Remove, after confirming; the last one cannot be removed.
    await page.getByRole('button', { name: 'Remove House rules.pdf' }).click();
    await page.locator('#confirm-dialog[open]').waitFor();
    await page.locator('#confirm-ok').click();
    await page.locator('#status').filter({ hasText: 'Removed House rules.pdf.' }).waitFor();
    template = await templateNow(id);
    expect(template.documents.map((document: any) => document.id)).toEqual([id]);
    await expect(page.getByRole('button', { name: `Remove lease-${stamp}.pdf` }).isDisabled()).resolves.toBe(true);
    await expect(page.locator('#field-document-choice').isHidden()).resolves.toBe(true);
  });

  test('a draft envelope: add a document', async () => {
    await page.locator('#upload-file').setInputFiles(await titledFile(`offer-${stamp}.pdf`, 'Offer'));
    await page.locator('#upload-form button[type="submit"]').click();
    await page.locator('#envelope-heading').filter({ hasText: `Envelope: offer-${stamp}.pdf` }).waitFor();
    await page.locator('#document-file').setInputFiles(await titledFile(`nda-${stamp}.pdf`, 'NDA'));
    await page.getByRole('button', { name: 'Add document' }).click();
    await page.locator('#status').filter({ hasText: `Added nda-${stamp}.pdf.` }).waitFor();
    await expect(page.locator('#envelope #document-list li').count()).resolves.toBe(2);
    const envelopeId = (await page.locator('#envelope-id').textContent())!;
    const envelope = (await env.api.request('GET', `/envelopes/${envelopeId}`, { token: owner.token })).body;
    expect(envelope.documents.map((document: any) => document.name)).toEqual([`offer-${stamp}.pdf`, `nda-${stamp}.pdf`]);
    await page.locator('#documents-card').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'envelope with two documents');
    await screenshot(page, 'console-documents-02-envelope', { fullPage: false });
  });
});
