/**
 * Files from signers on the signing page (docs/api.md#files-from-signers, docs/pages.md) in a real
 * Chromium on a 390 × 844 touch screen: "Next field" reaches the attachment field, a file of a type
 * the field does not take is refused in plain words, a PDF uploads (its name and size shown, with
 * Replace and Remove; Remove empties the field again), a PNG uploads to the image field and shows in
 * the field's rectangle, and the required file fields count in the progress. A later signer sees the
 * files as name, type and size only. The sealed PDF holds both files as associated files, the very
 * bytes of the photo. axe-core finds no WCAG 2.2 A or AA violation. Screenshots:
 * `test-output/screenshots/sign-files-*.png`.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { expectNoViolations, screenshot, signingPageFile, type SigningPageFile } from '../support/browser.js';
import { png } from '../support/images.js';
import { corpusPdf, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';
import { patience } from '../support/patience.js';

const STEP_TIMEOUT_MS = patience(30_000);

let env: TestService;
let owner: TestUser;
let contract: Buffer;
let openPage: SigningPageFile['open'];
signingPageFile((started) => ({ env, owner, contract, open: openPage } = started));

/** The signing page for `token`, on a phone or a desk, once its pages and fields are laid out. */
const open = (token: string, mobile: boolean): Promise<Page> => openPage(token, mobile, STEP_TIMEOUT_MS);

