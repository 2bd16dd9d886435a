/**
 * Embedded signing (docs/api.md#embedded-signing) in a real Chromium: the example integrator page of the docs
 * (`docs/examples/embed.html`), served from another loopback origin than the service, shows a view in
 * an iframe and receives the signing page's events; a parent the view does not allow is refused by
 * Chromium (Content-Security-Policy `frame-ancestors`) and receives nothing; in a top-level window the
 * page goes to the view's `returnUrl` after the signature. No message ever carries the token. The
 * console sets a recipient's delivery and creates a view, showing its URL.
 * Screenshots: `test-output/screenshots/embed-*.png`.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { launchChromium, screenshot } from '../support/browser.js';
import { waitForEmails } from '../support/mail.js';
import { refreshEnvelopeList } from '../support/consoleSession.js';
import { patience, waitUntil } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, startTestService, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope } from '../support/signing.js';

const STEP_TIMEOUT_MS = patience(30_000);

let env: TestService;
let browser: Browser;
let owner: TestUser;
/** Two integrators on other loopback origins than the service: one the views allow, one they do not. */
let allowed: { server: Server; origin: string };
let refused: { server: Server; origin: string };
const contexts: BrowserContext[] = [];

/** A static server of the example page (`/embed.html`) and a landing page for any other path. */
async function integrator(): Promise<{ server: Server; origin: string }> {
  const example = await readFile(path.resolve(process.cwd(), 'docs/examples/embed.html'));
  const server = createServer((request, response) => {
    if (request.url === '/embed.html') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(example);
    } else {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>Back in the app</title><h1>Back in the app</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  // Loopback origins may frame views only with this setting (as webhooks may target them).
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
  env = await startTestService();
  browser = await launchChromium();
  owner = await env.newUser({ name: 'Evelyn Boyd' });
  [allowed, refused] = await Promise.all([integrator(), integrator()]);
});
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await browser?.close();
  for (const site of [allowed, refused]) if (site !== undefined) await new Promise((resolve) => site.server.close(resolve));
  await env?.close();
});

/** An envelope sent to one signer with no fields (embedded unless `signer` says otherwise), and a view for it. */
async function viewFor(options: { frameAncestors?: string[]; returnUrl?: string }, notifyOnCompletion = false, signer: Record<string, unknown> = {}): Promise<{ envelopeId: string; recipientId: string; url: string; token: string; email: string }> {
  const email = `ada-${randomUUID()}@example.com`;
  const recipient = { email, name: 'Ada Lovelace', delivery: 'embedded', ...(notifyOnCompletion ? { notifyOnCompletion } : {}), ...signer };
  const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [recipient] });
  const view = await env.api.request('POST', `/envelopes/${id}/recipients/${recipientIds[0]}/views`, { token: owner.token, json: options });
  expect(view.status).toBe(201);
  // The URL names PUBLIC_BASE_URL, where nothing answers in the suite: the same path on the test service.
  const url = (view.body.url as string).replace(/^https:\/\/envelope-signing\.test\/api/, env.service.apiUrl);
  return { envelopeId: id, recipientId: recipientIds[0]!, url, token: url.split('#')[1]!, email };
}

