/**
 * Two cards of the console in a real Chromium, at 1280x900 and at 390x844, with axe-core finding no
 * WCAG 2.2 A or AA violation:
 * - a template's public link ([docs/api.md#public-links](../../docs/api.md#public-links)): turned on
 *   with its open role, the fixed recipient of the other role and a limit; its URL shown and copied;
 *   the envelopes it made counted after a person used it; turned off, after which its URL is 404;
 * - the files signers gave ([docs/api.md#files-from-signers](../../docs/api.md#files-from-signers)):
 *   listed on the envelope with their field, signer, size and SHA-256, each downloaded with its
 *   SHA-256 checked (the saved bytes are the upload's).
 * Screenshots: `console-public-link-*.png`, `console-signer-files-*.png`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { expectNoViolations, screenshot } from '../support/browser.js';
import { startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { waitForEmails } from '../support/mail.js';
import { patience, waitUntil } from '../support/patience.js';
import { png } from '../support/images.js';
import { corpusPdf, putToSas, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, signingTokenFor } from '../support/signing.js';

const STEP_TIMEOUT_MS = patience(60_000);

let session: ConsoleSession;
let env: TestService;
let page: Page;
let owner: TestUser;

beforeAll(async () => {
  session = await startConsoleSession(STEP_TIMEOUT_MS);
  ({ env, page, owner } = session);
  // The console's first lists load several handlers at once; load them one at a time first (as consoleTemplates.test.ts does).
  for (const route of ['/templates', '/envelopes', '/webhooks', '/apikeys', '/bulk']) await env.api.request('GET', route, { token: owner.token });
}, patience(120_000));
afterAll(async () => {
  await session?.close();
});

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Opens the console on `on` (the desktop page by default) and logs the owner in. */
async function logIn(on: Page = page): Promise<void> {
  await on.goto(`${env.service.apiUrl}/console`);
  await on.locator('#login-email').fill(owner.email);
  await on.locator('#login-password').fill(owner.password);
  await on.locator('#login-password').press('Enter');
  await on.locator('#templates').waitFor();
}

/**
 * What sticks out of the screen's width once the page has laid itself out again after a change of
 * viewport (the document's pages are drawn again for the new width): waited for with a deadline;
 * the elements wider than the screen (tag, id, class, right edge) when it never fits, else [].
 */