/** A tap, after the short pause a person makes between two (a tap at once would be taken for a double tap). */
async function tap(page: Page, selector: string): Promise<void> {
  await page.waitForTimeout(350);
  await page.locator(selector).first().tap();
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('attachment and image fields on the signing page', () => {
  test('on a phone: a wrong type refused in plain words, a PDF and a PNG uploaded, the progress counting them; a later signer sees name, type and size; the sealed PDF holds both', async () => {
    const ada = 'ada-files@example.com';
    const bob = 'bob-files@example.com';
    const { id } = await sentEnvelope(env.api, owner, {
      pdf: contract,
      signers: [{ email: ada, name: 'Ada Lovelace' }, { email: bob, name: 'Bob Later', routingOrder: 2 }],
      signingOrder: 'sequential',
      fields: [
        { recipient: 0, type: 'attachment', page: 1, x: 0.1, y: 0.3, width: 0.35, height: 0.04, label: 'Passport', accept: ['application/pdf'] },
        { recipient: 0, type: 'image', page: 1, x: 0.55, y: 0.3, width: 0.35, height: 0.12, label: 'Photo' },
        { recipient: 0, type: 'signature', page: 1, x: 0.1, y: 0.6, width: 0.35, height: 0.06 },
        { recipient: 1, type: 'signature', page: 1, x: 0.55, y: 0.6, width: 0.35, height: 0.06 },
      ],
    });
    const page = await open(await signingTokenFor(owner.userId, id, ada), true);
    const passport = page.locator('.pdf-page input[type="file"][aria-label="Passport"]');
    const photoInput = page.locator('.pdf-page input[type="file"][aria-label="Photo"]');
    await expect(passport.getAttribute('accept')).resolves.toBe('application/pdf');
    await expect(photoInput.getAttribute('accept')).resolves.toBe('image/jpeg,image/png');
    await expect(page.locator('#progress').textContent()).resolves.toBe('0 of 3 required fields done');
    // An empty file field shows its name, as other fields do.
    await expect(page.locator('.field-file-preview').allTextContents()).resolves.toEqual(['Passport', 'Photo']);

    // "Next field" reaches the attachment field first (reading order).
    await tap(page, '#next-field');
    await page.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }).document.activeElement?.getAttribute('aria-label') === 'Passport');

    // A text file where only PDFs go: the service's 415, in the page's words; nothing becomes the value.
    await passport.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a PDF\n') });
    const status = (label: string) => page.locator(`.file-panel[aria-label="${label}"] .file-status`);
    await status('Passport').filter({ hasText: 'This field takes only PDF files: choose another file.' }).waitFor();
    await expect(status('Passport').getAttribute('class')).resolves.toContain('file-error');
    await expect(passport.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.locator('#progress').textContent()).resolves.toBe('0 of 3 required fields done');
    await screenshot(page, 'sign-files-01-refused', { fullPage: false });
    await expectNoViolations(page, 'file field, refused');

    // The PDF: its name and size (grouped as English writes numbers), Replace and Remove.
    const pdf = await corpusPdf('normal.pdf');
    await passport.setInputFiles({ name: 'passport scan é.pdf', mimeType: 'application/pdf', buffer: pdf });
    await status('Passport').filter({ hasText: /^Uploaded: passport scan é\.pdf, [0-9]{1,3}(,[0-9]{3})* bytes$/ }).waitFor();
    expect(await passport.getAttribute('aria-invalid')).toBeNull();
    await expect(page.locator('#progress').textContent()).resolves.toBe('1 of 3 required fields done');
    await expect(page.locator('.file-panel[aria-label="Passport"] button').allTextContents()).resolves.toEqual(['Replace', 'Remove']);
    // Remove empties the field; the same file again fills it.
    await tap(page, '.file-panel[aria-label="Passport"] button:text-is("Remove")');
    await expect(page.locator('#progress').textContent()).resolves.toBe('0 of 3 required fields done');
    await passport.setInputFiles({ name: 'passport scan é.pdf', mimeType: 'application/pdf', buffer: pdf });
    await status('Passport').filter({ hasText: /^Uploaded: passport scan é\.pdf, / }).waitFor();

    // The photo: shown in the field's rectangle from the local file.
    await tap(page, '#next-field');
    await page.waitForFunction(() => (globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }).document.activeElement?.getAttribute('aria-label') === 'Photo');
    const photo = png(120, 90);
    await photoInput.setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: photo });
    await status('Photo').filter({ hasText: `Uploaded: photo.png, ${photo.length} bytes` }).waitFor();
    const thumbnail = page.locator('.field-file-preview img');
    await expect(thumbnail.getAttribute('src')).resolves.toMatch(/^blob:/);
    await page.waitForFunction((element) => (element as unknown as { complete: boolean; naturalWidth: number }).complete && (element as unknown as { naturalWidth: number }).naturalWidth === 120, await thumbnail.elementHandle());
    await expect(page.locator('#progress').textContent()).resolves.toBe('2 of 3 required fields done');
    await screenshot(page, 'sign-files-02-uploaded', { fullPage: false });

    // The signature, typed; then finish.
    await tap(page, 'button.field[data-type="signature"]');
    await page.locator('#adopt-dialog[open]').waitFor();
    await page.locator('#typed-input').fill('Ada Lovelace');
    await tap(page, '#adopt-button');
    await page.locator('.field[data-type="signature"][aria-pressed="true"]').waitFor();
    await expect(page.locator('#progress').textContent()).resolves.toBe('3 of 3 required fields done');
    await expectNoViolations(page, 'file fields, uploaded');
    await tap(page, '#consent');
    await tap(page, '#finish-button');
    await page.locator('#done-heading').filter({ hasText: 'Thank you: you signed' }).waitFor();

    // Bob sees the files as name, type and size; signs and completes the envelope.
    const later = await open(await signingTokenFor(owner.userId, id, bob), false);
    const given = later.locator('.field-filled[data-type="attachment"]');
    await expect(given.textContent()).resolves.toBe('passport scan é.pdf');
    await expect(later.locator('.field-filled[data-type="image"]').textContent()).resolves.toBe('photo.png');
    await expect(given.getAttribute('aria-label')).resolves.toMatch(/^Passport, given by Ada Lovelace: passport scan é\.pdf \(PDF, [0-9,]+ bytes\)$/);
    await expect(later.locator('.field-filled[data-type="image"]').getAttribute('aria-label')).resolves.toBe(`Photo, given by Ada Lovelace: photo.png (PNG, ${photo.length} bytes)`);
    expect(await later.locator('.field-filled img, .field-filled a').count()).toBe(0);
    await screenshot(later, 'sign-files-03-later', { fullPage: false });
    await later.locator('button.field[data-type="signature"]').click();
    await later.locator('#adopt-dialog[open]').waitFor();
    await later.locator('#typed-input').fill('Bob Later');
    await later.locator('#adopt-button').click();
    await later.locator('.field[data-type="signature"][aria-pressed="true"]').waitFor();
    await later.locator('#consent').check();
    await later.locator('#finish-button').click();
    await later.locator('#done-heading:not(:empty), #finish-error:not([hidden])').first().waitFor({ timeout: patience(60_000) });
    expect(await later.locator('#finish-error').isHidden() ? '' : await later.locator('#finish-error').textContent()).toBe('');
    await later.locator('#done-heading').filter({ hasText: 'Thank you: you signed' }).waitFor();

    // The envelope completed with both files embedded in the sealed PDF.
    const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
    expect(envelope.status).toBe('completed');
    const completed = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(completed.status).toBe(200);
    const file = await tempFile(new Uint8Array(await (await fetch(completed.body.signedUrl)).arrayBuffer()), 'sealed.pdf');
    const listing = (await tool('qpdf', ['--list-attachments', '--verbose', file])).stdout;
    expect(listing).toMatch(/^passport scan é\.pdf -> /m);
    expect(listing).toMatch(/^photo\.png -> /m);
    expect(listing).toMatch(/mime type: application\/pdf$/m);
    expect(listing).toMatch(/mime type: image\/png$/m);
    const out = await mkdtemp(path.join(os.tmpdir(), 'sign-files-'));
    expect((await tool('pdfdetach', ['-saveall', '-o', out, file])).code).toBe(0);
    expect(sha256(await readFile(path.join(out, 'photo.png')))).toBe(sha256(photo));
  }, patience(240_000));
});
