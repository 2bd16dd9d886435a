/**
 * One-time codes by text message (docs/api.md#signer-authentication, authentication method `sms`): a
 * code goes through the outbox to the recipient's `phone` with the real `@azure/communication-sms` SDK,
 * under every rule of the e-mailed code (60 s between codes, 5 per link, 10 minutes, once, wrong codes
 * counting down to the lock until a resend); `sms` without `phone` is 400 naming it; a reassignment
 * sends the new recipient's codes to the phone it names (docs/api.md#reassignment); the certificate
 * names how the link went and where the code was sent, the number masked
 * (docs/api.md#how-each-recipient-was-identified).
 *
 * Real HTTP, an Azurite of this file's own, the real SDK against this file's own SMS catcher (the
 * local fake of Communication Services, which checks the SDK's HMAC signature).
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { emailsTo } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, expectType, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxMessages, rewriteStoredEnvelope, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { signingLinkInText, smsServiceForFile, uniqueMobile, waitForTexts } from '../support/sms.js';
import { tempFile, tool } from '../support/tools.js';

const file = smsServiceForFile('Ada Sender');
const sms = file.sms;
let env: TestService;
let owner: TestUser;

beforeAll(() => {
  ({ env, owner } = file.started());
});

const mobile = () => uniqueMobile('151');
const uniqueEmail = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.com`;

const get = (token: string) => env.api.request('GET', '/signing', { token });
const authenticate = (token: string, code: string) => env.api.request('POST', '/signing/authenticate', { token, json: { code } });
const requestCode = (token: string) => env.api.request('POST', '/signing/otp', { token });
const resend = (id: string, recipientId: string) => env.api.request('POST', `/envelopes/${id}/recipients/${recipientId}/resend`, { token: owner.token });

/** The 6-digit codes texted to `phone`, oldest first, once `count` arrived at the catcher. */
async function codesTo(phone: string, count: number): Promise<string[]> {
  const texts = await waitForTexts(sms.url(), phone, { count, timeoutMs: patience(60_000) });
  return texts.map((text) => {
    const code = /^(\d{6}) /.exec(text.message)?.[1];
    if (code === undefined) throw new Error(`no code in the text: ${text.message}`);
    return code;
  });
}

/** Lets the 60 s between codes pass, as time would: moves the newest code's time back in storage. */
async function coolDown(envelopeId: string, recipientId: string): Promise<void> {
  await rewriteStoredEnvelope(owner.userId, envelopeId, (record) => {
    record.signers.find((candidate) => candidate.id === recipientId)!.authentication!.lastOtpAt = new Date(Date.now() - 61_000).toISOString();
  });
}

/** Text without white space: the certificate wraps long lines wherever it may. */
const squeeze = (text: string): string => text.replace(/\s/g, '');

describe('sms authentication needs a phone', () => {
  test('a new signer with {method: sms} and no phone is 400 naming signers.0.phone; a kept one sent back without its phone too', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const email = uniqueEmail('np');
    const refused = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email, name: 'No Phone', authentication: { method: 'sms' } }] } });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'signers.0.phone' })]);

    const phone = mobile();
    const recipientId = randomUUID();
    const saved = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ id: recipientId, email, name: 'With Phone', phone: phone.written, authentication: { method: 'sms' } }] } });
    expect(saved.status).toBe(200);
    expect(saved.body.signers[0]).toMatchObject({ phone: phone.e164, authentication: { method: 'sms' }, delivery: ['email'] });

    // Kept by id, its method stays `sms`: without a phone its codes would go nowhere.
    const kept = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ id: recipientId, email, name: 'With Phone' }] } });
    expectProblem(kept, 400);
    expect(kept.body.errors).toEqual([expect.objectContaining({ path: 'signers.0.phone' })]);
  });

  test('a template recipient with {method: sms} and no phone is 400 naming recipients.0.phone', async () => {
    const refused = await env.api.request('POST', `/templates/${randomUUID()}/envelopes`, {
      token: owner.token,
      json: { recipients: [{ roleName: 'Signer', email: uniqueEmail('t'), name: 'T', authentication: { method: 'sms' } }] },
    });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'recipients.0.phone' })]));
  });
});

