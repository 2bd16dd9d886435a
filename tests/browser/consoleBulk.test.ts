/**
 * The console's bulk send in a real Chromium ([docs/api.md#bulk-send](../../docs/api.md#bulk-send)):
 * on an active template, a CSV file is chosen; the page shows the rows it found and, before anything is
 * sent, what is wrong in each (an empty name, an address that is not one), and refuses to start; a
 * file whose every row the page accepts but the service refuses (an unknown language) shows the
 * service's complaint on its row, nothing made; a good file (a byte order mark, a quoted comma, a
 * `=HYPERLINK(...)` name shown as text) starts a job whose progress the page follows to `completed`,
 * and the envelopes are there through the API. At 1280x900 and at 390x844, with axe-core finding no
 * WCAG 2.2 A or AA violation. Screenshots: `console-bulk-*.png`.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { expectNoViolations, screenshot } from '../support/browser.js';
import { startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { waitForEmails } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { corpusPdf, putToSas, type TestService, type TestUser } from '../support/service.js';

const STEP_TIMEOUT_MS = patience(60_000);

let session: ConsoleSession;
let env: TestService;
let page: Page;
let owner: TestUser;
let templateId: string;

beforeAll(async () => {
  session = await startConsoleSession(STEP_TIMEOUT_MS);
  ({ env, page, owner } = session);
  // The console's first lists load several handlers at once; load them one at a time first (as consoleTemplates.test.ts does).
  for (const route of ['/templates', '/envelopes', '/webhooks', '/apikeys', '/bulk']) await env.api.request('GET', route, { token: owner.token });
  const created = await env.api.request('POST', '/templates', { token: owner.token, json: { name: 'Policy 2027', filename: 'policy.pdf', mimetype: 'application/pdf' } });
  templateId = created.body.template.id;
  expect((await putToSas(created.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
  const activated = await env.api.request('PATCH', `/templates/${templateId}`, {
    token: owner.token,
    json: {
      roles: [{ id: 'employee', name: 'Employee' }],
      fields: [
        { roleId: 'employee', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.08 },
        { roleId: 'employee', type: 'text', page: 1, x: 0.1, y: 0.2, width: 0.3, height: 0.04, label: 'Department', required: false },
      ],
      status: 'active',
    },
  });
  expect(activated.status).toBe(200);
}, patience(120_000));
afterAll(async () => {
  await session?.close();
});

const stamp = Date.now().toString(36);

/** Writes a CSV file for the page to upload. */
async function csvFile(name: string, text: string): Promise<string> {
  const file = path.join(os.tmpdir(), `${name}-${stamp}.csv`);
  await writeFile(file, text, 'utf8');
  return file;
}

async function openTemplate(): Promise<void> {
  await page.goto(`${env.service.apiUrl}/console`);
  await page.locator('#login-email').fill(owner.email);
  await page.locator('#login-password').fill(owner.password);
  await page.locator('#login-password').press('Enter');
  await page.locator('#templates').waitFor();
  await page.getByRole('button', { name: /^Open template Policy 2027/ }).click();
  await page.locator('#template-heading').filter({ hasText: 'Template: Policy 2027' }).waitFor();
  await page.locator('#bulk-form').waitFor();
}

