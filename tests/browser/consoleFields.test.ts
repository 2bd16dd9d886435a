/**
 * The console's envelope tools in a real Chromium (`GET /api/console`, docs/pages.md): the uploaded
 * document's pages drawn by PDF.js; fields placed by a click and by a drag on a page, moved and
 * resized with the keyboard, one added and deleted with the keyboard alone, labelled and made
 * optional in the settings form, saved, and checked through the API; the signing order and routing
 * orders; sending, each recipient's status and last e-mail, a resend (its e-mail caught by the suite's
 * SMTP server); webhooks added (the secret shown once), listed, their deliveries shown, and deleted.
 * "Detect fields" (docs/api.md#fields-from-the-document) on a draft whose PDF Chromium printed with text tags naming
 * recipients by position: a tag naming no recipient is refused with its page named and nothing
 * changes; with the recipient added, the tags' fields appear on their pages where the API put them.
 * axe-core finds no WCAG 2.2 A or AA violation along the way. Screenshots: `console-fields-*.png`.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { AGREEMENT_LAYOUT, contractPdf, expectNoViolations, type PageWatch, screenshot, waitInPage } from '../support/browser.js';
import { startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { waitForEmails } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { createEnvelopeWithDocument, type TestService, type TestUser } from '../support/service.js';

/** How long one step may take in the browser, ms: generous, for a machine that others share. */
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
});
afterAll(async () => {
  await session?.close();
});

const stamp = Date.now().toString(36);
const ada = `ada-console-${stamp}@example.com`;
const grace = `grace-console-${stamp}@example.com`;
const carol = `carol-console-${stamp}@example.com`;

/**
 * The viewport coordinates of a point of page `number`, given as fractions of it; first scrolls the
 * point to the middle of the viewport unless `scroll` is false.
 */
async function pointOn(number: number, x: number, y: number, scroll = true): Promise<{ x: number; y: number }> {
  const locator = page.locator(`#field-pages .pdf-page[data-page="${number}"]`);
  let box = (await locator.boundingBox())!;
  if (scroll) {
    await page.evaluate(`window.scrollBy(0, ${Math.round(box.y + y * box.height - 450)})`);
    box = (await locator.boundingBox())!;
  }
  return { x: box.x + x * box.width, y: box.y + y * box.height };
}

/** A copied recipient's name long enough to wrap in the recipients table. */
const LONG_NAME = 'Carolina Wilhelmina Copperfield Worthington, Head of Contracts and Procurement for the Northern Hemisphere Subsidiaries';

/**
 * How the first text of a table cell is laid out: its number of lines, and the words split across two
 * lines (a word's characters on more than one line box).
 */
async function wrapping(selector: string): Promise<{ lines: number; brokenWords: string[] }> {
  return await page.evaluate(`(() => {
    const cell = document.querySelector(${JSON.stringify(selector)});
    const text = [...cell.childNodes].find((node) => node.nodeType === Node.TEXT_NODE);
    const tops = (range) => new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
    const whole = document.createRange();
    whole.selectNodeContents(text);
    const brokenWords = [];
    let offset = 0;
    for (const word of text.data.split(' ')) {
      if (word !== '') {
        const range = document.createRange();
        range.setStart(text, offset);
        range.setEnd(text, offset + word.length);
        if (tops(range).size > 1) brokenWords.push(word);
      }
      offset += word.length + 1;
    }
    return { lines: tops(whole).size, brokenWords };
  })()`);
}

async function envelopeFromApi(id: string): Promise<any> {
  const response = await env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
  expect(response.status).toBe(200);
  return response.body;
}