describe('codes by text message', () => {
  test('through the outbox to the phone: 60 s between codes, wrong codes count down, 10 minutes, once, 5 per link, never stored, no e-mail', async () => {
    const phone = mobile();
    const email = uniqueEmail('otp');
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Otto Text', phone: phone.written, authentication: { method: 'sms' } }] });
    const recipientId = recipientIds[0]!;
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await get(token)).body).toEqual({
      authentication: { method: 'sms', verified: false, attemptsLeft: 5 },
      envelope: { id, documentName: expect.any(String), ownerEmail: owner.email },
    });

    const sent = await requestCode(token);
    expect(sent.status).toBe(202);
    const tooSoon = await requestCode(token);
    expectType(tooSoon, 429, 'otp-too-soon');
    expect(Number(tooSoon.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(tooSoon.headers.get('retry-after'))).toBeLessThanOrEqual(60);

    const [text] = await waitForTexts(sms.url(), phone.e164, { timeoutMs: patience(60_000) });
    expect(text!.message).toMatch(/^\d{6} is your code to sign "contract\.pdf" from Ada Sender\. It works for 10 minutes\. Never share it\.$/);
    const [first] = await codesTo(phone.e164, 1);
    const rows = await outboxMessages(owner.userId, id);
    expect(rows.filter((row) => row.kind === 'sms' && row.type === 'otp')).toHaveLength(1);
    expect(rows.filter((row) => row.kind === 'email' && row.type === 'otp')).toHaveLength(0);
    expect(JSON.stringify(rows)).not.toContain(first);
    expect(JSON.stringify(await storedEnvelope(owner.userId, id))).not.toContain(first);

    // A wrong code counts down; a code past its 10 minutes is wrong too.
    const wrong = await authenticate(token, first === '000000' ? '111111' : '000000');
    expectType(wrong, 403, 'authentication-failed');
    expect(wrong.body.attemptsLeft).toBe(4);
    await rewriteStoredEnvelope(owner.userId, id, (record) => {
      record.signers.find((candidate) => candidate.id === recipientId)!.authentication!.otpExpiresAt = new Date(Date.now() - 1000).toISOString();
    });
    const expired = await authenticate(token, first!);
    expectType(expired, 403, 'authentication-failed');
    expect(expired.body.attemptsLeft).toBe(3);

    await coolDown(id, recipientId);
    expect((await requestCode(token)).status).toBe(202);
    const [, second] = await codesTo(phone.e164, 2);
    const right = await authenticate(token, second!);
    expect(right.status).toBe(200);
    expect(right.body.authentication).toEqual({ method: 'sms', verified: true, attemptsLeft: 5 });
    // A one-time code works once.
    expectType(await authenticate(token, second!), 403, 'authentication-failed');

    for (let count = 3; count <= 5; count++) {
      await coolDown(id, recipientId);
      expect((await requestCode(token)).status).toBe(202);
      await codesTo(phone.e164, count);
    }
    await coolDown(id, recipientId);
    expectType(await requestCode(token), 429, 'otp-limit');

    const trail = await auditTrail(env.api, owner, id);
    expect(trail.filter((event) => event.type === 'recipient.authenticated').map((event) => event.details)).toEqual([{ recipientId, method: 'sms', channel: 'sms', credential: 'signingLink' }]);
    expect(trail.filter((event) => event.type === 'recipient.authentication_failed').map((event) => event.details)).toEqual([
      { recipientId, method: 'sms', channel: 'sms', credential: 'signingLink' },
      { recipientId, method: 'sms', channel: 'sms', credential: 'signingLink' },
      { recipientId, method: 'sms', channel: 'sms', credential: 'signingLink' },
    ]);
    // No code e-mail went to the recipient.
    expect((await emailsTo(email)).filter((each) => /^Your code for /.test(each.subject))).toEqual([]);
  }, patience(300_000));

  test('five wrong codes lock the link (423) until the owner resends; the resend gives 5 attempts and 5 codes again', async () => {
    const phone = mobile();
    const email = uniqueEmail('lock');
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Lou Locked', phone: phone.written, authentication: { method: 'sms' } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await requestCode(token)).status).toBe(202);
    const [code] = await codesTo(phone.e164, 1);
    const wrongCode = code === '999999' ? '888888' : '999999';
    for (let attempt = 1; attempt <= 4; attempt++) expectType(await authenticate(token, wrongCode), 403, 'authentication-failed');
    expectType(await authenticate(token, wrongCode), 423, 'authentication-locked');
    expectType(await authenticate(token, code!), 423, 'authentication-locked');
    expectType(await requestCode(token), 423, 'authentication-locked');

    expect((await resend(id, recipientIds[0]!)).status).toBe(202);
    const fresh = await signingTokenFor(owner.userId, id, email);
    expect((await get(fresh)).body.authentication).toEqual({ method: 'sms', verified: false, attemptsLeft: 5 });
    expect((await requestCode(fresh)).status).toBe(202);
    const [, newest] = await codesTo(phone.e164, 2);
    expect((await authenticate(fresh, newest!)).status).toBe(200);
  }, patience(120_000));
});

