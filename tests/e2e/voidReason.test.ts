/**
 * The reason for voiding ([docs/api.md#update-an-envelope](../../docs/api.md#update-an-envelope)):
 * `voidedReason` with `status: "voided"` is shown on the envelope, carried by the `envelope.voided`
 * audit event and quoted in the voided e-mail (the webhook: webhookEvents.test.ts); it is optional; a
 * reason that breaks the text rules or comes without voiding is 400 naming `voidedReason`, and nothing
 * changes. Over real HTTP, real Azurite and the real mail catcher.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { waitForEmail, waitForSigningLink } from '../support/mail.js';
import { patience } from '../support/patience.js';
import { createEnvelopeWithDocument, expectProblem, startTestService, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, emailsDispatched, sentEnvelope } from '../support/signing.js';

let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser({ name: 'Olga Owner' });
});
afterAll(async () => {
  await env?.close();
});

const flat = (text: string): string => text.replace(/\s+/g, ' ');
const REASON = 'The price changed; a new contract follows.';

async function envelope(id: string): Promise<{ status: number; body: any; etag: string | null }> {
  const response = await env.api.request('GET', `/envelopes/${id}`, { token: owner.token });
  return { status: response.status, body: response.body, etag: response.headers.get('etag') };
}

async function voidWith(id: string, json: Record<string, unknown>) {
  return await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json });
}

describe('voiding with a reason', () => {
  test('the envelope shows it (trimmed), the audit event carries it, and the voided e-mail quotes it', async () => {
    const signer = { email: `vera-${randomUUID()}@example.com`, name: 'Vera Signer' };
    const { id } = await sentEnvelope(env.api, owner, { signers: [signer] });
    await waitForSigningLink(signer.email, { subject: /^Please review and sign: / });

    const voided = await voidWith(id, { status: 'voided', voidedReason: `  ${REASON}  ` });
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ status: 'voided', voidedReason: REASON });
    expect((await envelope(id)).body).toMatchObject({ status: 'voided', voidedReason: REASON });

    const events = await auditTrail(env.api, owner, id);
    expect(events.at(-1)).toMatchObject({ type: 'envelope.voided', actorId: owner.userId, details: { reason: REASON } });

    const email = await waitForEmail(signer.email, { subject: /^Voided: / });
    expect(flat(email.text)).toContain(`has voided "contract.pdf".`);
    expect(flat(email.text)).toContain(`The reason given for voiding it: > ${REASON}`);
    expect(email.html).toContain(REASON);
  }, patience(120_000));

  test('a reason of 500 characters (code points, astral ones included) is accepted, from draft too', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, null);
    const reason = `${'😀'.repeat(250)}${'é'.repeat(250)}`;
    const voided = await voidWith(id, { status: 'voided', voidedReason: reason });
    expect(voided.status).toBe(200);
    expect(voided.body.voidedReason).toBe(reason);
  });

  test('without a reason: voidedReason is null, the event has no details, the e-mail has no reason', async () => {
    const signer = { email: `walt-${randomUUID()}@example.com`, name: 'Walt Signer' };
    const { id, envelope: sent } = await sentEnvelope(env.api, owner, { signers: [signer] });
    expect(sent.voidedReason).toBeNull();
    await waitForSigningLink(signer.email, { subject: /^Please review and sign: / });
    const voided = await voidWith(id, { status: 'voided' });
    expect(voided.status).toBe(200);
    expect(voided.body.voidedReason).toBeNull();
    expect((await auditTrail(env.api, owner, id)).at(-1)).toMatchObject({ type: 'envelope.voided', details: {} });
    const email = await waitForEmail(signer.email, { subject: /^Voided: / });
    expect(email.text).not.toContain('The reason given for voiding it');
  }, patience(120_000));
});

describe('a refused reason changes nothing', () => {
  const refused: [string, unknown][] = [
    ['empty', ''],
    ['white space only', '   '],
    ['501 characters', 'x'.repeat(501)],
    ['501 code points', '😀'.repeat(501)],
    ['a control character', 'price\u0007changed'],
    ['a line break', 'first line\nsecond line'],
    ['a tab', 'price\tchanged'],
    ['a line separator', 'price\u2028changed'],
    ['an unpaired surrogate', 'price \ud800 changed'],
    ['a number', 42],
    ['null', null],
  ];

  let id: string;
  let signerEmail: string;
  beforeAll(async () => {
    signerEmail = `xena-${randomUUID()}@example.com`;
    ({ id } = await sentEnvelope(env.api, owner, { signers: [{ email: signerEmail, name: 'Xena Signer' }] }));
    await emailsDispatched(owner.userId, id);
  });

  test.each(refused)('%s → 400 naming voidedReason', async (_name, voidedReason) => {
    const before = await envelope(id);
    const trail = await auditTrail(env.api, owner, id);
    const answer = await voidWith(id, { status: 'voided', voidedReason });
    expectProblem(answer, 400);
    expect(answer.body).toMatchObject({ type: 'urn:problem:validation-failed' });
    expect(answer.body.errors).toContainEqual({ path: 'voidedReason', message: expect.any(String) });
    const after = await envelope(id);
    const state = (read: typeof after) => ({ etag: read.etag, status: read.body.status, updatedAt: read.body.updatedAt, voidedReason: read.body.voidedReason });
    expect(state(after)).toEqual({ ...state(before), status: 'sent', voidedReason: null });
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
  });

  test.each([
    ['without a status', {}],
    ['with status "sent"', { status: 'sent' }],
  ])('a reason %s → 400 naming voidedReason, nothing changed', async (_name, extra) => {
    const before = await envelope(id);
    const answer = await voidWith(id, { ...extra, voidedReason: REASON });
    expectProblem(answer, 400);
    expect(answer.body.errors).toContainEqual({ path: 'voidedReason', message: 'is allowed only with status "voided"' });
    const after = await envelope(id);
    expect({ status: after.body.status, etag: after.etag, voidedReason: after.body.voidedReason }).toEqual({ status: 'sent', etag: before.etag, voidedReason: null });
  });

  test('after the refusals the envelope is voided with a good reason, which its e-mail quotes', async () => {
    expect((await voidWith(id, { status: 'voided', voidedReason: REASON })).body).toMatchObject({ status: 'voided', voidedReason: REASON });
    const email = await waitForEmail(signerEmail, { subject: /^Voided: / });
    expect(flat(email.text)).toContain(REASON);
  }, patience(120_000));
});
