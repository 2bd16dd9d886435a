/**
 * The console's Templates view in a real Chromium (`GET /api/console`, docs/api.md#templates): a template
 * created with its PDF uploaded from the browser, roles named, a field placed for a role with the
 * envelopes' own placement tool (a click on the drawn page), saved, activated, then "used" with a
 * form per role: the envelope it makes, checked through the API, is sent to the people typed, with
 * the field at the place clicked. "Detect fields" (docs/api.md#fields-from-the-document) on a PDF Chromium printed with text
 * tags naming roles: a tag naming no role is refused with the page and the tag named in the sender's
 * words and nothing changes; once the role exists, the tags' fields appear on the drawn pages where
 * the API put them. axe-core finds no WCAG 2.2 A or AA violation along the way.
 * Screenshots: `console-templates-*.png`.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { expectNoViolations, type PageWatch, screenshot, waitInPage } from '../support/browser.js';
import { startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { waitForEmails } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { corpusPdf, type TestService, type TestUser } from '../support/service.js';

const STEP_TIMEOUT_MS = patience(60_000);

let session: ConsoleSession;
let env: TestService;
let browser: Browser;
let page: Page;
let watch: PageWatch;
let owner: TestUser;

beforeAll(async () => {
  session = await startConsoleSession(STEP_TIMEOUT_MS);
  ({ env, browser, page, watch, owner } = session);
  // Jest's ES-module sandbox cannot link two handler modules imported at the same moment when they
  // share dependencies it has not loaded yet (ERR_VM_MODULE_LINK_FAILURE, a fault of the test runner,
  // not of the service): the console's first lists after login load four handlers at once, so the
  // template handlers are loaded first, one at a time.
  for (const route of ['/templates', '/envelopes', '/webhooks', '/apikeys']) await env.api.request('GET', route, { token: owner.token });
});
afterAll(async () => {
  await session?.close();
});

/** Opens the console afresh and logs in as the owner. */
async function logIn(): Promise<void> {
  await page.goto(`${env.service.apiUrl}/console`);
  await page.locator('#login-email').fill(owner.email);
  await page.locator('#login-password').fill(owner.password);
  await page.locator('#login-password').press('Enter');
  await page.locator('#templates').waitFor();
}

const stamp = Date.now().toString(36);
const tenant = `tenant-${stamp}@example.com`;