describe('GET /api/console: fields, order, recipients and webhooks', () => {
  test('places fields on the rendered pages, saves them, sends, resends, and manages webhooks', async () => {
    // The owner's draft, with its document and recipients, made through the API.
    const contract = await contractPdf(browser, ['Ada Lovelace', 'Grace Hopper', 'Katherine Johnson']);
    const id = await createEnvelopeWithDocument(env.api, owner, contract, 'nda.pdf');
    const saved = await env.api.request('PUT', `/envelopes/${id}`, {
      token: owner.token,
      json: { signers: [{ name: 'Ada Lovelace', email: ada }, { name: 'Grace Hopper', email: grace }, { name: LONG_NAME, email: carol, role: 'cc' }] },
    });
    expect(saved.status).toBe(200);
    const [adaId, graceId] = saved.body.signers.map((signer: { id: string }) => signer.id);

    // Log in and open it: both pages are drawn.
    await page.goto(`${env.service.apiUrl}/console`);
    await page.locator('#login-email').fill(owner.email);
    await page.locator('#login-password').fill(owner.password);
    await page.locator('#login-password').press('Enter');
    await page.getByRole('button', { name: /^Open nda\.pdf/ }).click();
    await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });
    await waitInPage(page, `document.querySelectorAll('#field-pages .pdf-page-drawn').length === 2`);
    await expect(page.locator('#field-recipient option').allTextContents()).resolves.toEqual([`Ada Lovelace (${ada})`, `Grace Hopper (${grace})`]);

    // A click on page 2 places a signature for Grace, centred where the click was.
    await page.locator('#field-recipient').selectOption(graceId);
    await page.locator('#field-type').selectOption('signature');
    const signatureBlock = AGREEMENT_LAYOUT.party(1).signature;
    const click = await pointOn(2, signatureBlock.x + signatureBlock.width / 2, signatureBlock.y + signatureBlock.height / 2);
    await page.mouse.click(click.x, click.y);
    const placed = page.locator('#field-pages .placed-field');
    await expect(placed.count()).resolves.toBe(1);
    await expect(placed.first().textContent()).resolves.toBe('Signature · Grace Hopper');

    // A drag places a text field of the dragged size, for Ada.
    await page.locator('#field-recipient').selectOption(adaId);
    await page.locator('#field-type').selectOption('text');
    const title = AGREEMENT_LAYOUT.party(0).title;
    const from = await pointOn(2, title.x, title.y);
    const to = await pointOn(2, title.x + title.width, title.y + title.height, false);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
    await page.mouse.move(to.x, to.y, { steps: 4 });
    await page.mouse.up();
    await expect(placed.count()).resolves.toBe(2);

    // The settings form: a label, and not required.
    await page.locator('#edit-label').fill('Job title');
    await page.locator('#edit-required').uncheck();
    await expect(page.locator('.placed-field.selected').textContent()).resolves.toBe('Job title · Ada Lovelace');
    // A field placed while the label box still has the focus: its editor shows its own (empty) label,
    // not the label of the field before it; then it is deleted from the keyboard.
    await page.locator('#edit-label').focus();
    const elsewhere = await pointOn(2, 0.15, 0.06);
    await page.mouse.click(elsewhere.x, elsewhere.y);
    await expect(placed.count()).resolves.toBe(3);
    await expect(page.locator('#edit-label').inputValue()).resolves.toBe('');
    await expect(page.locator('.placed-field.selected').textContent()).resolves.toBe('Text · Ada Lovelace');
    await expect(page.locator('#edit-required').isChecked()).resolves.toBe(true);
    await screenshot(page, 'console-fields-00-new-field-editor', { fullPage: false });
    await page.locator('.placed-field.selected').press('Delete');
    await expect(placed.count()).resolves.toBe(2);

    // The keyboard: the signature moved 2 % right and made 1 % taller.
    await page.locator('.placed-field', { hasText: 'Signature · Grace Hopper' }).focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    await expect(page.locator('#field-announcer').textContent()).resolves.toMatch(/high\.$/);
    // A field added from the keyboard alone, then deleted.
    await page.locator('#field-page').selectOption('1');
    await page.locator('#add-field').focus();
    await page.keyboard.press('Enter');
    await expect(placed.count()).resolves.toBe(3);
    await expect(page.locator('#field-pages .pdf-page[data-page="1"] .placed-field').count()).resolves.toBe(1);
    await page.keyboard.press('Delete');
    await expect(placed.count()).resolves.toBe(2);
    await expect(page.locator('#fields-dirty').isVisible()).resolves.toBe(true);
    await page.locator('.placed-field', { hasText: 'Signature · Grace Hopper' }).click();
    await page.locator('#field-pages .pdf-page[data-page="2"]').scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'fields placed');
    await screenshot(page, 'console-fields-01-placed', { fullPage: false });

    await page.getByRole('button', { name: 'Save fields' }).click();
    await page.locator('#status').filter({ hasText: 'Fields saved: 2.' }).waitFor();
    expect(await page.locator('#fields-dirty').isHidden()).toBe(true);

    // What the API now holds: where the click and the drag were, in fractions of the page.
    const afterSave = await envelopeFromApi(id);
    const signature = afterSave.fields.find((field: { type: string }) => field.type === 'signature');
    const text = afterSave.fields.find((field: { type: string }) => field.type === 'text');
    expect(afterSave.fields).toHaveLength(2);
    expect(signature).toMatchObject({ recipientId: graceId, page: 2, required: true });
    expect(signature.x + signature.width / 2).toBeCloseTo(signatureBlock.x + signatureBlock.width / 2 + 0.02, 2);
    expect(signature.y + (signature.height - 0.01) / 2).toBeCloseTo(signatureBlock.y + signatureBlock.height / 2, 2);
    expect(signature.width).toBeCloseTo(170 / 595.92, 2);
    expect(signature.height).toBeCloseTo(45 / 841.92 + 0.01, 2);
    expect(text).toMatchObject({ recipientId: adaId, page: 2, required: false, label: 'Job title' });
    expect(text.x).toBeCloseTo(title.x, 2);
    expect(text.y).toBeCloseTo(title.y, 2);
    expect(text.width).toBeCloseTo(title.width, 2);
    expect(text.height).toBeCloseTo(title.height, 2);

    // Signing order and routing orders.
    await page.locator('#signing-order').selectOption('sequential');
    await page.locator('#signer-list fieldset').nth(1).getByLabel('Routing order').fill('2');
    await page.getByRole('button', { name: 'Save signers' }).click();
    await page.locator('#status').filter({ hasText: 'Signers saved: 3. Signing order: sequential.' }).waitFor();
    const ordered = await envelopeFromApi(id);
    expect(ordered.signingOrder).toBe('sequential');
    expect(ordered.signers.map((signer: { routingOrder: number }) => signer.routingOrder)).toEqual([1, 2, 1]);
    expect(ordered.fields).toHaveLength(2);

    // A recipient's identity check: an access code, sent once and never shown again.
    const carolRow = page.locator('#signer-list fieldset').nth(2);
    await carolRow.getByLabel('Identity check').selectOption('accessCode');
    await carolRow.getByLabel('Access code').fill('harbour-lights-7');
    const before = (await envelopeFromApi(id)).updatedAt;
    await page.getByRole('button', { name: 'Save signers' }).click();
    // The status line still shows the previous save's text: wait for the envelope to change instead.
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    let checked = await envelopeFromApi(id);
    while (checked.updatedAt === before) {
      if (Date.now() > deadline) throw new Error('the identity check was never saved');
      await page.waitForTimeout(100);
      checked = await envelopeFromApi(id);
    }
    expect(checked.signers.map((signer: { authentication: { method: string } }) => signer.authentication)).toEqual([{ method: 'none' }, { method: 'none' }, { method: 'accessCode' }]);
    expect(JSON.stringify(checked)).not.toContain('harbour-lights-7');
    expect(await page.locator('#signer-list fieldset').nth(2).getByLabel('Identity check').inputValue()).toBe('accessCode');
    await expectNoViolations(page, 'signers with an identity check');
    await screenshot(page, 'console-signer-identity-check');

    // Send: each recipient's status, then the invitation's delivery, and a resend.
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('#envelope-status').filter({ hasText: 'sent' }).waitFor();
    await expect(page.locator('#recipient-rows tr td:nth-child(4)').allTextContents()).resolves.toEqual(['sent', 'waiting', 'sent']);
    // A long name wraps between its words, never inside one.
    const longName = await wrapping('#recipient-rows tr:nth-child(3) th');
    expect(longName.lines).toBeGreaterThan(1);
    expect(longName.brokenWords).toEqual([]);
    await waitForEmails(ada, { subject: 'Please review and sign: nda.pdf' });
    for (let attempt = 0; attempt < 50; attempt++) {
      await page.getByRole('button', { name: /^Open nda\.pdf/ }).click();
      if ((await page.locator('#recipient-rows tr').first().locator('td').nth(3).textContent())!.startsWith('invitation, sent')) break;
      await page.waitForTimeout(200);
    }
    await expect(page.locator('#recipient-rows tr').first().locator('td').nth(3).textContent()).resolves.toMatch(/^invitation, sent, \d{4}-\d{2}-\d{2} /);
    // Only a recipient whose turn it is can be sent a new invitation.
    await expect(page.getByRole('button', { name: /^Resend the invitation to/ }).count()).resolves.toBe(1);
    await expect(page.locator('.placed-field').first().getAttribute('aria-describedby')).resolves.toMatch(/^state-/);
    await expectNoViolations(page, 'sent');
    await page.getByRole('button', { name: 'Resend the invitation to Ada Lovelace' }).click();
    await page.locator('#status').filter({ hasText: `A new invitation is on its way to ${ada}` }).waitFor();
    await waitForEmails(ada, { subject: 'Please review and sign: nda.pdf', count: 2 });
    await screenshot(page, 'console-fields-02-sent');

    // Webhooks: add one (its secret shown once), see its deliveries, delete it.
    await page.locator('#webhook-url').fill('https://93.184.215.14/hooks/envelopes');
    await page.locator('#webhook-description').fill('CRM sync');
    await page.locator('#webhook-all-events').uncheck();
    await page.getByLabel('envelope.voided').uncheck();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.locator('#webhook-secret').waitFor({ state: 'visible' });
    const secret = (await page.locator('#webhook-secret-value').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const webhooks = await env.api.request('GET', '/webhooks', { token: owner.token });
    expect(webhooks.body).toHaveLength(1);
    expect(webhooks.body[0]).toMatchObject({ url: 'https://93.184.215.14/hooks/envelopes', description: 'CRM sync' });
    // Every event type the service delivers but the one unticked (13 since envelope.purged, recipient.reassigned and bulk.completed).
    expect(webhooks.body[0].events).toHaveLength(12);
    expect(webhooks.body[0].events).not.toContain('envelope.voided');
    expect(JSON.stringify(webhooks.body)).not.toContain(secret);
    await expect(page.locator('#webhook-rows tr').count()).resolves.toBe(1);
    await page.getByRole('button', { name: 'Deliveries of https://93.184.215.14/hooks/envelopes' }).click();
    await page.locator('#deliveries-heading').filter({ hasText: 'Deliveries to https://93.184.215.14/hooks/envelopes' }).waitFor();
    await expectNoViolations(page, 'webhooks');
    await screenshot(page.locator('#webhooks'), 'console-fields-03-webhooks');
    await page.getByRole('button', { name: 'Delete the webhook https://93.184.215.14/hooks/envelopes' }).click();
    await page.locator('#webhooks-empty').waitFor({ state: 'visible' });
    expect((await env.api.request('GET', '/webhooks', { token: owner.token })).body).toEqual([]);

    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);
  }, patience(300_000));

  test('"Detect fields" fills a draft envelope with its document\'s text tags, and names the page of a tag naming no recipient', async () => {
    // A lease with tags printed by Chromium: page 1 for the first recipient, page 2 for the third.
    const printer = await session.context.newPage();
    await printer.setContent(
      `<!doctype html><html><body style="font: 15px sans-serif; margin: 40px">
      <h1>Lease agreement</h1>
      <p>Company: {{text;label=Company}}</p>
      <p>Tenant signature: {{signature;r=1;label=Signature}}</p>
      <p style="break-before: page">Landlord signature: {{signature;r=3;label=Signature}}</p>
      <p>Signed on: {{date_signed;r=3;label=Date}}</p>
      </body></html>`,
    );
    const tagged = await printer.pdf({ format: 'A4' });
    await printer.close();
    const id = await createEnvelopeWithDocument(env.api, owner, tagged, 'tagged-lease.pdf');
    // Two recipients (the second a cc), and one field placed by hand.
    const withSigners = await env.api.request('PUT', `/envelopes/${id}`, {
      token: owner.token,
      json: { signers: [{ name: 'Ada Lovelace', email: ada }, { name: 'Carol Copperfield', email: carol, role: 'cc' }] },
    });
    expect(withSigners.status).toBe(200);
    const adaId = withSigners.body.signers[0].id;
    const handPlaced = await env.api.request('PATCH', `/envelopes/${id}`, {
      token: owner.token,
      json: { fields: [{ recipientId: adaId, type: 'text', page: 1, x: 0.55, y: 0.7, width: 0.3, height: 0.04, label: 'Notes' }] },
    });
    expect(handPlaced.status).toBe(200);

    await page.goto(`${env.service.apiUrl}/console`);
    await page.locator('#login-email').fill(owner.email);
    await page.locator('#login-password').fill(owner.password);
    await page.locator('#login-password').press('Enter');
    await page.getByRole('button', { name: /^Open tagged-lease\.pdf/ }).click();
    await page.locator('#field-pages[data-ready="true"]').waitFor({ state: 'attached' });
    await waitInPage(page, `document.querySelectorAll('#field-pages .pdf-page-drawn').length === 2`);
    const placed = page.locator('#field-pages .placed-field');
    await expect(placed.allTextContents()).resolves.toEqual(['Notes · Ada Lovelace']);
    await expect(page.locator('#detect-hint').innerText()).resolves.toContain('{{signature;r=2;label=Signature}} (r: the recipient’s place in the list, 1 for the first)');

    // r=3 with two recipients: refused, each tag named with its page; the field placed by hand stays.
    const before = await envelopeFromApi(id);
    const detect = page.getByRole('button', { name: 'Detect fields' });
    await detect.click();
    await page.locator('#confirm-dialog[open]').waitFor();
    await expect(page.locator('#confirm-body').innerText()).resolves.toContain('The field placed now is replaced by those found in the document.');
    await page.locator('#confirm-ok').click();
    const result = page.locator('#detect-result');
    await result.filter({ hasText: 'Page 2' }).waitFor();
    await expect(result.getAttribute('class')).resolves.toContain('notice-error');
    const refusal = (await result.innerText()).trim();
    expect(refusal).toMatch(/^The text tag \{\{signature;r=3;label=Signature\}\}, on page 2, r=3 names no signer: .* Nothing was changed\./);
    expect(refusal).toContain('Page 2: {{signature;r=3;label=Signature}} r=3 names no signer');
    expect(refusal).toContain('Page 2: {{date_signed;r=3;label=Date}} r=3 names no signer');
    await expect(placed.allTextContents()).resolves.toEqual(['Notes · Ada Lovelace']);
    const refused = await envelopeFromApi(id);
    expect({ updatedAt: refused.updatedAt, fields: refused.fields }).toEqual({ updatedAt: before.updatedAt, fields: before.fields });
    await result.scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'envelope detection refused');
    await screenshot(page, 'console-fields-04-detect-refused', { fullPage: false });

    // With Grace as the third recipient: four fields found, on their pages for their recipients.
    await page.getByRole('button', { name: 'Add signer' }).click();
    const graceRow = page.locator('#signer-list fieldset').nth(2);
    await graceRow.locator('[data-field="name"]').fill('Grace Hopper');
    await graceRow.locator('[data-field="email"]').fill(grace);
    await page.getByRole('button', { name: 'Save signers' }).click();
    await page.locator('#status').filter({ hasText: 'Signers saved: 3.' }).waitFor();
    await detect.click();
    await page.locator('#confirm-dialog[open]').waitFor();
    await page.locator('#confirm-ok').click();
    await result.filter({ hasText: 'Found 4 fields in the document (4 text tags, 0 form fields)' }).waitFor();
    await expect(result.getAttribute('class')).resolves.toContain('notice-ok');
    await expect(page.locator('#field-pages .pdf-page[data-page="1"] .placed-field').allTextContents()).resolves.toEqual(['Company · Ada Lovelace', 'Signature · Ada Lovelace']);
    await expect(page.locator('#field-pages .pdf-page[data-page="2"] .placed-field').allTextContents()).resolves.toEqual(['Signature · Grace Hopper', 'Date · Grace Hopper']);
    await expect(page.locator('#fields-dirty').isHidden()).resolves.toBe(true);

    // Saved as the API tells, and drawn where the API put them.
    const detected = await envelopeFromApi(id);
    const [ada1, , grace3] = detected.signers.map((signer: { id: string }) => signer.id);
    expect(ada1).toBe(adaId);
    expect(detected.fields.map((field: any) => [field.type, field.label, field.recipientId, field.page, field.source])).toEqual([
      ['text', 'Company', adaId, 1, 'textTag'],
      ['signature', 'Signature', adaId, 1, 'textTag'],
      ['signature', 'Signature', grace3, 2, 'textTag'],
      ['date_signed', 'Date', grace3, 2, 'textTag'],
    ]);
    const pageTwo = page.locator('#field-pages .pdf-page[data-page="2"]');
    await pageTwo.scrollIntoViewIfNeeded();
    const pageBox = (await pageTwo.boundingBox())!;
    for (const [index, field] of detected.fields.slice(2).entries()) {
      const fieldBox = (await pageTwo.locator('.placed-field').nth(index).boundingBox())!;
      expect(Math.abs((fieldBox.x - pageBox.x) / pageBox.width - field.x)).toBeLessThan(0.01);
      expect(Math.abs((fieldBox.y - pageBox.y) / pageBox.height - field.y)).toBeLessThan(0.01);
      expect(Math.abs(fieldBox.width / pageBox.width - field.width)).toBeLessThan(0.01);
    }
    await page.locator('#field-pages .pdf-page[data-page="1"] .placed-field').first().scrollIntoViewIfNeeded();
    await expectNoViolations(page, 'envelope with detected fields');
    await screenshot(page, 'console-fields-05-detected', { fullPage: false });

    // Sent, the envelope no longer offers detection.
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.locator('#envelope-status').filter({ hasText: 'sent' }).waitFor();
    await expect(page.locator('#detect-tools').isHidden()).resolves.toBe(true);
    expect(watch.errors).toEqual([]);
  }, patience(300_000));
});
