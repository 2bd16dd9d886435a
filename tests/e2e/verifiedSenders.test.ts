/**
 * Verified senders, over real HTTP with real e-mail: with `REQUIRE_EMAIL_VERIFICATION=true`, Register
 * e-mails a verification link (through the outbox); until it is opened the owner may create and edit
 * drafts but not send or complete them (403 `email-unverified`, nothing changed); `POST /api/VerifyEmail`
 * verifies; Login says `emailVerified`; `POST /api/ResendVerification` e-mails a new link at most once
 * a minute, counting the Register e-mail, and answers 409 once verified. The verification page works
 * in Chromium.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { verificationKey, verificationToken } from '../../src/lib/auth/emailVerification.js';
import { getServices } from '../../src/lib/services.js';
import { textKey } from '../../src/lib/storage/keys.js';
import { expectNoViolations, launchChromium, screenshot, watchPage } from '../support/browser.js';
import { reloadSettings } from '../support/contract.js';
import { waitForEmails, type CaughtEmail } from '../support/mail.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, startTestService, type TestService, type TestUser } from '../support/service.js';
import { auditTrail } from '../support/signing.js';

let env: TestService;
let saved: string | undefined;

beforeAll(async () => {
  saved = process.env.REQUIRE_EMAIL_VERIFICATION;
  process.env.REQUIRE_EMAIL_VERIFICATION = 'true';
  reloadSettings();
  env = await startTestService();
});
afterAll(async () => {
  await env.close();
  if (saved === undefined) delete process.env.REQUIRE_EMAIL_VERIFICATION;
  else process.env.REQUIRE_EMAIL_VERIFICATION = saved;
  reloadSettings();
});

const SUBJECT = /^Verify your e-mail address$/;

/** The token of the verification link an e-mail carries (text and HTML carry the same link). */
function verificationLinkIn(email: CaughtEmail): { url: string; token: string } {
  const links = [...email.text.matchAll(/(https?:\/\/[^\s"'<>]+\/api\/verify-email#([A-Za-z0-9_.-]+))/g)];
  expect(links).toHaveLength(1);
  expect(email.html).toContain(links[0]![1]!);
  return { url: links[0]![1]!, token: links[0]![2]! };
}

/** Registers (no login yet) and waits for the verification e-mail. */
async function registered(): Promise<{ email: string; password: string; userId: string; link: { url: string; token: string } }> {
  const email = `verify-${randomUUID()}@example.com`;
  const password = `pw-${randomUUID()}`;
  const answer = await env.api.request('POST', '/Register', { json: { email, password, invitationCode: await env.invitation() } });
  expect(answer.status).toBe(201);
  const [message] = await waitForEmails(email, { subject: SUBJECT });
  return { email, password, userId: answer.body.userId, link: verificationLinkIn(message!) };
}

async function login(email: string, password: string): Promise<{ token: string; user: { emailVerified: boolean } }> {
  const answer = await env.api.request('POST', '/Login', { json: { email, password } });
  expect(answer.status).toBe(200);
  return answer.body;
}

/** A draft with one signer, its document uploaded: ready to send. */
async function readyDraft(user: TestUser): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
  const put = await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: `s-${randomUUID()}@example.com`, name: 'Sam Signer' }] } });
  expect(put.status).toBe(200);
  return id;
}

