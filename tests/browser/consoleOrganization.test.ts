/**
 * The console's organisation view (docs/api.md#organizations) in Chromium, against the local host,
 * the suite's Azurite and its mail catcher: the owner renames the organisation and invites someone by
 * e-mail; the invited person follows the e-mailed `#join=` link in another browser, signs up and is
 * logged in with the invited role, the token gone from the address bar; the owner changes that
 * member's role (controls it may not use disabled with their reason), the member sees it and what
 * its role may use; the owner hands the organisation over; the new owner, on a phone, removes a member,
 * choosing whom its envelopes go to. Screenshots at desktop and phone sizes go
 * to `test-output/screenshots/console-organization-*.png`; axe-core finds nothing at WCAG 2.2 AA.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Page } from 'playwright-core';
import { getServices } from '../../src/lib/services.js';
import { expectNoViolations, screenshot, watchPage, type PageWatch } from '../support/browser.js';
import { startConsoleSession, type ConsoleSession } from '../support/consoleSession.js';
import { waitForEmail } from '../support/mail.js';
import { joinedMember } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { createEnvelopeWithDocument } from '../support/service.js';

let session: ConsoleSession;
let page: Page;
/** The invited member's page: its own browser context, a phone's viewport. */
let memberPage: Page;
let memberWatch: PageWatch;
const member = { email: `member-${randomUUID()}@example.com`, name: 'Grace Hopper', password: `pw-${randomUUID()}` };

beforeAll(async () => {
  session = await startConsoleSession(patience(20_000));
  page = session.page;
  const context = await session.browser.newContext({ viewport: { width: 390, height: 844 } });
  session.contexts.push(context);
  memberPage = await context.newPage();
  memberPage.setDefaultTimeout(patience(20_000));
  memberWatch = watchPage(memberPage, [new URL(session.env.service.apiUrl).origin, new URL(getServices().storage.blobService.url).origin]);
});
afterAll(async () => {
  await session?.close();
});

