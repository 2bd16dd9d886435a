/**
 * Signer authentication (docs/api.md#signer-authentication): access codes and e-mailed one-time codes, over real HTTP,
 * Azurite and SMTP. The restricted view before the code, 403 for actions, the lock after 5 wrong codes
 * until a resend, the 60 s and 5-per-link limits of one-time codes, one-time use, the authentication
 * lifetime, audit events, the certificate's wording, and no code in any response, audit event, outbox
 * row or log line.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { resetConfig } from '../../src/lib/config.js';
import { getServices, resetServices } from '../../src/lib/services.js';
import { waitForEmails } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxMessages, rewriteStoredEnvelope, sentEnvelope, signingTokenFor, storedEnvelope, storedRecipient } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

const captured: string[] = [];
const consoleMethods = ['log', 'info', 'warn', 'error', 'debug'] as const;
const originals = new Map<string, (...args: unknown[]) => void>();
/** Every code a test used: none may appear in a log line, a response, the audit trail or an outbox row. */
const codes = new Set<string>();

let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  for (const method of consoleMethods) {
    originals.set(method, console[method]);
    console[method] = (...args: unknown[]) => captured.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg) ?? String(arg))).join(' '));
  }
  env = await startTestService();
  owner = await env.newUser();
});

afterAll(async () => {
  await env.close();
  for (const method of consoleMethods) console[method] = originals.get(method)!;
});

const ACCESS_CODE = 'blue-harbour-42';
const uniqueEmail = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;

const get = (token: string) => env.api.request('GET', '/signing', { token });
const complete = (token: string) => env.api.request('POST', '/signing/complete', { token, json: { consent: true } });
const authenticate = (token: string, code: string) => env.api.request('POST', '/signing/authenticate', { token, json: { code } });
const requestCode = (token: string) => env.api.request('POST', '/signing/otp', { token });
const resend = (id: string, recipientId: string) => env.api.request('POST', `/envelopes/${id}/recipients/${recipientId}/resend`, { token: owner.token });

/** Lets the one-time code cool-down pass, as 60 s would: moves the newest code's time back in storage. */
async function coolDown(ownerId: string, envelopeId: string, recipientId: string): Promise<void> {
  await rewriteStoredEnvelope(ownerId, envelopeId, (record) => {
    record.signers.find((candidate) => candidate.id === recipientId)!.authentication!.lastOtpAt = new Date(Date.now() - 61_000).toISOString();
  });
}

/** Text without white space: the certificate wraps long lines wherever it may (after a hyphen too). */
const squeeze = (text: string): string => text.replace(/\s/g, '');

/** The 6-digit codes e-mailed to `address`, oldest first, once `count` arrived through the SMTP catcher. */
async function codesTo(address: string, count: number): Promise<string[]> {
  const emails = await waitForEmails(address, { subject: /^Your code for /, count });
  return emails.map((email) => {
    const code = /\b(\d{6})\b/.exec(email.text)?.[1];
    if (code === undefined) throw new Error(`no code in e-mail: ${email.text}`);
    expect(email.html).toContain(code);
    return code;
  });
}