describe('Register e-mails a verification link', () => {
  test('the link is <PUBLIC_BASE_URL>/api/verify-email#<token>; until it is used the owner edits drafts but may not send or complete; then it may', async () => {
    const account = await registered();
    expect(account.link.url.startsWith(`${process.env.PUBLIC_BASE_URL}/api/verify-email#`)).toBe(true);
    const session = await login(account.email, account.password);
    expect(session.user.emailVerified).toBe(false);
    const user: TestUser = { email: account.email, password: account.password, userId: account.userId, token: session.token };

    const id = await readyDraft(user);
    const before = await env.api.request('GET', `/envelopes/${id}`, { token: user.token });
    const trail = await auditTrail(env.api, user, id);
    const send = await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { status: 'sent' } });
    expectProblem(send, 403);
    expect(send.body.type).toBe('urn:problem:email-unverified');
    const complete = await env.api.request('POST', `/envelopes/${id}/complete`, { token: user.token });
    expectProblem(complete, 403);
    expect(complete.body.type).toBe('urn:problem:email-unverified');
    // Refused requests change nothing.
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: user.token })).headers.get('etag')).toBe(before.headers.get('etag'));
    expect(await auditTrail(env.api, user, id)).toEqual(trail);

    const verified = await env.api.request('POST', '/VerifyEmail', { json: { token: account.link.token } });
    expect(verified.status).toBe(200);
    expect(verified.body.email).toBe(account.email);
    // Verifying twice is harmless.
    expect((await env.api.request('POST', '/VerifyEmail', { json: { token: account.link.token } })).status).toBe(200);
    expect((await login(account.email, account.password)).user.emailVerified).toBe(true);
    const sent = await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { status: 'sent' } });
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('sent');
  });

  test('a token that is tampered with, malformed or expired is refused with 400 and verifies nothing', async () => {
    const account = await registered();
    const [encoded, expires, mac] = account.link.token.split('.') as [string, string, string];
    const tampered = `${encoded}.${Number(expires) + 1}.${mac}`;
    const expired = verificationToken(verificationKey(getServices().config.jwt.secret), account.email, Math.floor(Date.now() / 1000) - 1);
    for (const token of [tampered, 'not-a-token', expired]) {
      const answer = await env.api.request('POST', '/VerifyEmail', { json: { token } });
      expectProblem(answer, 400);
      expect(answer.body.type).toBe('urn:problem:verification-token-invalid');
    }
    expect((await login(account.email, account.password)).user.emailVerified).toBe(false);
  });
});

describe('POST /api/ResendVerification', () => {
  test('at most once per 60 s counting the Register e-mail (429 with Retry-After); a new link then; 409 once verified', async () => {
    const account = await registered();
    const token = (await login(account.email, account.password)).token;
    const tooSoon = await env.api.request('POST', '/ResendVerification', { token });
    expectProblem(tooSoon, 429);
    expect(tooSoon.body.type).toBe('urn:problem:verification-too-soon');
    const retryAfter = Number(tooSoon.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // The Register e-mail went out over a minute ago, as far as the account row says.
    await getServices().storage.tables.users.updateEntity({ partitionKey: textKey(account.email), rowKey: 'user', verificationSentAt: new Date(Date.now() - 61_000).toISOString() }, 'Merge');
    const resent = await env.api.request('POST', '/ResendVerification', { token });
    expect(resent.status).toBe(202);
    const emails = await waitForEmails(account.email, { subject: SUBJECT, count: 2 });
    expect(emails).toHaveLength(2);
    expectProblem(await env.api.request('POST', '/ResendVerification', { token }), 429);

    expect((await env.api.request('POST', '/VerifyEmail', { json: { token: verificationLinkIn(emails[1]!).token } })).status).toBe(200);
    await getServices().storage.tables.users.updateEntity({ partitionKey: textKey(account.email), rowKey: 'user', verificationSentAt: new Date(Date.now() - 61_000).toISOString() }, 'Merge');
    const done = await env.api.request('POST', '/ResendVerification', { token });
    expectProblem(done, 409);
    expect(done.body.type).toBe('urn:problem:email-already-verified');
  });

  test('two resends racing on the same account send one e-mail', async () => {
    const account = await registered();
    const token = (await login(account.email, account.password)).token;
    await getServices().storage.tables.users.updateEntity({ partitionKey: textKey(account.email), rowKey: 'user', verificationSentAt: new Date(Date.now() - 61_000).toISOString() }, 'Merge');
    const answers = await Promise.all([1, 2, 3].map(() => env.api.request('POST', '/ResendVerification', { token })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 429, 429]);
  });
});

describe('the verification page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  test('opens from the link, verifies the address, keeps the token out of the address bar, and is accessible', async () => {
    const account = await registered();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const watch = watchPage(page, [new URL(env.service.apiUrl).origin]);
    await page.goto(`${env.service.apiUrl}/verify-email#${account.link.token}`);
    await page.locator('#verify-heading').filter({ hasText: 'Your e-mail address is verified' }).waitFor({ timeout: 20_000 });
    await expect(page.locator('#verify-body').textContent()).resolves.toContain(account.email);
    expect(new URL(page.url()).hash).toBe('');
    await expectNoViolations(page, 'the verify-email page');
    await screenshot(page, 'verify-email-done', { fullPage: false });
    expect(watch.foreignRequests).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect((await login(account.email, account.password)).user.emailVerified).toBe(true);

    await page.close();

    const broken = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await broken.goto(`${env.service.apiUrl}/verify-email#garbage`);
    await broken.locator('#verify-heading').filter({ hasText: 'This link does not work' }).waitFor({ timeout: 20_000 });
    await broken.close();
  });
});