describe('reassignment (docs/api.md#reassignment)', () => {
  test('the new recipient of an sms part needs a phone (400 naming phone); its codes go to that phone', async () => {
    const phone = mobile();
    const email = uniqueEmail('from');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Fran From', phone: phone.written, authentication: { method: 'sms' } }], settings: { allowReassign: true } });
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await requestCode(token)).status).toBe(202);
    const [code] = await codesTo(phone.e164, 1);
    expect((await authenticate(token, code!)).status).toBe(200);

    const newEmail = uniqueEmail('to');
    const refused = await env.api.request('POST', '/signing/reassign', { token, json: { email: newEmail, name: 'Tom To', reason: 'Tom signs for us.' } });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'phone' })]);
    const badPhone = await env.api.request('POST', '/signing/reassign', { token, json: { email: newEmail, name: 'Tom To', reason: 'Tom signs for us.', phone: '+49 30 1234567' } });
    expectProblem(badPhone, 400);
    expect(badPhone.body.errors).toEqual([expect.objectContaining({ path: 'phone', message: expect.stringMatching(/landline/) })]);

    const newPhone = mobile();
    const handedOn = await env.api.request('POST', '/signing/reassign', { token, json: { email: newEmail, name: 'Tom To', reason: 'Tom signs for us.', phone: newPhone.written } });
    expect(handedOn.status).toBe(200);
    const stored = await storedEnvelope(owner.userId, id);
    const newcomer = stored.signers.find((signer) => signer.email === newEmail)!;
    expect(newcomer.phone).toBe(newPhone.e164);
    expect(newcomer.authentication).toMatchObject({ method: 'sms', attemptsLeft: 5, verifiedAt: null });

    const newToken = await signingTokenFor(owner.userId, id, newEmail);
    expect((await get(newToken)).body.authentication).toEqual({ method: 'sms', verified: false, attemptsLeft: 5 });
    expect((await requestCode(newToken)).status).toBe(202);
    const [newCode] = await codesTo(newPhone.e164, 1);
    expect((await authenticate(newToken, newCode!)).status).toBe(200);
    // The caller's phone got only its own code.
    expect(await codesTo(phone.e164, 1)).toHaveLength(1);
  }, patience(120_000));
});

describe('the certificate (docs/api.md#how-each-recipient-was-identified)', () => {
  test('names the link sent by text message and the code sent by text message, the number masked and never whole', async () => {
    const phone = mobile();
    const email = uniqueEmail('cert');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Cera Text', phone: phone.written, delivery: ['sms'], authentication: { method: 'sms' } }] });
    const [invitation] = await waitForTexts(sms.url(), phone.e164, { timeoutMs: patience(60_000) });
    const { token } = signingLinkInText(invitation!.message);
    expect((await requestCode(token)).status).toBe(202);
    const codeText = (await waitForTexts(sms.url(), phone.e164, { count: 2, timeoutMs: patience(60_000) }))[1]!;
    const code = /^(\d{6}) /.exec(codeText.message)![1]!;
    expect((await authenticate(token, code)).status).toBe(200);
    const done = await env.api.request('POST', '/signing/complete', { token, json: { consent: true } });
    expect(done.status).toBe(200);
    const bytes = Buffer.from(await (await fetch(done.body.signedUrl)).arrayBuffer());
    const text = (await tool('pdftotext', [await tempFile(bytes), '-'])).stdout.replace(/\s+/g, ' ');
    expect(squeeze(text)).toContain(squeeze(`Identified by Signing link sent by text message to ${phone.masked}; One-time code sent by text message to ${phone.masked}`));
    expect(squeeze(text)).not.toContain(phone.e164.slice(1));
  }, patience(120_000));
});