describe('access code (docs/api.md#signer-authentication)', () => {
  test('stored only as a hash; the restricted view until the code; 403 before it; a wrong code counts down; the right one gives the full view and opens', async () => {
    const email = uniqueEmail('ada');
    codes.add(ACCESS_CODE);
    const { id, envelope, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Ada Lovelace', authentication: { method: 'accessCode', code: ACCESS_CODE } }] });
    expect(envelope.signers[0].authentication).toEqual({ method: 'accessCode' });
    const stored = await storedRecipient(owner.userId, id, email);
    expect(stored.authentication?.codeHash).toMatch(/^\$2[aby]\$/);
    expect(JSON.stringify(await storedEnvelope(owner.userId, id))).not.toContain(ACCESS_CODE);
    const token = await signingTokenFor(owner.userId, id, email);

    const restricted = await get(token);
    expect(restricted.status).toBe(200);
    expect(restricted.body).toEqual({
      authentication: { method: 'accessCode', verified: false, attemptsLeft: 5 },
      envelope: { id, documentName: expect.any(String), ownerEmail: owner.email },
    });
    expect((await storedRecipient(owner.userId, id, email)).status).toBe('sent');

    const refused = await complete(token);
    expectType(refused, 403, 'authentication-required');
    expectType(await env.api.request('POST', '/signing/decline', { token, json: { reason: 'no' } }), 403, 'authentication-required');
    expectType(await requestCode(token), 409, 'authentication-method-mismatch');

    const wrong = await authenticate(token, 'not-the-code');
    expectType(wrong, 403, 'authentication-failed');
    expect((wrong.body as { attemptsLeft: number }).attemptsLeft).toBe(4);
    expect((await get(token)).body.authentication).toEqual({ method: 'accessCode', verified: false, attemptsLeft: 4 });

    const right = await authenticate(token, ACCESS_CODE);
    expect(right.status).toBe(200);
    expect(right.headers.get('cache-control')).toBe('no-store');
    expect(right.body.recipient).toMatchObject({ id: recipientIds[0], status: 'opened' });
    expect(right.body.authentication).toEqual({ method: 'accessCode', verified: true, attemptsLeft: 5 });
    expect(right.body.documentUrl).toMatch(/^http/);
    expect((await get(token)).body.recipient.status).toBe('opened');

    const done = await complete(token);
    expect(done.status).toBe(200);
    expect(done.body.envelope.status).toBe('completed');
    // After completion the document still needs the code: within its lifetime the view is full.
    expect((await get(token)).body.signedUrl).toMatch(/^http/);

    const trail = await auditTrail(env.api, owner, id);
    const auth = trail.filter((event) => event.type.startsWith('recipient.authenticat'));
    expect(auth.map((event) => [event.type, event.details])).toEqual([
      ['recipient.authentication_failed', { recipientId: recipientIds[0], method: 'accessCode', credential: 'signingLink' }],
      ['recipient.authenticated', { recipientId: recipientIds[0], method: 'accessCode', credential: 'signingLink' }],
    ]);
    expect(auth.every((event) => event.actorId === recipientIds[0] && event.actorEmail === email)).toBe(true);

    const bytes = Buffer.from(await (await fetch(done.body.signedUrl)).arrayBuffer());
    const text = (await tool('pdftotext', [await tempFile(bytes), '-'])).stdout.replace(/\s+/g, ' ');
    expect(squeeze(text)).toContain(squeeze(`Identified by Signing link e-mailed to ${email}; Access code`));
  });

  test('a new access code signer needs a code; sent back by id as {method: accessCode} it keeps its code', async () => {
    const email = uniqueEmail('kept');
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const recipientId = randomUUID();
    const put = (authentication: unknown, extra: Record<string, unknown> = {}) =>
      env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ id: recipientId, email, name: 'Kept', authentication }], ...extra } });
    const missing = await put({ method: 'accessCode' });
    expectType(missing, 400, 'validation-failed');
    expect(missing.body.errors).toEqual([{ path: 'signers.0.authentication.code', message: expect.any(String) }]);
    expectType(await put({ method: 'accessCode', code: 'abc' }), 400, 'validation-failed');
    codes.add('first-code');
    expect((await put({ method: 'accessCode', code: 'first-code' })).status).toBe(200);
    const sent = await put({ method: 'accessCode' }, { status: 'sent' });
    expect(sent.status).toBe(200);
    expect(sent.text).not.toContain('first-code');
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await authenticate(token, 'first-code')).status).toBe(200);
  });

  test('5 wrong codes lock the link (423 for everything, the right code too) until the owner resends; the resend gives 5 attempts again', async () => {
    const email = uniqueEmail('lock');
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Locked Out', authentication: { method: 'accessCode', code: ACCESS_CODE } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    for (const left of [4, 3, 2, 1]) {
      const wrong = await authenticate(token, `wrong-${left}`);
      expectType(wrong, 403, 'authentication-failed');
      expect((wrong.body as { attemptsLeft: number }).attemptsLeft).toBe(left);
    }
    const fifth = await authenticate(token, 'wrong-0');
    expectType(fifth, 423, 'authentication-locked');
    const trailBefore = (await auditTrail(env.api, owner, id)).length;
    expectType(await authenticate(token, ACCESS_CODE), 423, 'authentication-locked');
    expectType(await get(token), 423, 'authentication-locked');
    expectType(await complete(token), 423, 'authentication-locked');
    expectType(await requestCode(token), 423, 'authentication-locked');
    expect(await auditTrail(env.api, owner, id)).toHaveLength(trailBefore);
    expect((await auditTrail(env.api, owner, id)).filter((event) => event.type === 'recipient.authentication_failed')).toHaveLength(5);

    expect((await resend(id, recipientIds[0]!)).status).toBe(202);
    const fresh = await signingTokenFor(owner.userId, id, email);
    expect((await get(fresh)).body.authentication).toEqual({ method: 'accessCode', verified: false, attemptsLeft: 5 });
    expect((await authenticate(fresh, ACCESS_CODE)).status).toBe(200);
  });
});