describe('the console\'s bulk send', () => {
  test('shows rows and errors by row before starting, then follows the job to its end', async () => {
    await openTemplate();
    await expect(page.locator('#bulk-columns').textContent()).resolves.toBe('Employee.email,Employee.name,Employee.locale,Employee.phone,field.Department');

    // Errors the page finds: shown by row, and nothing can be started.
    const broken = await csvFile('broken', `Employee.email,Employee.name,field.Department\nann-${stamp}@example.com,Ann,Sales\nnot-an-address,Bob,Support\ncid-${stamp}@example.com,,Support\n`);
    await page.locator('#bulk-file').setInputFiles(broken);
    await page.locator('#bulk-summary').filter({ hasText: '3 rows found; 2 rows have errors' }).waitFor();
    await expect(page.locator('#bulk-rows tr.bulk-bad th').allTextContents()).resolves.toEqual(['2', '3']);
    await expect(page.locator('#bulk-rows tr.bulk-bad td.bulk-complaint').allTextContents()).resolves.toEqual(['Employee.email “not-an-address” is not an e-mail address', 'Employee.name is empty']);
    await expect(page.locator('#bulk-start').isDisabled()).resolves.toBe(true);
    await page.locator('#bulk-preview').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'bulk send, rows with errors');
    await screenshot(page, 'console-bulk-00-errors', { fullPage: false });

    // A row only the service refuses (an unknown language): its complaint shows on its row; nothing is made.
    const refused = await csvFile('refused', `Employee.email,Employee.name,Employee.locale\nann-${stamp}@example.com,Ann,en\nbob-${stamp}@example.com,Bob,xx\n`);
    await page.locator('#bulk-file').setInputFiles(refused);
    await page.locator('#bulk-summary').filter({ hasText: '2 rows found. Nothing is sent until you start.' }).waitFor();
    await page.getByRole('button', { name: 'Start sending' }).click();
    await page.locator('#bulk-rows tr.bulk-bad').waitFor();
    await expect(page.locator('#bulk-rows tr.bulk-bad th').allTextContents()).resolves.toEqual(['2']);
    await expect(page.locator('#bulk-rows tr.bulk-bad td.bulk-complaint').textContent()).resolves.toContain('Employee.locale');
    await expect(page.locator('#error').isVisible()).resolves.toBe(true);
    expect((await env.api.request('GET', '/bulk', { token: owner.token })).body).toEqual([]);

    // A good file: a byte order mark, a quoted comma, a formula as a name (text, on the page and in the envelope).
    const formula = '=HYPERLINK("http://evil.example","Click")';
    const people = [`dee-${stamp}@example.com`, `eve-${stamp}@example.com`, `fay-${stamp}@example.com`];
    const good = await csvFile('good', `\uFEFFEmployee.email,Employee.name,field.Department\r\n${people[0]},"Dee, D.",Sales\r\n${people[1]},"${formula.replaceAll('"', '""')}",\r\n${people[2]},Fay,Support\r\n`);
    await page.locator('#bulk-file').setInputFiles(good);
    await page.locator('#bulk-summary').filter({ hasText: '3 rows found. Nothing is sent until you start.' }).waitFor();
    // Row 2's cells: what is wrong (nothing), the e-mail address, then the name, shown as text.
    await expect(page.locator('#bulk-rows tr').nth(1).locator('td').nth(2).textContent()).resolves.toBe(formula);
    await expectNoViolations(page, 'bulk send, rows ready');
    await screenshot(page, 'console-bulk-01-ready', { fullPage: false });
    await page.getByRole('button', { name: 'Start sending' }).click();
    await page.locator('#status').filter({ hasText: 'Bulk send started: 3 envelopes' }).waitFor();
    await page.locator('#bulk-job-counts').filter({ hasText: '3 of 3 made' }).waitFor();
    await page.locator('#status').filter({ hasText: 'Bulk send completed: 3 of 3 envelopes made.' }).waitFor();
    await expect(page.locator('#bulk-job-status').textContent()).resolves.toBe('completed');
    await expect(page.locator('#bulk-cancel').isHidden()).resolves.toBe(true);
    // Nothing left to start until another file is chosen.
    await expect(page.locator('#bulk-start').isHidden()).resolves.toBe(true);
    await page.locator('#bulk-job').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'bulk send, completed');
    await screenshot(page, 'console-bulk-02-completed', { fullPage: false });

    const [job] = (await env.api.request('GET', '/bulk', { token: owner.token })).body as { id: string; created: number }[];
    expect(job).toMatchObject({ created: 3 });
    const rows = (await env.api.request('GET', `/bulk/${job!.id}/rows`, { token: owner.token })).body.rows as { envelopeId: string }[];
    const second = (await env.api.request('GET', `/envelopes/${rows[1]!.envelopeId}`, { token: owner.token })).body;
    expect(second.signers[0]).toMatchObject({ email: people[1], name: formula });
    for (const person of people) expect(await waitForEmails(person, { count: 1, timeoutMs: patience(30_000) })).toHaveLength(1);
  }, patience(240_000));

  test('at 390x844 the card, its rows and the job fit the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await openTemplate();
      const file = await csvFile('phone', `Employee.email,Employee.name\ngus-${stamp}@example.com,Gus\nnot-an-address,Hal\n`);
      await page.locator('#bulk-file').setInputFiles(file);
      await page.locator('#bulk-summary').filter({ hasText: '2 rows found; 1 row has errors' }).waitFor();
      await page.locator('#bulk-preview').scrollIntoViewIfNeeded();
      // The page itself never scrolls sideways; a wide table scrolls in its own box.
      await expect(page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).resolves.toBe(true);
      const card = (await page.locator('#bulk-form').boundingBox())!;
      expect(card.x).toBeGreaterThanOrEqual(0);
      expect(card.x + card.width).toBeLessThanOrEqual(390);
      // What is wrong with row 2 shows without scrolling sideways.
      const complaint = (await page.locator('#bulk-rows tr.bulk-bad td.bulk-complaint').boundingBox())!;
      expect(complaint.x + complaint.width).toBeLessThanOrEqual(390);
      await expectNoViolations(page, 'bulk send on a phone');
      await screenshot(page, 'console-bulk-03-phone', { fullPage: false });
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  }, patience(120_000));
});