/** Whether the page is no wider than its viewport (nothing scrolls sideways). */
async function fitsWidth(target: Page): Promise<boolean> {
  return (await target.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')) as boolean;
}

/** The text of the member table's row of `email`, cell by cell. */
async function memberRow(target: Page, email: string): Promise<string[]> {
  return await target.locator('#member-rows tr', { hasText: email }).locator('th, td').allTextContents();
}

describe('the organisation view of GET /api/console', () => {
  test('the owner sees its role, renames the organisation and invites someone by e-mail', async () => {
    await page.goto(`${session.env.service.apiUrl}/console`);
    await page.locator('#login-email').fill(session.owner.email);
    await page.locator('#login-password').fill(session.owner.password);
    await page.locator('#login-password').press('Enter');
    await page.locator('#organization-role').filter({ hasText: 'owner' }).waitFor();
    expect(await page.locator('#session-role').textContent()).toBe('owner');
    expect(await memberRow(page, session.owner.email)).toEqual(expect.arrayContaining([session.owner.email, 'owner']));
    // Nobody changes the owner's role: the button is disabled and says why (docs/api.md#members).
    const ownRow = page.locator('#member-rows tr', { hasText: session.owner.email });
    await expect(ownRow.getByRole('button', { name: /Change role of/ }).isDisabled()).resolves.toBe(true);
    expect(await ownRow.textContent()).toContain('changes only by handing the organisation over');
    // Nobody else yet: handing over is disabled with its reason.
    expect(await page.locator('#transfer-button').isDisabled()).toBe(true);
    expect(await page.locator('#transfer-reason').textContent()).toContain('invite someone first');

    await page.locator('#organization-name').fill('Analytical Engines Ltd');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.locator('#status').filter({ hasText: 'now named “Analytical Engines Ltd”' }).waitFor();
    expect((await session.env.api.request('GET', '/organization', { token: session.owner.token })).body).toMatchObject({ name: 'Analytical Engines Ltd' });

    await page.locator('#invite-email').fill(member.email);
    await page.locator('#invite-role').selectOption('sender');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.locator('#status').filter({ hasText: `Invitation e-mailed to ${member.email} as sender` }).waitFor();
    await page.locator('#invitation-rows tr', { hasText: member.email }).waitFor();
    const pending = await page.locator('#invitation-rows tr', { hasText: member.email }).locator('th, td').allTextContents();
    expect(pending.slice(0, 2)).toEqual([member.email, 'sender']);
    // Valid 7 days (docs/api.md#invitations-to-an-organization).
    expect(Date.parse(pending[2]!.replace(' UTC', 'Z').replace(' ', 'T')) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    await screenshot(page, 'console-organization-01-invited');
    await expectNoViolations(page, 'the organisation view with a pending invitation');

    // Another invitation, revoked: gone from the list, and its token refused.
    const other = `other-${randomUUID()}@example.com`;
    await page.locator('#invite-email').fill(other);
    await page.locator('#invite-role').selectOption('viewer');
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.locator('#status').filter({ hasText: `Invitation e-mailed to ${other} as viewer` }).waitFor();
    await page.getByRole('button', { name: `Revoke the invitation of ${other}` }).click();
    await page.locator('#status').filter({ hasText: `The invitation of ${other} is revoked` }).waitFor();
    expect(await page.locator('#invitation-rows').textContent()).not.toContain(other);
    expect(await page.locator('#invitation-rows').textContent()).toContain(member.email);
    const revoked = /\/api\/console#join=(oinv_[A-Za-z0-9_-]{43})/.exec((await waitForEmail(other)).text)?.[1];
    expect((await session.env.api.request('POST', '/Register', { json: { email: other, password: `pw-${randomUUID()}`, organizationInvitation: revoked } })).status).toBe(403);
  });

  test('the invited person follows the e-mailed link, signs up and is logged in as a sender', async () => {
    const email = await waitForEmail(member.email);
    // The link is `<PUBLIC_BASE_URL>/api/console#join=<token>`; the suite's service answers on its own origin.
    const token = /https?:\/\/\S+\/api\/console#join=(oinv_[A-Za-z0-9_-]{43})(?![A-Za-z0-9_-])/.exec(email.text)?.[1];
    expect(token).toBeDefined();
    await memberPage.goto(`${session.env.service.apiUrl}/console#join=${token!}`);
    await memberPage.locator('#register-form').getByRole('heading', { name: 'Join your organisation' }).waitFor();
    // The token leaves the address bar as soon as the page has read it.
    expect(memberPage.url()).not.toContain('join=');
    expect(new URL(memberPage.url()).hash).toBe('');
    // The invitation stands in for an invitation code.
    expect(await memberPage.locator('#register-code-row').isHidden()).toBe(true);
    expect(await fitsWidth(memberPage)).toBe(true);
    await screenshot(memberPage, 'console-organization-02-join-phone');
    await expectNoViolations(memberPage, 'the sign-up form of an invitation');

    await memberPage.locator('#register-email').fill(member.email);
    await memberPage.locator('#register-name').fill(member.name);
    await memberPage.locator('#register-password').fill(member.password);
    await memberPage.getByRole('button', { name: 'Create account and log in' }).click();
    await memberPage.locator('#session-email').filter({ hasText: member.email }).waitFor();
    await memberPage.locator('#organization-role').filter({ hasText: 'sender' }).waitFor();
    expect(await memberPage.locator('#organization-name').inputValue()).toBe('Analytical Engines Ltd');
    // A sender uploads, but manages neither the organisation nor webhooks (docs/api.md#roles).
    expect(await memberPage.locator('#upload').isVisible()).toBe(true);
    expect(await memberPage.locator('#webhooks').isHidden()).toBe(true);
    expect(await memberPage.locator('#invitations').isHidden()).toBe(true);
    expect(await memberPage.locator('#save-organization').isDisabled()).toBe(true);
    expect(await memberPage.locator('#organization-name-reason').textContent()).toContain('Only an admin or the owner');
    expect(await memberRow(memberPage, member.email)).toEqual(expect.arrayContaining([`${member.name} (you)`, 'sender']));
    expect(await fitsWidth(memberPage)).toBe(true);
    await screenshot(memberPage, 'console-organization-03-member-phone');
    await expectNoViolations(memberPage, 'the organisation view of a sender');
    expect(memberWatch).toEqual({ foreignRequests: [], errors: [] });
  });

  test('the owner changes the member\'s role, and the member sees it and what a viewer may use', async () => {
    await page.getByRole('button', { name: 'Refresh organisation' }).click();
    await page.locator('#status').filter({ hasText: 'Organisation refreshed.' }).waitFor();
    // The invitation is used up: no longer pending.
    expect(await page.locator('#invitations-empty').isVisible()).toBe(true);
    expect(await memberRow(page, member.email)).toEqual(expect.arrayContaining([member.name, member.email, 'sender']));

    await page.getByRole('combobox', { name: `New role of ${member.name}` }).selectOption('viewer');
    await page.getByRole('button', { name: `Change role of ${member.name}` }).click();
    await page.locator('#status').filter({ hasText: `${member.email} is now a viewer` }).waitFor();
    await page.locator('#member-rows tr', { hasText: member.email }).locator('td', { hasText: /^viewer$/ }).waitFor();

    await memberPage.getByRole('button', { name: 'Refresh organisation' }).click();
    await memberPage.locator('#organization-role').filter({ hasText: 'viewer' }).waitFor();
    // A viewer sees no "New envelope", no new template nor API key, and is told why.
    expect(await memberPage.locator('#upload').isHidden()).toBe(true);
    expect(await memberPage.locator('#template-form').isHidden()).toBe(true);
    expect(await memberPage.locator('#apikey-form').isHidden()).toBe(true);
    expect(await memberPage.locator('#role-note').textContent()).toContain('As a viewer');
    // A viewer changes nobody's role: its buttons are disabled with the reason.
    const ownerRow = memberPage.locator('#member-rows tr', { hasText: session.owner.email });
    expect(await ownerRow.getByRole('button', { name: /Change role of/ }).isDisabled()).toBe(true);
    expect(await fitsWidth(memberPage)).toBe(true);
    await screenshot(memberPage, 'console-organization-04-viewer-phone');
    await expectNoViolations(memberPage, 'the console of a viewer');
  });

  test('the owner hands the organisation over after a confirmation, and becomes an admin', async () => {
    await page.locator('#transfer-member').selectOption({ label: `${member.name} <${member.email}> (viewer)` });
    await page.getByRole('button', { name: 'Hand over…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Hand the organisation over?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(`${member.name} <${member.email}> becomes the owner`);
    await screenshot(page, 'console-organization-05-confirm', { fullPage: false });
    await dialog.getByRole('button', { name: 'Hand it over' }).click();
    await page.locator('#status').filter({ hasText: `${member.email} now owns the organisation` }).waitFor();
    await page.locator('#organization-role').filter({ hasText: 'admin' }).waitFor();
    expect(await page.locator('#transfer').isHidden()).toBe(true);
    // An admin changes no admin's role and no owner's, and makes no admins (docs/api.md#members).
    expect(await memberRow(page, member.email)).toEqual(expect.arrayContaining([member.name, 'owner']));
    expect(await page.locator('#member-rows tr', { hasText: member.email }).getByRole('button', { name: /Change role of/ }).isDisabled()).toBe(true);
    expect(await page.locator('#member-rows tr', { hasText: session.owner.email }).textContent()).toContain('Only the owner changes an admin’s role');
    await screenshot(page, 'console-organization-06-handed-over');
    await screenshot(page.locator('#organization'), 'console-organization-06-panel');
    await expectNoViolations(page, 'the organisation view of an admin');

    await memberPage.getByRole('button', { name: 'Refresh organisation' }).click();
    await memberPage.locator('#organization-role').filter({ hasText: 'owner' }).waitFor();
    expect(await memberPage.locator('#upload').isVisible()).toBe(true);
    expect(await memberPage.locator('#transfer').isVisible()).toBe(true);
    expect(await fitsWidth(memberPage)).toBe(true);
    await screenshot(memberPage, 'console-organization-07-new-owner-phone');

    await page.setViewportSize({ width: 390, height: 844 });
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'console-organization-08-admin-phone');
    await screenshot(page.locator('#organization'), 'console-organization-09-panel-phone');
    expect(session.watch).toEqual({ foreignRequests: [], errors: [] });
  });

  test('the new owner removes a member on a phone, choosing whom its envelopes go to', async () => {
    const api = session.env.api;
    const loggedIn = await api.request('POST', '/Login', { json: { email: member.email, password: member.password } });
    expect(loggedIn.status).toBe(200);
    const newOwner = { ...member, userId: loggedIn.body.user.userId as string, token: loggedIn.body.token as string };
    const leaver = await joinedMember(api, newOwner, 'sender', 'Lee Leaver');
    const envelope = await createEnvelopeWithDocument(api, leaver, null, 'leaver.pdf');

    await memberPage.getByRole('button', { name: 'Refresh organisation' }).click();
    await memberPage.locator('#member-rows tr', { hasText: leaver.email }).waitFor();
    // The owner removes anyone but itself; the admin's row offers it too.
    expect(await memberPage.locator('#member-rows tr', { hasText: member.email }).getByRole('button', { name: /^Remove / }).count()).toBe(0);
    expect(await memberPage.locator('#member-rows tr', { hasText: session.owner.email }).getByRole('button', { name: /^Remove / }).count()).toBe(1);
    await memberPage.getByRole('button', { name: 'Remove Lee Leaver', exact: true }).click();
    const receiver = memberPage.getByRole('combobox', { name: 'Give Lee Leaver’s envelopes and templates to' });
    await receiver.waitFor();
    // Whom to: any other member who is not a viewer, the owner itself first.
    const choices = await receiver.locator('option').allTextContents();
    expect(choices).toHaveLength(2);
    expect(choices[0]).toBe(`me, ${member.name} <${member.email}> (owner)`);
    expect(choices[1]).toContain(session.owner.email);
    expect(choices[1]).toMatch(/\(admin\)$/);
    await receiver.selectOption(session.owner.userId);
    expect(await fitsWidth(memberPage)).toBe(true);
    await screenshot(memberPage, 'console-organization-10-remove-phone');
    await screenshot(memberPage.locator('#organization'), 'console-organization-10-remove-panel-phone');
    await expectNoViolations(memberPage, 'removing a member');
    await memberPage.getByRole('button', { name: 'Remove member Lee Leaver' }).click();
    await memberPage.locator('#status').filter({ hasText: `${leaver.email} is removed` }).waitFor();
    expect(await memberPage.locator('#member-rows').textContent()).not.toContain(leaver.email);
    expect(await memberPage.locator('#status').textContent()).toContain(`now ${session.owner.email}’s`);
    expect((await api.request('GET', `/envelopes/${envelope}`, { token: session.owner.token })).body).toMatchObject({ ownerId: session.owner.userId });
    expect((await api.request('GET', '/envelopes', { token: leaver.token })).status).toBe(401);
    await screenshot(memberPage, 'console-organization-11-removed-phone');
    expect(memberWatch).toEqual({ foreignRequests: [], errors: [] });
  });
});