describe('the certificate\'s identification line', () => {
  test('names a code only for a recipient whose trail shows it entering that code', async () => {
    const ada = uniqueEmail('ada-no-code');
    const bob = uniqueEmail('bob-code');
    const { id, recipientIds } = await sentEnvelope(env.api, owner, {
      signers: [
        { email: ada, name: 'Ada Lovelace' },
        { email: bob, name: 'Bob Builder', authentication: { method: 'accessCode', code: ACCESS_CODE } },
      ],
    });
    expect((await complete(await signingTokenFor(owner.userId, id, ada))).status).toBe(200);
    // White box: Ada's stored setting claims an access code she was never asked for (as a recipient
    // whose method came from someone else's would); her trail holds no recipient.authenticated.
    const bobRecord = await storedRecipient(owner.userId, id, bob);
    await rewriteStoredEnvelope(owner.userId, id, (record) => {
      record.signers.find((signer) => signer.id === recipientIds[0])!.authentication = { ...bobRecord.authentication!, verifiedAt: null };
    });
    const bobToken = await signingTokenFor(owner.userId, id, bob);
    expect((await authenticate(bobToken, ACCESS_CODE)).status).toBe(200);
    const done = await complete(bobToken);
    expect(done.body.envelope.status).toBe('completed');
    const bytes = Buffer.from(await (await fetch(done.body.signedUrl)).arrayBuffer());
    const text = (await tool('pdftotext', [await tempFile(bytes), '-'])).stdout.replace(/\s+/g, ' ');
    expect(squeeze(text)).toContain(squeeze(`Signing link e-mailed to ${bob}; Access code`));
    expect(squeeze(text)).toContain(squeeze(`Signing link e-mailed to ${ada}`));
    expect(squeeze(text)).not.toContain(squeeze(`Signing link e-mailed to ${ada}; Access code`));
  });
});

