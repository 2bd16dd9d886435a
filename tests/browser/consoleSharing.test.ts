/**
 * What members share, in the console (docs/api.md#what-members-share,
 * docs/api.md#templates-shared-in-an-organization), in Chromium against the local host and the
 * suite's Azurite: an admin switches the envelope list between "Mine" and "Everyone's", which names
 * each envelope's owner; a sender has no such switch, lists an admin's template shared with the
 * organisation with its owner, cannot change it (its controls disabled, saying who may) and makes an
 * envelope from it, which is the sender's own; a viewer's buttons that would change an envelope or a
 * template are disabled with a title naming the roles needed. The admin shares a template through the
 * editor's sharing choice. Screenshots at 1280x800 and 390x844 go to
 * `test-output/screenshots/console-sharing-*.png`; axe-core finds nothing at WCAG 2.2 AA.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { expectNoViolations, screenshot, watchPage, type PageWatch } from '../support/browser.js';
import { startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { joinedMember } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, putToSas, type TestUser } from '../support/service.js';

let session: ConsoleSession;
let admin: TestUser;
let sender: TestUser;
let viewer: TestUser;
let sendersEnvelope: string;
let templateId: string;

beforeAll(async () => {
  session = await startConsoleSession(patience(20_000));
  const api = session.env.api;
  [admin, sender, viewer] = await Promise.all([joinedMember(api, session.owner, 'admin'), joinedMember(api, session.owner, 'sender'), joinedMember(api, session.owner, 'viewer')]);
  const pdf = await corpusPdf('normal.pdf');
  sendersEnvelope = await createEnvelopeWithDocument(api, sender, pdf, 'senders-contract.pdf');
  // The admin's template, private for now: the admin shares it in the console below.
  const created = await api.request('POST', '/templates', { token: admin.token, json: { name: 'Office NDA', filename: 'nda.pdf', mimetype: 'application/pdf' } });
  templateId = created.body.template.id as string;
  expect((await putToSas(created.body.uploadUrl, pdf)).status).toBe(201);
  const roles = await api.request('PATCH', `/templates/${templateId}`, {
    token: admin.token,
    json: { roles: [{ id: 'client', name: 'Client' }], fields: [{ roleId: 'client', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.06 }], status: 'active' },
  });
  expect(roles.status).toBe(200);
}, patience(60_000));
afterAll(async () => {
  await session?.close();
});

/** A page of its own (a browser context each) at this viewport, logged in as `user`. */
async function loggedIn(user: TestUser, viewport: { width: number; height: number }): Promise<{ page: Page; context: BrowserContext; watch: PageWatch }> {
  const context = await session.browser.newContext({ viewport });
  session.contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(patience(20_000));
  const watch = watchPage(page, [new URL(session.env.service.apiUrl).origin, new URL(getServices().storage.blobService.url).origin]);
  await page.goto(`${session.env.service.apiUrl}/console`);
  await page.locator('#login-email').fill(user.email);
  await page.locator('#login-password').fill(user.password);
  await page.locator('#login-password').press('Enter');
  await page.locator('#session-email').filter({ hasText: user.email }).waitFor();
  await page.locator('#organization-role').filter({ hasText: /\w/ }).waitFor();
  return { page, context, watch };
}

/** Whether the page is no wider than its viewport (nothing scrolls sideways). */
async function fitsWidth(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')) as boolean;
}

