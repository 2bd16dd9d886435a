/**
 * Reassignment (docs/api.md#reassignment) end to end over real HTTP, with the suite's SMTP server: a signer of
 * an envelope that allows it hands its part to someone else, who gets an invitation e-mail, fills the
 * same fields and signs; the envelope completes, and the sealed PDF's certificate of completion names
 * both people and tells the hand-over (pdftotext). Refusals (setting off, role, turn, acted, existing
 * address, body) answer as docs/api.md#reassignment says and change nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { SCREENSHOT_DIR } from '../support/browser.js';
import { emailsTo, waitForEmails, waitForSigningLink } from '../support/mail.js';
import { expectProblem, startTestService, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, emailsDispatched, outboxMessages, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser({ name: 'Evelyn Boyd' });
});
afterAll(async () => {
  await env?.close();
});

const address = (name: string) => `${name}-${randomUUID()}@example.com`;
const INVITATION = /^Please review(?: and (?:sign|approve))?: /;

describe('POST /api/signing/reassign', () => {
  test('the new recipient takes the same role, order and fields, is invited, signs; the certificate names both people', async () => {
    const ada = address('ada');
    const bob = address('bob');
    const carol = address('carol');
    const { id, recipientIds } = await sentEnvelopeAllowing([
      { email: ada, name: 'Ada Lovelace' },
      { email: bob, name: 'Bob Builder' },
    ]);
    const [adaId] = recipientIds as [string, string];
    const adaToken = await signingTokenFor(owner.userId, id, ada);
    const view = await env.api.request('GET', '/signing', { token: adaToken });
    expect(view.body.envelope.allowReassign).toBe(true);

    const reason = 'Carol signs contracts for our company.';
    const handed = await env.api.request('POST', '/signing/reassign', { token: adaToken, json: { email: ` ${carol.toUpperCase()} `, name: 'Carol Jones', reason } });
    expect(handed.status).toBe(200);
    expect(handed.body.recipient).toMatchObject({ id: adaId, status: 'reassigned' });
    expect(handed.body.canAct).toBe(false);

    const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
    expect(envelope.signers.map((signer: any) => [signer.email, signer.status, signer.role, signer.routingOrder])).toEqual([
      [ada, 'reassigned', 'signer', 1],
      [carol, 'sent', 'signer', 1],
      [bob, 'sent', 'signer', 1],
    ]);
    const carolId = envelope.signers[1].id;
    expect(carolId).not.toBe(adaId);
    expect(envelope.fields.map((field: any) => [field.recipientId, field.type, field.label])).toEqual([
      [carolId, 'signature', null],
      [carolId, 'text', 'Job title'],
    ]);

    const events = await auditTrail(env.api, owner, id);
    const tail = events.slice(-2);
    expect(tail.map((event) => [event.type, event.actorId, event.details])).toEqual([
      ['recipient.reassigned', adaId, { recipientId: adaId, newRecipientId: carolId, email: carol, credential: 'signingLink', locale: 'en', reason }],
      ['recipient.invited', adaId, { recipientId: carolId, email: carol, resend: false }],
    ]);
    const webhook = (await outboxMessages(owner.userId, id)).find((message) => message.kind === 'event' && message.event.type === 'recipient.reassigned');
    expect(webhook).toMatchObject({ event: { data: { envelopeId: id, status: 'sent', recipient: { id: adaId, status: 'reassigned' }, reason } } });

    // Ada can do nothing more; her handing on is done.
    const again = await env.api.request('POST', '/signing/reassign', { token: adaToken, json: { email: address('dan'), name: 'Dan', reason: 'x' } });
    expectProblem(again, 409);
    expect(again.body.type).toBe('urn:problem:already-acted');
    expect((await env.api.request('POST', '/signing/complete', { token: adaToken, json: { consent: true, values: [] } })).status).toBe(409);

    // Carol signs from her invitation e-mail, Bob from his: the envelope completes.
    const link = await waitForSigningLink(carol, { subject: INVITATION });
    const carolView = await env.api.request('GET', '/signing', { token: link.token });
    expect(carolView.body.recipient).toMatchObject({ id: carolId, name: 'Carol Jones', role: 'signer' });
    const [signature, title] = carolView.body.fields as [{ id: string }, { id: string }];
    const carolSigned = await env.api.request('POST', '/signing/complete', {
      token: link.token,
      json: { consent: true, values: [{ fieldId: signature.id, value: { typed: 'Carol Jones' } }, { fieldId: title.id, value: 'Head of legal' }] },
    });
    expect(carolSigned.status).toBe(200);
    const last = await env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, bob), json: { consent: true, values: [] } });
    expect(last.body.envelope.status).toBe('completed');

    const sealed = Buffer.from(await (await fetch(last.body.signedUrl)).arrayBuffer());
    const file = await tempFile(sealed);
    const text = (await tool('pdftotext', [file, '-'])).stdout.replace(/\s+/g, ' ');
    // The certificate's first page, for people to look at.
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await tool('pdftoppm', ['-png', '-r', '60', '-f', '3', '-l', '3', '-singlefile', file, path.join(SCREENSHOT_DIR, 'reassign-certificate')]);
    expect(text).toContain('Ada Lovelace');
    expect(text).toContain('Carol Jones');
    expect(text).toContain('Head of legal');
    expect(text.replace(/\s/g, '')).toContain(`${ada}handedtheenvelopeontoCarolJones<${carol}>,givingthereason"Carolsignscontractsforourcompany."`.replace(/\s/g, ''));
    expect(text).toMatch(/Status reassigned/);
  });

  test('403 when the envelope does not allow it or the role cannot, and a sent envelope\'s setting is locked; 409 for an address already a recipient; 400 for a bad body; nothing changes', async () => {
    const ada = address('ada');
    const closed = await sentEnvelope(env.api, owner, { signers: [{ email: ada, name: 'Ada' }] });
    const notAllowed = await env.api.request('POST', '/signing/reassign', { token: await signingTokenFor(owner.userId, closed.id, ada), json: { email: address('c'), name: 'C', reason: 'r' } });
    expectProblem(notAllowed, 403);
    expect(notAllowed.body.type).toBe('urn:problem:reassign-not-allowed');
    const locked = await env.api.request('PATCH', `/envelopes/${closed.id}`, { token: owner.token, json: { allowReassign: true } });
    expectProblem(locked, 409);
    expect(locked.body.type).toBe('urn:problem:envelope-locked');

    const first = address('first');
    const second = address('second');
    const viewer = address('viewer');
    const { id } = await sentEnvelopeAllowing(
      [
        { email: first, name: 'First', routingOrder: 1 },
        { email: viewer, name: 'Viewer', role: 'viewer', routingOrder: 1 },
        { email: second, name: 'Second', routingOrder: 2 },
      ],
      'sequential',
    );
    const before = (await auditTrail(env.api, owner, id)).length;
    const firstToken = await signingTokenFor(owner.userId, id, first);
    const typeOf = async (token: string, json: unknown) => {
      const answer = await env.api.request('POST', '/signing/reassign', { token, json });
      expectProblem(answer, answer.status);
      return [answer.status, answer.body.type];
    };
    const body = { email: address('new'), name: 'New Person', reason: 'On leave' };
    expect(await typeOf(await signingTokenFor(owner.userId, id, viewer), body)).toEqual([403, 'urn:problem:reassign-not-allowed']);
    expect(await typeOf(firstToken, { ...body, email: second.toUpperCase() })).toEqual([409, 'urn:problem:recipient-exists']);
    expect(await typeOf(firstToken, { email: body.email, name: 'New Person' })).toEqual([400, 'urn:problem:validation-failed']);
    expect(await typeOf(firstToken, { ...body, reason: '' })).toEqual([400, 'urn:problem:validation-failed']);
    expect(await typeOf(firstToken, { ...body, email: 'not an address' })).toEqual([400, 'urn:problem:validation-failed']);
    expect((await env.api.request('POST', '/signing/reassign', { token: 'x'.repeat(43), json: body })).status).toBe(401);
    expect((await auditTrail(env.api, owner, id)).length).toBe(before);

    // With the body right, First hands on.
    expect((await env.api.request('POST', '/signing/reassign', { token: firstToken, json: body })).status).toBe(200);
  });
});

describe('reassignment and signer authentication', () => {
  const ACCESS_CODE = 'owner-gives-this-42';
  const reassign = (token: string, email: string) => env.api.request('POST', '/signing/reassign', { token, json: { email, name: 'Carol Jones', reason: 'Carol signs for us.' } });
  const pdfText = async (url: string) => (await tool('pdftotext', [await tempFile(Buffer.from(await (await fetch(url)).arrayBuffer())), '-'])).stdout.replace(/\s+/g, ' ');

  test('a link locked by wrong codes cannot reassign (423), nor one whose code was not entered (403); nothing changes', async () => {
    const ada = address('ada');
    const { id } = await sentEnvelopeAllowing([{ email: ada, name: 'Ada', authentication: { method: 'accessCode', code: ACCESS_CODE } }, { email: address('bob'), name: 'Bob' }]);
    const token = await signingTokenFor(owner.userId, id, ada);
    await emailsDispatched(owner.userId, id);
    const first = await storedEnvelope(owner.userId, id);
    const required = await reassign(token, address('mallory'));
    expectProblem(required, 403);
    expect(required.body.type).toBe('urn:problem:authentication-required');
    expect(await storedEnvelope(owner.userId, id)).toEqual(first);

    for (let attempt = 1; attempt <= 5; attempt++) {
      expect((await env.api.request('POST', '/signing/authenticate', { token, json: { code: `wrong-${attempt}` } })).status).toBe(attempt < 5 ? 403 : 423);
    }
    const lockedState = await storedEnvelope(owner.userId, id);
    const trail = await auditTrail(env.api, owner, id);
    const mallory = address('mallory');
    const locked = await reassign(token, mallory);
    expectProblem(locked, 423);
    expect(locked.body.type).toBe('urn:problem:authentication-locked');
    expect(locked.text).not.toContain('documentUrl');
    expect(await storedEnvelope(owner.userId, id)).toEqual(lockedState);
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
    expect(await emailsTo(mallory)).toEqual([]);
  });

  test('an access code stays the owner\'s: the new recipient must enter the same code before it sees or signs anything; the certificate names the code for each', async () => {
    const ada = address('ada');
    const bob = address('bob');
    const carol = address('carol');
    const { id, recipientIds } = await sentEnvelopeAllowing([{ email: ada, name: 'Ada Lovelace', authentication: { method: 'accessCode', code: ACCESS_CODE } }, { email: bob, name: 'Bob Builder' }]);
    const adaToken = await signingTokenFor(owner.userId, id, ada);
    expect((await env.api.request('POST', '/signing/authenticate', { token: adaToken, json: { code: ACCESS_CODE } })).status).toBe(200);
    expect((await reassign(adaToken, carol)).status).toBe(200);

    const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
    expect(envelope.signers.map((signer: any) => [signer.email, signer.status, signer.authentication])).toEqual([
      [ada, 'reassigned', { method: 'accessCode' }],
      [carol, 'sent', { method: 'accessCode' }],
      [bob, 'sent', { method: 'none' }],
    ]);
    const carolId = envelope.signers[1].id;
    const stored = (await storedEnvelope(owner.userId, id)).signers[1]!;
    expect(stored.authentication).toMatchObject({ method: 'accessCode', attemptsLeft: 5, verifiedAt: null, codeHash: expect.stringMatching(/^\$2[aby]\$/) });

    const link = await waitForSigningLink(carol, { subject: INVITATION });
    const restricted = await env.api.request('GET', '/signing', { token: link.token });
    expect(restricted.body).toEqual({ authentication: { method: 'accessCode', verified: false, attemptsLeft: 5 }, envelope: { id, documentName: expect.any(String), ownerEmail: owner.email } });
    const refused = await env.api.request('POST', '/signing/complete', { token: link.token, json: { consent: true, values: [] } });
    expectProblem(refused, 403);
    expect(refused.body.type).toBe('urn:problem:authentication-required');
    expect((await env.api.request('POST', '/signing/authenticate', { token: link.token, json: { code: 'not-the-code' } })).status).toBe(403);
    const entered = await env.api.request('POST', '/signing/authenticate', { token: link.token, json: { code: ACCESS_CODE } });
    expect(entered.status).toBe(200);
    const [signature, title] = entered.body.fields as [{ id: string }, { id: string }];
    const signed = await env.api.request('POST', '/signing/complete', {
      token: link.token,
      json: { consent: true, values: [{ fieldId: signature.id, value: { typed: 'Carol Jones' } }, { fieldId: title.id, value: 'Counsel' }] },
    });
    expect(signed.status).toBe(200);
    const last = await env.api.request('POST', '/signing/complete', { token: await signingTokenFor(owner.userId, id, bob), json: { consent: true, values: [] } });
    expect(last.body.envelope.status).toBe('completed');

    const authenticated = (await auditTrail(env.api, owner, id)).filter((event) => event.type === 'recipient.authenticated').map((event) => event.details);
    expect(authenticated).toEqual([
      { recipientId: recipientIds[0], method: 'accessCode', credential: 'signingLink' },
      { recipientId: carolId, method: 'accessCode', credential: 'signingLink' },
    ]);
    const text = (await pdfText(last.body.signedUrl)).replace(/\s+/g, '');
    expect(text).toContain(`Signing link e-mailed to ${ada}; Access code`.replace(/\s+/g, ''));
    expect(text).toContain(`Signing link e-mailed to ${carol}; Access code`.replace(/\s+/g, ''));
    expect(text).not.toContain(`Signing link e-mailed to ${bob}; Access code`.replace(/\s+/g, ''));
  });

  test('e-mailed one-time codes go to the new recipient\'s own address', async () => {
    const ada = address('ada');
    const carol = address('carol');
    const { id } = await sentEnvelopeAllowing([{ email: ada, name: 'Ada', authentication: { method: 'emailOtp' } }]);
    const adaToken = await signingTokenFor(owner.userId, id, ada);
    expect((await env.api.request('POST', '/signing/otp', { token: adaToken })).status).toBe(202);
    const [adaMail] = await waitForEmails(ada, { subject: /^Your code for / });
    const adaCode = /\b(\d{6})\b/.exec(adaMail!.text)![1]!;
    expect((await env.api.request('POST', '/signing/authenticate', { token: adaToken, json: { code: adaCode } })).status).toBe(200);
    expect((await reassign(adaToken, carol)).status).toBe(200);

    const link = await waitForSigningLink(carol, { subject: INVITATION });
    expect((await env.api.request('GET', '/signing', { token: link.token })).body.authentication).toEqual({ method: 'emailOtp', verified: false, attemptsLeft: 5 });
    // Ada's code, used once already, does not open Carol's link.
    expect((await env.api.request('POST', '/signing/authenticate', { token: link.token, json: { code: adaCode } })).status).toBe(403);
    expect((await env.api.request('POST', '/signing/otp', { token: link.token })).status).toBe(202);
    const [carolMail] = await waitForEmails(carol, { subject: /^Your code for / });
    const carolCode = /\b(\d{6})\b/.exec(carolMail!.text)![1]!;
    const entered = await env.api.request('POST', '/signing/authenticate', { token: link.token, json: { code: carolCode } });
    expect(entered.status).toBe(200);
    expect(entered.body.authentication).toEqual({ method: 'emailOtp', verified: true, attemptsLeft: 5 });
    await emailsDispatched(owner.userId, id);
    expect(await emailsTo(ada, { subject: /^Your code for / })).toHaveLength(1);
  });
});

describe('reassignment and the recipient limit', () => {
  test('a chain of reassignments never takes an envelope past 100 recipients: 409 recipient-limit, nothing changes', async () => {
    const first = address('first');
    const second = address('second');
    // 99 recipients: one invited by e-mail, 98 embedded (no e-mail).
    const embedded = Array.from({ length: 98 }, (_, index) => ({ email: address(`embedded-${index}`), name: `Embedded ${index}`, delivery: 'embedded' }));
    const { id } = await sentEnvelopeAllowing([{ email: first, name: 'First' }, ...embedded]);
    expect((await env.api.request('POST', '/signing/reassign', { token: await signingTokenFor(owner.userId, id, first), json: { email: second, name: 'Second', reason: 'On leave' } })).status).toBe(200);
    expect((await storedEnvelope(owner.userId, id)).signers).toHaveLength(100);

    const secondToken = await signingTokenFor(owner.userId, id, second);
    await emailsDispatched(owner.userId, id);
    const before = await storedEnvelope(owner.userId, id);
    const trail = await auditTrail(env.api, owner, id);
    const third = address('third');
    const refused = await env.api.request('POST', '/signing/reassign', { token: secondToken, json: { email: third, name: 'Third', reason: 'Also on leave' } });
    expectProblem(refused, 409);
    expect(refused.body.type).toBe('urn:problem:recipient-limit');
    expect(refused.body.detail).toContain('100');
    expect(await storedEnvelope(owner.userId, id)).toEqual(before);
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
    expect(await emailsTo(third)).toEqual([]);
    // Second can still sign its part.
    expect((await env.api.request('GET', '/signing', { token: secondToken })).body.canAct).toBe(true);
  });
});

/** An envelope with `allowReassign: true` (a setting, set on the draft and sent with it) and a signature and a text field for the first signer. */
async function sentEnvelopeAllowing(signers: Record<string, unknown>[], signingOrder: 'parallel' | 'sequential' = 'parallel'): Promise<{ id: string; recipientIds: string[] }> {
  const { id, envelope, recipientIds } = await sentEnvelope(env.api, owner, {
    signers,
    signingOrder,
    fields: [
      { recipient: 0, type: 'signature', page: 1, x: 0.1, y: 0.7, width: 0.3, height: 0.06 },
      { recipient: 0, type: 'text', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.04, label: 'Job title' },
    ],
    settings: { allowReassign: true },
  });
  expect(envelope.allowReassign).toBe(true);
  return { id, recipientIds };
}