describe('the console\'s Templates view', () => {
  test('create and upload, roles, a field placed by role, activate, and make an envelope with a form per role', async () => {
    const file = path.join(os.tmpdir(), `lease-${stamp}.pdf`);
    await writeFile(file, await corpusPdf('normal.pdf'));

    await logIn();

    // Create and upload.
    await page.locator('#template-name').fill('Lease');
    await page.locator('#template-file').setInputFiles(file);
    await page.getByRole('button', { name: 'Create and upload' }).click();
    await page.locator('#template-heading').filter({ hasText: 'Template: Lease' }).waitFor();
    await expect(page.locator('#template-status').textContent()).resolves.toBe('draft');
    await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });
    await waitInPage(page, `document.querySelectorAll('#template #field-pages .pdf-page-drawn').length === 2`);

    // Roles: Tenant (signer) and Agent (cc).
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.locator('#role-list fieldset').nth(0).locator('[data-field="name"]').fill('Tenant');
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.locator('#role-list fieldset').nth(1).locator('[data-field="name"]').fill('Agent');
    await page.locator('#role-list fieldset').nth(1).locator('[data-field="role"]').selectOption('cc');
    await page.getByRole('button', { name: 'Save roles' }).click();
    await page.locator('#status').filter({ hasText: 'Roles saved: 2.' }).waitFor();
    // Only a role of role signer takes fields, named as the role.
    await expect(page.locator('#field-recipient option').allTextContents()).resolves.toEqual(['Tenant']);
    await expect(page.locator('#field-recipient-label').textContent()).resolves.toBe('Role');

    // A text field placed by a click on page 1, with the envelopes' placement tool.
    await page.locator('#field-type').selectOption('text');
    const pageOne = page.locator('#field-pages .pdf-page[data-page="1"]');
    await pageOne.scrollIntoViewIfNeeded();
    const box = (await pageOne.boundingBox())!;
    await page.mouse.click(box.x + 0.4 * box.width, box.y + 0.3 * box.height);
    await expect(page.locator('#field-pages .placed-field').textContent()).resolves.toBe('Text · Tenant');
    await page.locator('#edit-label').fill('Flat');
    await page.getByRole('button', { name: 'Save fields' }).click();
    await page.locator('#status').filter({ hasText: 'Fields saved: 1.' }).waitFor();
    await expectNoViolations(page, 'template with a field');
    await screenshot(page, 'console-templates-00-placed', { fullPage: false });

    // Activate: the "make an envelope" form appears, a fieldset per role and a prefill per text field.
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.locator('#status').filter({ hasText: 'is active' }).waitFor();
    await expect(page.locator('#template-status').textContent()).resolves.toBe('active');
    await expect(page.locator('#use-roles legend').allTextContents()).resolves.toEqual(['Tenant', 'Agent']);
    await page.getByLabel('Name (Tenant)').fill('Tia Tenant');
    await page.getByLabel('E-mail address (Tenant)').fill(tenant);
    await page.getByLabel('Name (Agent)').fill('Aggie Agent');
    await page.getByLabel('E-mail address (Agent)').fill(`agent-${stamp}@example.com`);
    // Each recipient's own language, identity check and delivery (docs/api.md#envelopes-from-a-template).
    await page.getByLabel('Language (Tenant)').selectOption('de');
    await expect(page.getByLabel('Access code (Tenant)').isHidden()).resolves.toBe(true);
    await page.getByLabel('Identity check (Tenant)').selectOption('accessCode');
    await page.getByLabel('Access code (Tenant)').fill('4821-lease');
    await expect(page.getByLabel('Delivery (Agent)').inputValue()).resolves.toBe('email');
    await expect(page.locator('#use-values label').allTextContents()).resolves.toEqual(['Prefill “Flat” for Tenant (page 1, optional)']);
    await page.locator('#use-form').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'template active, use form');
    await screenshot(page, 'console-templates-01-use-form', { fullPage: false });
    const wide = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator('#use-roles fieldset').first().scrollIntoViewIfNeeded();
    await screenshot(page, 'console-templates-01-use-form-phone', { fullPage: false });
    await page.setViewportSize(wide);

    await page.getByRole('button', { name: 'Make the envelope' }).click();
    await page.locator('#envelope-heading').filter({ hasText: `Envelope: lease-${stamp}.pdf` }).waitFor();
    await expect(page.locator('#envelope-status').textContent()).resolves.toBe('sent');
    await screenshot(page, 'console-templates-02-envelope', { fullPage: false });

    // Through the API: the envelope from the template, sent to the people typed, the field where it was clicked.
    const envelopes = (await env.api.request('GET', '/envelopes', { token: owner.token })).body;
    expect(envelopes).toHaveLength(1);
    const envelope = envelopes[0];
    const template = (await env.api.request('GET', '/templates', { token: owner.token })).body[0];
    expect(envelope).toMatchObject({ status: 'sent', templateId: template.id });
    expect(envelope.signers.map((signer: { email: string; role: string }) => [signer.email, signer.role])).toEqual([
      [tenant, 'signer'],
      [`agent-${stamp}@example.com`, 'cc'],
    ]);
    expect(envelope.signers[0]).toMatchObject({ locale: 'de', authentication: { method: 'accessCode' } });
    expect(envelope.signers[1]).toMatchObject({ locale: null, authentication: { method: 'none' } });
    expect(envelope.fields).toHaveLength(1);
    expect(envelope.fields[0]).toMatchObject({ type: 'text', page: 1, label: 'Flat', recipientId: envelope.signers[0].id });
    const field = envelope.fields[0];
    expect(Math.abs(field.x + field.width / 2 - 0.4)).toBeLessThan(0.01);
    expect(Math.abs(field.y + field.height / 2 - 0.3)).toBeLessThan(0.01);
    await waitForEmails(tenant);
    expect(watch).toEqual({ foreignRequests: [], errors: [] });
  }, patience(240_000));

  test('"Detect fields" fills a draft template with its document\'s text tags, and names the page and the tag it refuses', async () => {
    // A lease with tags printed by Chromium: page 1 for the Client, page 2 for the Landlord.
    const printer = await session.context.newPage();
    await printer.setContent(
      `<!doctype html><html><body style="font: 15px sans-serif; margin: 40px">
      <h1>Lease agreement</h1>
      <p>Flat: {{text;r=Client;label=Flat}}</p>
      <p>Client signature: {{signature;r=client;label=ClientSignature}}</p>
      <p style="break-before: page">Landlord signature: {{signature;r=Landlord;label=LandlordSignature}}</p>
      </body></html>`,
    );
    const file = path.join(os.tmpdir(), `tagged-${stamp}.pdf`);
    await writeFile(file, await printer.pdf({ format: 'A4' }));
    await printer.close();

    // After the first test the console still shows the envelope it made: opening a template from
    // there must offer the template's own field controls. (Run alone, this test logs in first.)
    if (await page.locator('#templates').isHidden()) await logIn();
    await page.locator('#template-name').fill('Tagged lease');
    await page.locator('#template-file').setInputFiles(file);
    await page.getByRole('button', { name: 'Create and upload' }).click();
    await page.locator('#template-heading').filter({ hasText: 'Template: Tagged lease' }).waitFor();
    await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });
    await waitInPage(page, `document.querySelectorAll('#template #field-pages .pdf-page-drawn').length === 2`);
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.locator('#role-list fieldset').nth(0).locator('[data-field="name"]').fill('Client');
    await page.getByRole('button', { name: 'Save roles' }).click();
    await page.locator('#status').filter({ hasText: 'Roles saved: 1.' }).waitFor();

    // No role "Landlord" yet: refused, the page and the tag named; no field placed.
    const detect = page.getByRole('button', { name: 'Detect fields' });
    await detect.click();
    const result = page.locator('#detect-result');
    await result.filter({ hasText: 'page 2' }).waitFor();
    await expect(result.getAttribute('class')).resolves.toContain('notice-error');
    const refusal = (await result.innerText()).trim();
    expect(refusal).toContain('{{signature;r=Landlord;label=LandlordSignature}}');
    expect(refusal).toMatch(/Page 2: \{\{signature;r=Landlord;label=LandlordSignature\}\} .*names no role of this template/);
    expect(refusal).toContain('Nothing was changed.');
    await expect(page.locator('#field-pages .placed-field').count()).resolves.toBe(0);
    await result.scrollIntoViewIfNeeded();
    await screenshot(page, 'console-templates-03-detect-refused', { fullPage: false });

    // With the role Landlord: three fields found, shown on their pages for their roles.
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.locator('#role-list fieldset').nth(1).locator('[data-field="name"]').fill('Landlord');
    await page.getByRole('button', { name: 'Save roles' }).click();
    await page.locator('#status').filter({ hasText: 'Roles saved: 2.' }).waitFor();
    await detect.click();
    await result.filter({ hasText: 'Found 3 fields in the document (3 text tags, 0 form fields)' }).waitFor();
    await expect(result.getAttribute('class')).resolves.toContain('notice-ok');
    await expect(page.locator('#field-pages .pdf-page[data-page="1"] .placed-field').allTextContents()).resolves.toEqual(['Flat · Client', 'ClientSignature · Client']);
    await expect(page.locator('#field-pages .pdf-page[data-page="2"] .placed-field').allTextContents()).resolves.toEqual(['LandlordSignature · Landlord']);
    await expect(page.locator('#fields-dirty').isHidden()).resolves.toBe(true);

    // Saved as the API tells, and drawn where the API put them.
    const template = (await env.api.request('GET', '/templates', { token: owner.token })).body.find((item: { name: string }) => item.name === 'Tagged lease');
    const roleId = (name: string) => template.roles.find((role: { name: string }) => role.name === name).id;
    expect(template.fields.map((field: any) => [field.type, field.label, field.roleId, field.page, field.source])).toEqual([
      ['text', 'Flat', roleId('Client'), 1, 'textTag'],
      ['signature', 'ClientSignature', roleId('Client'), 1, 'textTag'],
      ['signature', 'LandlordSignature', roleId('Landlord'), 2, 'textTag'],
    ]);
    const pageTwo = page.locator('#field-pages .pdf-page[data-page="2"]');
    await pageTwo.scrollIntoViewIfNeeded();
    const landlord = template.fields[2];
    const pageBox = (await pageTwo.boundingBox())!;
    const fieldBox = (await pageTwo.locator('.placed-field').boundingBox())!;
    expect(Math.abs((fieldBox.x - pageBox.x) / pageBox.width - landlord.x)).toBeLessThan(0.01);
    expect(Math.abs((fieldBox.y - pageBox.y) / pageBox.height - landlord.y)).toBeLessThan(0.01);
    expect(Math.abs(fieldBox.width / pageBox.width - landlord.width)).toBeLessThan(0.01);
    await page.locator('#field-pages .pdf-page[data-page="1"] .placed-field').first().scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'template with detected fields');
    await screenshot(page, 'console-templates-04-detected', { fullPage: false });

    // Fields on show: detecting again asks first; Cancel keeps them, as saved.
    await detect.click();
    await page.locator('#confirm-dialog[open]').waitFor();
    await expect(page.locator('#confirm-body').innerText()).resolves.toContain('The 3 fields placed now are replaced by those found in the document.');
    await page.locator('#confirm-cancel').click();
    await page.locator('#confirm-dialog').waitFor({ state: 'hidden' });
    await expect(page.locator('#field-pages .placed-field').count()).resolves.toBe(3);
    const after = (await env.api.request('GET', `/templates/${template.id}`, { token: owner.token })).body;
    expect(after.updatedAt).toBe(template.updatedAt);
    expect(watch.errors).toEqual([]);
  }, patience(240_000));
});