async function overflowing(page: Page): Promise<string[]> {
  try {
    // Polled from here: a page function that Playwright polls is a string evaluated in the page, which the console's CSP refuses.
    await waitUntil(async () => (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true, 30_000, 'the page to fit the screen');
    return [];
  } catch (error) {
    // Elements past the right edge that no box of their own scrolls or clips (a wide table in its scroll box is fine).
    return ((await page.evaluate(`Array.from(document.querySelectorAll('body *')).filter((element) => {
      if (element.getClientRects().length === 0 || element.getBoundingClientRect().right <= window.innerWidth) return false;
      for (let parent = element.parentElement; parent !== null && parent !== document.body; parent = parent.parentElement) if (getComputedStyle(parent).overflowX !== 'visible') return false;
      return true;
    }).map((element) => element.tagName + '#' + element.id + '.' + element.className + ' ' + element.getBoundingClientRect().right.toFixed(2)).slice(0, 10)`)) as string[]).concat(`(${(error as Error).message.split('\n')[0]})`);
  }
}

/** A page of its own at 390x844 (a phone), logged in as the owner. */
async function phonePage(): Promise<Page> {
  const context = await session.browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  session.contexts.push(context);
  const phone = await context.newPage();
  phone.setDefaultTimeout(STEP_TIMEOUT_MS);
  await logIn(phone);
  return phone;
}

/** An active template of two signer roles: the client, who opens the link, then the landlord. */
async function leaseTemplate(): Promise<string> {
  const created = await env.api.request('POST', '/templates', { token: owner.token, json: { name: 'Room lease', filename: 'lease.pdf', mimetype: 'application/pdf' } });
  expect(created.status).toBe(201);
  const id = created.body.template.id as string;
  expect((await putToSas(created.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
  const activated = await env.api.request('PATCH', `/templates/${id}`, {
    token: owner.token,
    json: {
      roles: [{ id: 'client', name: 'Client' }, { id: 'landlord', name: 'Landlord', routingOrder: 2 }],
      signingOrder: 'sequential',
      fields: [
        { roleId: 'client', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.08 },
        { roleId: 'landlord', type: 'signature', page: 1, x: 0.5, y: 0.8, width: 0.3, height: 0.08 },
      ],
      status: 'active',
    },
  });
  expect(activated.status).toBe(200);
  return id;
}

describe('the console\'s public link card', () => {
  test('turn on with the open role, a fixed recipient and a limit; copy; see its uses; turn off', async () => {
    const id = await leaseTemplate();
    await logIn();
    await page.getByRole('button', { name: /^Open template Room lease/ }).click();
    await page.locator('#template-heading').filter({ hasText: 'Template: Room lease' }).waitFor();
    await page.locator('#public-link-form').waitFor();
    await expect(page.locator('#public-link-state').textContent()).resolves.toBe('Off: this template has no public link.');
    await expect(page.locator('#public-link-role option').allTextContents()).resolves.toEqual(['Client', 'Landlord']);

    // The landlord is the fixed recipient while the client opens the link; a missing address is the service's complaint.
    await page.locator('#public-link-role').selectOption('Client');
    await expect(page.locator('#public-link-recipients legend').allTextContents()).resolves.toEqual(['Landlord: the same person on every envelope']);
    await page.locator('#public-link-recipients').getByLabel('Name').fill('Lara Landlord');
    await page.locator('#save-public-link').click();
    await page.locator('#error').filter({ hasText: /e-?mail/i }).waitFor();
    expect((await env.api.request('GET', `/templates/${id}`, { token: owner.token })).body.publicLink).toBeNull();

    const lara = `lara-${randomUUID()}@example.com`;
    await page.locator('#public-link-recipients').getByLabel('E-mail address').fill(lara);
    await page.locator('#public-link-max-uses').fill('5');
    await page.locator('#save-public-link').click();
    await page.locator('#status').filter({ hasText: /^Public link on: / }).waitFor();
    const url = (await page.locator('#public-link-url').textContent())!;
    expect(url).toMatch(/\/api\/sign\/t\/[A-Za-z0-9_-]{22}$/);
    await expect(page.locator('#public-link-uses').textContent()).resolves.toBe('0 envelopes made through this URL of at most 5; it does not expire.');
    const stored = (await env.api.request('GET', `/templates/${id}`, { token: owner.token })).body.publicLink;
    expect(stored).toEqual({ enabled: true, url, uses: 0, roleName: 'Client', maxUses: 5, expiresAt: null, recipients: [{ roleName: 'Landlord', email: lara, name: 'Lara Landlord' }] });

    // Copy: to the clipboard where the page may use it, else the link is selected for Ctrl+C.
    await page.locator('#copy-public-link').click();
    await page.locator('#public-link-copied').filter({ hasText: /Copied to the clipboard\.|The link is selected/ }).waitFor();
    await expectNoViolations(page, 'the public link card');
    await screenshot(page, 'console-public-link-1280x900', { fullPage: false });

    // Someone uses the link: the card counts the envelope once the template is opened again.
    const publicId = url.split('/').pop()!;
    const pat = `pat-${randomUUID()}@example.com`;
    expect((await env.api.request('POST', `/public/${publicId}/start`, { json: { name: 'Pat Public', email: pat } })).status).toBe(202);
    const code = /\b(\d{6})\b/.exec((await waitForEmails(pat, { subject: 'Your code for Room lease' }))[0]!.text)![1]!;
    expect((await env.api.request('POST', `/public/${publicId}/verify`, { json: { email: pat, code } })).status).toBe(201);
    await page.getByRole('button', { name: /^Open template Room lease/ }).click();
    await page.locator('#public-link-uses').filter({ hasText: /^1 envelope made through this URL of at most 5/ }).waitFor();

    // On a phone the card fits the screen.
    const phone = await phonePage();
    await phone.getByRole('button', { name: /^Open template Room lease/ }).click();
    await phone.locator('#public-link-uses').filter({ hasText: /^1 envelope made/ }).waitFor();
    await phone.locator('#public-link-form').scrollIntoViewIfNeeded();
    expect(await overflowing(phone)).toEqual([]);
    await expectNoViolations(phone, 'the public link card on a phone');
    await screenshot(phone, 'console-public-link-390x844', { fullPage: false });

    await page.locator('#disable-public-link').click();
    await page.locator('#status').filter({ hasText: /^Public link off/ }).waitFor();
    await expect(page.locator('#public-link-state').textContent()).resolves.toBe('Off: its last URL answers 404.');
    await expect(page.locator('#public-link-on').isHidden()).resolves.toBe(true);
    expect((await env.api.request('GET', `/templates/${id}`, { token: owner.token })).body.publicLink).toMatchObject({ enabled: false, url: null, uses: null });
    expect((await env.api.request('GET', `/public/${publicId}`)).status).toBe(404);
  }, 12 * STEP_TIMEOUT_MS);
});

describe('the console\'s files from signers', () => {
  test('lists each file with its field, signer, size and SHA-256; a download saves the very bytes', async () => {
    const signer = `ada-${randomUUID()}@example.com`;
    const { id, envelope } = await sentEnvelope(env.api, owner, {
      signers: [{ email: signer, name: 'Ada Signer' }],
      fields: [
        { recipient: 0, type: 'attachment', page: 1, x: 0.1, y: 0.1, width: 0.3, height: 0.05, label: 'Passport' },
        { recipient: 0, type: 'image', page: 1, x: 0.1, y: 0.2, width: 0.3, height: 0.2, label: 'Photo' },
        { recipient: 0, type: 'signature', page: 1, x: 0.1, y: 0.6, width: 0.3, height: 0.06 },
      ],
    });
    const [attachmentField, imageField, signatureField] = (envelope.fields as { id: string }[]).map((field) => field.id) as [string, string, string];
    const token = await signingTokenFor(owner.userId, id, signer);
    const passport = await corpusPdf('normal.pdf');
    const photo = png(40, 30);
    const upload = async (fieldId: string, bytes: Uint8Array, type: string, name: string) => {
      const answer = await env.api.request('POST', `/signing/attachments?fieldId=${fieldId}`, { token, body: bytes, headers: { 'Content-Type': type, 'Content-Disposition': `attachment; filename="${name}"` } });
      expect(answer.status).toBe(201);
      return answer.body as { attachmentId: string; sha256: string; size: number };
    };
    const file = await upload(attachmentField, passport, 'application/pdf', 'passport.pdf');
    const image = await upload(imageField, photo, 'image/png', 'face.png');
    const signed = await env.api.request('POST', '/signing/complete', {
      token,
      json: { consent: true, values: [{ fieldId: attachmentField, value: { attachmentId: file.attachmentId } }, { fieldId: imageField, value: { attachmentId: image.attachmentId } }, { fieldId: signatureField, value: { typed: 'Ada Signer' } }] },
    });
    expect(signed.status).toBe(200);

    await logIn();
    await page.evaluate(`window.location.hash = '#envelope=${id}'`);
    await page.locator('#attachments-card').waitFor();
    const items = page.locator('#attachment-list li');
    await expect(items.count()).resolves.toBe(2);
    await expect(items.nth(0).locator('p').allTextContents()).resolves.toEqual(['passport.pdf', expect.stringMatching(/^Passport · [0-9.]+ KiB$/), expect.stringMatching(/^Given by Ada Signer, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/), `SHA-256 ${file.sha256}`]);
    await expect(items.nth(1).locator('p').allTextContents()).resolves.toEqual(['face.png', `Photo · ${photo.length} bytes`, expect.stringMatching(/^Given by Ada Signer, /), `SHA-256 ${image.sha256}`]);
    await page.locator('#attachments-card').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'the files from signers');
    await screenshot(page, 'console-signer-files-1280x900', { fullPage: false });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download face.png' }).click()]);
    expect(download.suggestedFilename()).toBe('face.png');
    expect(sha256(new Uint8Array(await readFile((await download.path())!)))).toBe(sha256(photo));
    await page.locator('#status').filter({ hasText: 'Downloaded face.png; its SHA-256 matches the one recorded at its upload.' }).waitFor();

    const phone = await phonePage();
    await phone.evaluate(`window.location.hash = '#envelope=${id}'`);
    await phone.locator('#attachment-list li').nth(1).waitFor();
    await phone.locator('#attachments-card').scrollIntoViewIfNeeded();
    expect(await overflowing(phone)).toEqual([]);
    await expectNoViolations(phone, 'the files from signers on a phone');
    await screenshot(phone, 'console-signer-files-390x844', { fullPage: false });
  }, 8 * STEP_TIMEOUT_MS);
});