describe('e-mailed one-time codes (docs/api.md#signer-authentication)', () => {
  test('in the recipient\'s language: the code e-mail in its locale; the certificate\'s identification and trail in the envelope\'s', async () => {
    const email = uniqueEmail('otp-fr');
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const sentNow = await env.api.request('PUT', `/envelopes/${id}`, {
      token: owner.token,
      json: { signers: [{ id: randomUUID(), email, name: 'Odile Code', locale: 'fr', authentication: { method: 'emailOtp' } }], fields: [], locale: 'de', status: 'sent' },
    });
    expect(sentNow.status).toBe(200);
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await requestCode(token)).status).toBe(202);
    const [mail] = await waitForEmails(email, { subject: /^Votre code pour / });
    expect(mail!.text).toContain('Il ne sert qu’une fois, pendant 10 minutes.');
    const code = /\b(\d{6})\b/.exec(mail!.text)![1]!;
    codes.add(code);
    expectType(await authenticate(token, code === '000000' ? '111111' : '000000'), 403, 'authentication-failed');
    expect((await authenticate(token, code)).status).toBe(200);
    const done = await complete(token);
    expect(done.status).toBe(200);
    const bytes = Buffer.from(await (await fetch(done.body.signedUrl)).arrayBuffer());
    const text = (await tool('pdftotext', [await tempFile(bytes), '-'])).stdout.replace(/\s+/g, ' ');
    expect(squeeze(text)).toContain(squeeze(`Signaturlink per E-Mail an ${email} gesendet; Einmalcode per E-Mail an ${email} gesendet`));
    // The recipient was shown its own language, named in the certificate's.
    expect(text).toContain('Sprache Französisch (fr)');
    expect(text).toContain(`${email} hat einen falschen Einmalcode eingegeben.`);
    expect(text).toContain(`${email} hat den richtigen per E-Mail erhaltenen Einmalcode eingegeben.`);
  });

  test('a code through the outbox and real SMTP; 60 s between codes; it works once; 5 per link, then otp-limit until a resend', async () => {
    const email = uniqueEmail('otp');
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Otto Pass', authentication: { method: 'emailOtp' } }] });
    const recipientId = recipientIds[0]!;
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await get(token)).body).toEqual({
      authentication: { method: 'emailOtp', verified: false, attemptsLeft: 5 },
      envelope: { id, documentName: expect.any(String), ownerEmail: owner.email },
    });
    // No code asked for yet: any code is wrong.
    expectType(await authenticate(token, '000000'), 403, 'authentication-failed');

    const sent = await requestCode(token);
    expect(sent.status).toBe(202);
    expect(sent.text).toBe('');
    const tooSoon = await requestCode(token);
    expectType(tooSoon, 429, 'otp-too-soon');
    expect(Number(tooSoon.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(tooSoon.headers.get('retry-after'))).toBeLessThanOrEqual(60);

    const [code] = await codesTo(email, 1);
    codes.add(code!);
    const rows = await outboxMessages(owner.userId, id);
    const otpRows = rows.filter((row) => row.kind === 'email' && row.type === 'otp');
    expect(otpRows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(code);
    expect(JSON.stringify(await storedEnvelope(owner.userId, id))).not.toContain(code);

    const right = await authenticate(token, code!);
    expect(right.status).toBe(200);
    expect(right.body.authentication).toEqual({ method: 'emailOtp', verified: true, attemptsLeft: 5 });
    expect(right.body.recipient.status).toBe('opened');
    // A one-time code works once.
    expectType(await authenticate(token, code!), 403, 'authentication-failed');

    // Each code's e-mail is awaited before the next is asked for, so that arrival order is sending order.
    for (let sentCount = 2; sentCount <= 5; sentCount++) {
      await coolDown(owner.userId, id, recipientId);
      expect((await requestCode(token)).status).toBe(202);
      await codesTo(email, sentCount);
    }
    const all = await codesTo(email, 5);
    all.forEach((each) => codes.add(each));
    await coolDown(owner.userId, id, recipientId);
    expectType(await requestCode(token), 429, 'otp-limit');

    // An older code stops working when a newer one is sent.
    expectType(await authenticate(token, all[3]!), 403, 'authentication-failed');
    expect((await authenticate(token, all[4]!)).status).toBe(200);

    const trail = await auditTrail(env.api, owner, id);
    expect(trail.filter((event) => event.type === 'recipient.authenticated').map((event) => event.details)).toEqual([
      { recipientId, method: 'emailOtp', channel: 'email', credential: 'signingLink' },
      { recipientId, method: 'emailOtp', channel: 'email', credential: 'signingLink' },
    ]);

    await coolDown(owner.userId, id, recipientId);
    expect((await resend(id, recipientId)).status).toBe(202);
    const fresh = await signingTokenFor(owner.userId, id, email);
    expect((await requestCode(fresh)).status).toBe(202);
    const [newest] = (await codesTo(email, 6)).slice(-1);
    codes.add(newest!);
    const again = await authenticate(fresh, newest!);
    expect(again.status).toBe(200);
    const done = await complete(fresh);
    expect(done.status).toBe(200);
    const bytes = Buffer.from(await (await fetch(done.body.signedUrl)).arrayBuffer());
    const text = (await tool('pdftotext', [await tempFile(bytes), '-'])).stdout.replace(/\s+/g, ' ');
    expect(squeeze(text)).toContain(squeeze(`Identified by Signing link e-mailed to ${email}; One-time code e-mailed to ${email}`));
  }, patience(300_000)); // seven e-mails through the outbox, each waited for with patience(60 s): more than the default test timeout on a loaded machine
});