async function newPage(viewport = { width: 1100, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  // Every message the parent window receives, from any origin, before the page's own script runs.
  await page.addInitScript({
    content: "window.received = []; window.addEventListener('message', (event) => window.received.push({ origin: event.origin, data: event.data }));",
  });
  return page;
}

async function received(page: Page): Promise<{ origin: string; data: { source: string; event: string; envelopeId: string | null; recipientId: string | null } }[]> {
  return (await page.evaluate('window.received')) as never;
}

/** Adopts a typed signature for the certificate, agrees and finishes, in the signing page (a frame or a page). */
async function signWholeDocument(signing: Frame | Page): Promise<void> {
  await signing.locator('#whole-signature-button').click({ timeout: STEP_TIMEOUT_MS });
  await signing.locator('#adopt-dialog[open]').waitFor();
  await signing.locator('#typed-input').fill('Ada Lovelace');
  await signing.locator('#adopt-button').click();
  await signing.locator('#whole-signature-button[aria-pressed="true"]').waitFor();
  await signing.locator('#consent').check();
  await signing.locator('#finish-button').click();
}

describe('an integrator page embeds signing', () => {
  test('an allowed parent shows the page and receives loaded, signed and completed, never the token', async () => {
    const view = await viewFor({ frameAncestors: [allowed.origin] });
    const page = await newPage();
    await page.goto(`${allowed.origin}/embed.html#view=${encodeURIComponent(view.url)}`);
    // The example page keeps the token out of its own address bar.
    expect(page.url()).toBe(`${allowed.origin}/embed.html`);
    await page.locator('#status').filter({ hasText: 'Please review and sign' }).waitFor({ timeout: STEP_TIMEOUT_MS });
    const frame = page.frameLocator('#signing');
    await frame.locator('#request-heading').filter({ hasText: 'Please sign contract.pdf' }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await frame.locator('#pages[data-ready="true"] .pdf-page-drawn').first().waitFor({ timeout: STEP_TIMEOUT_MS });
    await screenshot(page, 'embed-allowed-parent');

    const signingFrame = page.frames().find((candidate) => candidate.url().startsWith(`${env.service.apiUrl}/sign/v/`));
    expect(signingFrame).toBeDefined();
    await signWholeDocument(signingFrame!);
    await page.locator('#status').filter({ hasText: 'Everyone has signed' }).waitFor({ timeout: patience(60_000) });
    await screenshot(page, 'embed-allowed-parent-signed');
    // Without notifyOnCompletion no completed e-mail comes to Ada: the page promises none.
    await frame.locator('#done-body').filter({ hasText: 'the document has been sealed. Download it here.' }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await expect(frame.locator('#done-body').textContent()).resolves.not.toMatch(/e-mail/);

    const messages = await received(page);
    const serviceOrigin = new URL(env.service.apiUrl).origin;
    expect(messages.map((message) => [message.origin, message.data])).toEqual(
      ['loaded', 'signed', 'completed'].map((event) => [serviceOrigin, { source: 'envelope-signing', event, envelopeId: view.envelopeId, recipientId: view.recipientId }]),
    );
    expect(JSON.stringify(messages)).not.toContain(view.token);
    // The example lists what it received.
    await expect(page.locator('#events li').count()).resolves.toBe(3);

    // The same page on a phone.
    const phone = await newPage({ width: 390, height: 844 });
    const second = await viewFor({ frameAncestors: [allowed.origin] }, true);
    await phone.goto(`${allowed.origin}/embed.html#view=${encodeURIComponent(second.url)}`);
    await phone.frameLocator('#signing').locator('#pages[data-ready="true"] .pdf-page-drawn').first().waitFor({ timeout: STEP_TIMEOUT_MS });
    await screenshot(phone, 'embed-allowed-parent-phone');
    // With notifyOnCompletion the completed e-mail comes, and the page says so.
    const phoneFrame = phone.frames().find((candidate) => candidate.url().startsWith(`${env.service.apiUrl}/sign/v/`));
    await signWholeDocument(phoneFrame!);
    await phone.frameLocator('#signing').locator('#done-body').filter({ hasText: 'a copy is also on its way to you by e-mail' }).waitFor({ timeout: patience(60_000) });
    await screenshot(phone, 'embed-allowed-parent-phone-signed');
  }, patience(300_000)); // signs and completes twice (a desktop and a phone), each step with its own deadline

  // A recipient with a code: the code form posts `loaded` (naming only the envelope: the view before the
  // code has no recipient), the events after the code name the recipient too.
  test.each([
    { what: 'an access code', signer: { delivery: 'embedded', authentication: { method: 'accessCode', code: 'harbour-71' } } },
    { what: 'an e-mailed one-time code', signer: { delivery: 'email', authentication: { method: 'emailOtp' } } },
  ])('a framed recipient with $what on a phone: the parent receives loaded at the code form, then signed and completed', async ({ signer }) => {
    const view = await viewFor({ frameAncestors: [allowed.origin] }, false, signer);
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(`${allowed.origin}/embed.html#view=${encodeURIComponent(view.url)}`);
    const frame = page.frameLocator('#signing');
    await frame.locator('#authenticate').waitFor({ state: 'visible', timeout: STEP_TIMEOUT_MS });
    const serviceOrigin = new URL(env.service.apiUrl).origin;
    const message = (event: string, recipientId: string | null) => [serviceOrigin, { source: 'envelope-signing', event, envelopeId: view.envelopeId, recipientId }];
    await waitUntil(async () => (await received(page)).length > 0, 30_000, 'the loaded event of the code form');
    expect((await received(page)).map((one) => [one.origin, one.data])).toEqual([message('loaded', null)]);
    await page.locator('#status').filter({ hasText: 'Please review and sign' }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await screenshot(page, `embed-code-form-${signer.authentication.method}-phone`);

    const signingFrame = page.frames().find((candidate) => candidate.url().startsWith(`${env.service.apiUrl}/sign/v/`))!;
    let code = 'harbour-71';
    if (signer.authentication.method === 'emailOtp') {
      await signingFrame.locator('#auth-send-button').click({ timeout: STEP_TIMEOUT_MS });
      const [mail] = await waitForEmails(view.email, { subject: /^Your code for / });
      code = /\b(\d{6})\b/.exec(mail!.text)![1]!;
    }
    await signingFrame.locator('#auth-code').fill(code);
    await signingFrame.locator('#auth-submit').click();
    await frame.locator('#pages[data-ready="true"] .pdf-page-drawn').first().waitFor({ timeout: STEP_TIMEOUT_MS });
    await signWholeDocument(signingFrame);
    await page.locator('#status').filter({ hasText: 'Everyone has signed' }).waitFor({ timeout: patience(60_000) });
    await screenshot(page, `embed-code-form-${signer.authentication.method}-phone-signed`);

    const messages = await received(page);
    expect(messages.map((one) => [one.origin, one.data])).toEqual([message('loaded', null), message('signed', view.recipientId), message('completed', view.recipientId)]);
    expect(JSON.stringify(messages)).not.toContain(view.token);
    expect(JSON.stringify(messages)).not.toContain(code);
  }, patience(180_000));

  test('a parent the view does not allow is refused by Chromium and receives nothing', async () => {
    const view = await viewFor({ frameAncestors: [allowed.origin] });
    const page = await newPage();
    const refusal = page.waitForEvent('console', { predicate: (message) => /frame-ancestors/.test(message.text()), timeout: STEP_TIMEOUT_MS });
    await page.goto(`${refused.origin}/embed.html#view=${encodeURIComponent(view.url)}`);
    expect((await refusal).text()).toContain(allowed.origin);
    // The frame holds Chromium's error page, not the signing page.
    const signingFrame = page.frames().find((candidate) => candidate !== page.mainFrame());
    await expect(signingFrame!.locator('#main').count()).resolves.toBe(0);
    expect(await received(page)).toEqual([]);
    expect(await page.locator('#status').textContent()).toBe('Loading the signing page…');
    await screenshot(page, 'embed-refused-parent');
  });

  test('a view that a newer one replaced loads framed, says so, and posts error without ids', async () => {
    const view = await viewFor({ frameAncestors: [allowed.origin] });
    const newer = await env.api.request('POST', `/envelopes/${view.envelopeId}/recipients/${view.recipientId}/views`, { token: owner.token, json: { frameAncestors: [allowed.origin] } });
    expect(newer.status).toBe(201);
    const page = await newPage();
    await page.goto(`${allowed.origin}/embed.html#view=${encodeURIComponent(view.url)}`);
    await page.locator('#status').filter({ hasText: 'could not load' }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await page.frameLocator('#signing').locator('#message-heading').filter({ hasText: 'This link no longer works' }).waitFor();
    expect((await received(page)).map((message) => message.data)).toEqual([{ source: 'envelope-signing', event: 'error', envelopeId: null, recipientId: null }]);
  });

  test('a view without frame ancestors cannot be framed at all', async () => {
    const view = await viewFor({});
    const page = await newPage();
    const refusal = page.waitForEvent('console', { predicate: (message) => /frame-ancestors 'none'/.test(message.text()), timeout: STEP_TIMEOUT_MS });
    await page.goto(`${allowed.origin}/embed.html#view=${encodeURIComponent(view.url)}`);
    await refusal;
    expect(await received(page)).toEqual([]);
  });

  test('in a top-level window the page goes to returnUrl after the signature', async () => {
    const view = await viewFor({ returnUrl: `${allowed.origin}/contracts/42?tab=signing` });
    const page = await newPage({ width: 390, height: 844 });
    await page.goto(view.url);
    await page.locator('#request-heading').waitFor({ timeout: STEP_TIMEOUT_MS });
    // The token leaves the address bar at once.
    expect(page.url()).toBe(view.url.split('#')[0]);
    await signWholeDocument(page);
    await page.waitForURL((url) => url.origin === allowed.origin, { timeout: patience(60_000) });
    const landed = new URL(page.url());
    expect(landed.pathname).toBe('/contracts/42');
    expect(Object.fromEntries(landed.searchParams)).toEqual({ tab: 'signing', event: 'signed', envelopeId: view.envelopeId, recipientId: view.recipientId });
    expect(page.url()).not.toContain(view.token);
  }, patience(180_000));
});

describe('the console', () => {
  test('sets a recipient\'s delivery and the envelope\'s reassignment, and creates a signing view, showing its URL', async () => {
    const page = await newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    await page.goto(`${env.service.apiUrl}/console`);
    await page.locator('#login-email').fill(owner.email);
    await page.locator('#login-password').fill(owner.password);
    await page.locator('#login-password').press('Enter');
    await page.locator('#session-email').filter({ hasText: owner.email }).waitFor();

    const email = `ada-${randomUUID()}@example.com`;
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'), 'embedded.pdf');
    expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email, name: 'Ada Lovelace' }] } })).status).toBe(200);
    await refreshEnvelopeList(page);
    await page.locator('#envelope-rows tr').filter({ hasText: 'embedded.pdf' }).getByRole('button').click();
    await page.locator('#envelope-heading').filter({ hasText: 'Envelope: embedded.pdf' }).waitFor();

    const notify = page.getByLabel('E-mail this embedded recipient the completed document');
    await expect(notify.isVisible()).resolves.toBe(false);
    await page.getByLabel('Delivery').selectOption('embedded');
    await notify.check();
    await page.locator('#save-signers').click();
    // The console says so once the service answered the PATCH.
    await page.locator('#status').filter({ hasText: 'Signers saved: 1.' }).waitFor();
    const saved = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.signers[0];
    expect([saved.delivery, saved.notifyOnCompletion]).toEqual([['embedded'], true]);

    // The envelope's reassignment setting, in the settings card.
    await page.getByLabel('Signers and approvers may hand their part to someone else').check();
    await page.locator('#save-settings').click();
    await page.locator('#status').filter({ hasText: 'Recipients may hand their part on.' }).waitFor();
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.allowReassign).toBe(true);

    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } })).status).toBe(200);
    await refreshEnvelopeList(page);
    await page.locator('#envelope-rows tr').filter({ hasText: 'embedded.pdf' }).getByRole('button').click();
    await page.getByRole('button', { name: 'Create a signing view for Ada Lovelace' }).click();
    await page.locator('#view-result:not([hidden])').waitFor();
    expect(await page.locator('#view-url').inputValue()).toMatch(/^https:\/\/envelope-signing\.test\/api\/sign\/v\/[0-9a-f-]{36}#[A-Za-z0-9_-]{43}$/);
    const trail = (await env.api.request('GET', `/envelopes/${id}/audit`, { token: owner.token })).body as { type: string }[];
    expect(trail.at(-1)!.type).toBe('recipient.view_created');
    await screenshot(page.locator('#recipients-card'), 'embed-console-view');
  }, patience(180_000));
});
