/**
 * Reassignment on the signing page (docs/api.md#reassignment) in a real Chromium on a phone-sized screen: when
 * the envelope allows it, the page offers "Someone else should sign this"; its dialog is accessible
 * (axe-core, labels, focus), says plainly what a wrong address is, and hands the part on; the page then
 * says so. An envelope that does not allow it offers nothing. Screenshots: `test-output/screenshots/reassign-*.png`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, screenshot } from '../support/browser.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, type TestService, type TestUser } from '../support/service.js';
import { signingTokenFor } from '../support/signing.js';
import { startBrowserSession, type BrowserSession } from '../support/browserSession.js';

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

async function sent(allowReassign: boolean): Promise<{ id: string; email: string }> {
  const email = `ada-${randomUUID()}@example.com`;
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
  const response = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { allowReassign, signers: [{ email, name: 'Ada Lovelace' }], status: 'sent' } });
  expect(response.status).toBe(200);
  return { id, email };
}

async function openSigningPage(id: string, email: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(STEP_TIMEOUT_MS);
  await page.goto(`${env.service.apiUrl}/sign#${await signingTokenFor(owner.userId, id, email)}`);
  await page.locator('#request-heading').filter({ hasText: 'Please sign' }).waitFor();
  return page;
}

describe('the signing page offers reassignment', () => {
  test('when allowed: an accessible dialog hands the part on, and the page says so', async () => {
    const { id, email } = await sent(true);
    const page = await openSigningPage(id, email);
    const offer = page.getByRole('button', { name: 'Someone else should sign this' });
    await offer.click();
    await page.locator('#reassign-dialog[open]').waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('reassign-name');
    expect(await axeViolations(page)).toEqual([]);

    const dialog = page.getByRole('dialog', { name: 'Hand this on to someone else' });
    await dialog.getByLabel('Their name').fill('Carol Jones');
    await dialog.getByLabel('Their e-mail address').fill(email);
    await dialog.getByLabel('Your reason').fill('Carol signs contracts for our company.');
    await dialog.getByRole('button', { name: 'Hand it on' }).click();
    // The address is already a recipient: the service's answer, on the address field.
    await page.locator('#reassign-error:not([hidden])').filter({ hasText: 'already a recipient' }).waitFor();
    expect(await page.locator('#reassign-email').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'reassign-dialog-phone');

    const carol = `carol-${randomUUID()}@example.com`;
    await dialog.getByLabel('Their e-mail address').fill(carol);
    await dialog.getByRole('button', { name: 'Hand it on' }).click();
    await page.locator('#message-heading').filter({ hasText: 'You handed this on' }).waitFor();
    expect(await page.locator('#message-body').textContent()).toContain(`Carol Jones (${carol}) has been invited to sign`);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'reassign-done-phone');

    const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
    expect(envelope.signers.map((signer: { email: string; status: string }) => [signer.email, signer.status])).toEqual([
      [email, 'reassigned'],
      [carol, 'sent'],
    ]);

    // Reloaded later, the page still says it.
    await page.reload();
    await page.locator('#message-heading').filter({ hasText: 'You handed this on' }).waitFor();
  });

  test('when not allowed, nothing is offered', async () => {
    const { id, email } = await sent(false);
    const page = await openSigningPage(id, email);
    await expect(page.locator('#reassign-offer').isHidden()).resolves.toBe(true);
  });
});