describe('authentication lifetime (SIGNING_AUTH_TTL_SECONDS)', () => {
  afterAll(() => {
    delete process.env.SIGNING_AUTH_TTL_SECONDS;
    resetConfig();
    resetServices();
  });

  test('after SIGNING_AUTH_TTL_SECONDS the code is asked again, for reading and acting', async () => {
    process.env.SIGNING_AUTH_TTL_SECONDS = '2';
    resetConfig();
    resetServices();
    const email = uniqueEmail('ttl');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Tilly', authentication: { method: 'accessCode', code: ACCESS_CODE } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await authenticate(token, ACCESS_CODE)).status).toBe(200);
    const deadline = Date.now() + patience(30_000);
    let view = await get(token);
    while (view.body.authentication?.verified !== false) {
      if (Date.now() > deadline) throw new Error('the authentication never expired');
      await new Promise((resolve) => setTimeout(resolve, 200));
      view = await get(token);
    }
    expect(view.body).toEqual({ authentication: { method: 'accessCode', verified: false, attemptsLeft: 5 }, envelope: expect.any(Object) });
    expectType(await complete(token), 403, 'authentication-required');
    expect((await authenticate(token, ACCESS_CODE)).status).toBe(200);
  });

  test('after completion, once SIGNING_AUTH_TTL_SECONDS have passed, the sealed document needs the code again', async () => {
    process.env.SIGNING_AUTH_TTL_SECONDS = '2';
    resetConfig();
    resetServices();
    const email = uniqueEmail('ttl-completed');
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Cora Completed', authentication: { method: 'accessCode', code: ACCESS_CODE } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await authenticate(token, ACCESS_CODE)).status).toBe(200);
    const done = await complete(token);
    expect(done.status).toBe(200);
    expect(done.body.envelope.status).toBe('completed');

    const deadline = Date.now() + patience(30_000);
    let view = await get(token);
    while (view.body.authentication?.verified !== false) {
      expect(view.body.signedUrl).toMatch(/^http/);
      if (Date.now() > deadline) throw new Error('the authentication never expired');
      await new Promise((resolve) => setTimeout(resolve, 200));
      view = await get(token);
    }
    expect(view.status).toBe(200);
    expect(view.body).toEqual({ authentication: { method: 'accessCode', verified: false, attemptsLeft: 5 }, envelope: { id, documentName: expect.any(String), ownerEmail: owner.email } });

    const again = await authenticate(token, ACCESS_CODE);
    expect(again.status).toBe(200);
    expect(again.body.envelope.status).toBe('completed');
    expect(again.body.recipient.status).toBe('signed');
    expect(again.body.signedUrl).toMatch(/^http/);
    expect((await get(token)).body.signedUrl).toMatch(/^http/);
  });
});

describe('codes never leak', () => {
  test('no code used above appears in any captured log line or audit event', async () => {
    expect(codes.size).toBeGreaterThanOrEqual(4);
    const logs = captured.join('\n');
    for (const code of codes) expect(logs).not.toContain(code);
  });
});