describe('the console of an organisation\'s members', () => {
  test('an admin switches the envelope list between "Mine" and "Everyone\'s", which names each owner, and shares a template', async () => {
    const { page, watch } = await loggedIn(admin, { width: 1280, height: 800 });
    const everyone = page.getByRole('button', { name: 'Everyone’s', exact: true });
    const mine = page.getByRole('button', { name: 'Mine', exact: true });
    expect(await page.locator('#envelope-scope').isVisible()).toBe(true);
    expect(await mine.getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#envelopes-empty').isVisible()).toBe(true);

    await everyone.click();
    const row = page.locator('#envelope-rows tr', { hasText: 'senders-contract.pdf' });
    await row.waitFor();
    expect(await everyone.getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('#envelopes-heading').textContent()).toBe('Everyone’s envelopes');
    expect(await page.locator('#envelope-table thead th').allTextContents()).toEqual(['Document', 'Owner', 'Status', 'Recipients', 'Created', 'Action']);
    expect((await row.locator('th, td').allTextContents()).slice(0, 3)).toEqual(['senders-contract.pdf', sender.email, 'draft']);
    // The search finds envelopes by their owner's address too.
    await page.locator('#envelope-search').fill(sender.email);
    expect(await page.locator('#envelope-rows tr').count()).toBe(1);
    await page.locator('#envelope-search').fill('');
    await page.locator('#envelopes').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-sharing-01-everyones-envelopes', { fullPage: false });
    await expectNoViolations(page, 'the envelope list of an admin, everyone\'s');

    // The admin opens the sender's envelope; it stays the sender's.
    await row.getByRole('button', { name: /^Open senders-contract\.pdf/ }).click();
    await page.locator('#envelope-heading').filter({ hasText: 'Envelope: senders-contract.pdf' }).waitFor();
    expect(await page.locator('#envelope-owner').textContent()).toBe(sender.email);
    expect(await page.locator('#send').getAttribute('title')).toBeNull();

    await mine.click();
    await page.locator('#envelopes-heading').filter({ hasText: 'Your envelopes' }).waitFor();
    await page.locator('#envelopes-empty').waitFor();
    expect(await page.locator('#envelope-owner-column').isHidden()).toBe(true);

    // The admin's own template: private, then shared with the organisation through the editor.
    const templateRow = page.locator('#template-rows tr', { hasText: 'Office NDA' });
    expect((await templateRow.locator('th, td').allTextContents()).slice(0, 3)).toEqual(['Office NDA', 'you', 'only its owner']);
    await templateRow.getByRole('button', { name: 'Open template Office NDA (of you)' }).click();
    await page.locator('#template-heading').filter({ hasText: 'Template: Office NDA' }).waitFor();
    expect(await page.getByLabel('Only me (and the organisation’s admins and owner)').isChecked()).toBe(true);
    await page.getByLabel('Everyone in the organisation').check();
    await page.getByRole('button', { name: 'Save sharing' }).click();
    await page.locator('#status').filter({ hasText: 'is shared: everyone in the organisation may use it' }).waitFor();
    expect((await templateRow.locator('th, td').allTextContents()).slice(0, 3)).toEqual(['Office NDA', 'you', 'the organisation']);
    expect((await session.env.api.request('GET', `/templates/${templateId}`, { token: admin.token })).body.visibility).toBe('organization');
    await page.locator('#visibility-form').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-sharing-02-template-shared', { fullPage: false });
    await expectNoViolations(page, 'the template editor with its sharing choice');

    await page.setViewportSize({ width: 390, height: 844 });
    await everyone.click();
    await row.waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await page.locator('#envelopes').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-sharing-03-everyones-envelopes-phone', { fullPage: false });
    expect(watch).toEqual({ foreignRequests: [], errors: [] });
  }, patience(120_000));

  test('a sender has no switch, lists the shared template with its owner, cannot change it, and makes an envelope of its own from it', async () => {
    const { page, watch } = await loggedIn(sender, { width: 390, height: 844 });
    expect(await page.locator('#envelope-scope').isHidden()).toBe(true);
    expect(await page.getByRole('button', { name: 'Everyone’s', exact: true }).count()).toBe(0);
    await page.locator('#envelope-rows tr', { hasText: 'senders-contract.pdf' }).waitFor();

    const templateRow = page.locator('#template-rows tr', { hasText: 'Office NDA' });
    await templateRow.waitFor();
    expect((await templateRow.locator('th, td').allTextContents()).slice(0, 3)).toEqual(['Office NDA', admin.email, 'the organisation']);
    await templateRow.getByRole('button', { name: `Open template Office NDA (of ${admin.email})` }).click();
    await page.locator('#template-heading').filter({ hasText: 'Template: Office NDA' }).waitFor();
    expect(await page.locator('#template-owner').textContent()).toBe(admin.email);
    // Not the sender's: what would change it is disabled, and says who may.
    for (const id of ['save-roles', 'activate-template', 'delete-template', 'save-visibility']) {
      expect(await page.locator(`#${id}`).isDisabled()).toBe(true);
      expect(await page.locator(`#${id}`).getAttribute('title')).toContain('an admin or the organisation’s owner');
    }
    expect(await page.locator('#template-read-only').textContent()).toContain(admin.email);
    expect(await fitsWidth(page)).toBe(true);
    await page.locator('#template-heading').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-sharing-04-sender-opens-shared-template-phone', { fullPage: false });

    await page.getByLabel('Name (Client)').fill('Carol Client');
    await page.getByLabel('E-mail address (Client)').fill('carol-sharing@example.com');
    await page.locator('#use-send').uncheck();
    expect(await page.locator('#use-template').isDisabled()).toBe(false);
    await page.locator('#use-form').scrollIntoViewIfNeeded();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'console-sharing-05-sender-uses-shared-template-phone', { fullPage: false });
    await expectNoViolations(page, 'a sender\'s view of a template shared with it');
    await page.getByRole('button', { name: 'Make the envelope' }).click();
    await page.locator('#envelope-heading').filter({ hasText: 'Envelope: nda.pdf' }).waitFor();

    // The envelope is the sender's, made from the admin's template.
    const envelopes = (await session.env.api.request('GET', '/envelopes', { token: sender.token })).body as { id: string; ownerId: string; templateId: string | null }[];
    expect(envelopes.find((envelope) => envelope.templateId === templateId)).toMatchObject({ ownerId: sender.userId });
    expect(envelopes.map((envelope) => envelope.id)).toContain(sendersEnvelope);
    expect(watch).toEqual({ foreignRequests: [], errors: [] });
  }, patience(120_000));

  test('a viewer\'s buttons that change an envelope or a template are disabled with the roles needed', async () => {
    const { page, watch } = await loggedIn(viewer, { width: 1280, height: 800 });
    expect(await page.locator('#envelope-scope').isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Everyone’s', exact: true }).click();
    const row = page.locator('#envelope-rows tr', { hasText: 'senders-contract.pdf' });
    await row.getByRole('button', { name: /^Open senders-contract\.pdf/ }).click();
    await page.locator('#envelope-heading').filter({ hasText: 'Envelope: senders-contract.pdf' }).waitFor();
    for (const id of ['send', 'delete', 'save-signers', 'add-signer', 'save-settings', 'save-fields']) {
      expect(await page.locator(`#${id}`).isDisabled()).toBe(true);
      expect(await page.locator(`#${id}`).getAttribute('title')).toBe('Changing envelopes needs the role sender, admin or owner; you are a viewer.');
    }
    await page.locator('#send').scrollIntoViewIfNeeded();
    await screenshot(page, 'console-sharing-06-viewer-envelope', { fullPage: false });

    await page.locator('#template-rows tr', { hasText: 'Office NDA' }).getByRole('button', { name: /^Open template Office NDA/ }).click();
    await page.locator('#template-heading').filter({ hasText: 'Template: Office NDA' }).waitFor();
    for (const id of ['save-roles', 'add-role', 'activate-template', 'delete-template', 'save-visibility', 'save-fields']) {
      expect(await page.locator(`#${id}`).isDisabled()).toBe(true);
      expect(await page.locator(`#${id}`).getAttribute('title')).toBe('Changing templates needs the role sender, admin or owner; you are a viewer.');
    }
    expect(await page.locator('#use-template').isDisabled()).toBe(true);
    expect(await page.locator('#use-template').getAttribute('title')).toContain('sender, admin or owner');
    await screenshot(page, 'console-sharing-07-viewer-template', { fullPage: false });
    await expectNoViolations(page, 'a viewer\'s view of a template');
    expect(watch).toEqual({ foreignRequests: [], errors: [] });
  }, patience(120_000));
});
