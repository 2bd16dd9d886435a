/**
 * Text messages (docs/api.md#sms, docs/api.md#phone-numbers, docs/api.md#delivery): recipients'
 * `phone` is parsed and kept in E.164, refused (400 naming the field) when it is no mobile number;
 * `delivery` is a list; a `["sms"]` signer's invitation is one text carrying a signing link that works;
 * a text the service answers 429 is sent once, every attempt with the same repeatability values, and so
 * is one whose first delivery failed for good at the SDK and was retried by the queue.
 *
 * Real HTTP, the real `@azure/communication-sms` SDK against the local host's fake of Communication
 * Services (an SMS catcher of this file's own, checking the SDK's HMAC signature), and an Azurite of
 * this file's own (its `outbox-sms` queue is consumed by this file's service only).
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { operationIdOf } from '../../src/lib/notifications/transport.js';
import { waitUntil } from '../support/patience.js';
import { corpusPdf, createEnvelopeWithDocument, expectProblem, type TestService, type TestUser } from '../support/service.js';
import { sentEnvelope, storedEnvelope } from '../support/signing.js';
import { attemptsTo, scriptAnswers, signingLinkInText, smsServiceForFile, textsTo, waitForTexts } from '../support/sms.js';

const file = smsServiceForFile('Maximiliane Hohenberg-Schmidt');
const sms = file.sms;
let env: TestService;
let owner: TestUser;

beforeAll(() => {
  ({ env, owner } = file.started());
});

/** A mobile number of the German numbering plan no other test of this file uses. */
let nextNumber = 0;
function mobile(): { written: string; e164: string } {
  const digits = String(20_000_000 + Math.floor(Math.random() * 70_000_000) + nextNumber++).slice(0, 8);
  return { written: `+49 151 ${digits}`, e164: `+49151${digits}` };
}

describe('phone numbers', () => {
  test.each([
    ['text that is not a number', 'call me maybe', /not a phone number/],
    ['a number without + and a country code', '0151 23456789', /country code/],
    ['an unknown country code', '+999 1234567', /country code/],
    ['a number its country does not allow', '+49 1512 345678901234', /not a valid number|too long/],
    ['a landline (FIXED_LINE)', '+49 30 1234567', /landline/],
    ['a premium-rate number', '+1 900 555 0123', /premium-rate/],
  ])('refuses %s with 400 naming signers.0.phone', async (_what, phone, message) => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const refused = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: `p-${randomUUID()}@example.com`, name: 'P', phone }] } });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'signers.0.phone', message: expect.stringMatching(message) })]);
  });

  test('refuses delivery sms without a phone, and a delivery list that is not one of the four, naming the field', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const noPhone = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: 'np@example.com', name: 'N', delivery: ['sms'] }] } });
    expectProblem(noPhone, 400);
    expect(noPhone.body.errors).toEqual([expect.objectContaining({ path: 'signers.0.phone' })]);
    for (const delivery of [[], ['embedded', 'sms'], ['email', 'email'], ['fax']]) {
      const wrong = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: 'w@example.com', name: 'W', phone: mobile().written, delivery }] } });
      expectProblem(wrong, 400);
      expect(wrong.body.errors).toEqual([expect.objectContaining({ path: expect.stringMatching(/^signers\.0\.delivery/) })]);
    }
  });

  test('keeps a mobile number (and one the plan cannot tell from a landline) in E.164, and shows delivery as a list', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
    const german = mobile();
    const saved = await env.api.request('PUT', `/envelopes/${id}`, {
      token: owner.token,
      json: {
        signers: [
          { email: 'a@example.com', name: 'A', phone: german.written, delivery: ['sms', 'email'] },
          // FIXED_LINE_OR_MOBILE: the North American plan does not tell them apart.
          { email: 'b@example.com', name: 'B', phone: '+1 (212) 555-0123', delivery: ['sms'] },
          { email: 'c@example.com', name: 'C', delivery: ['embedded'] },
          { email: 'd@example.com', name: 'D' },
        ],
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.signers.map((signer: any) => [signer.phone, signer.delivery, signer.lastSms])).toEqual([
      [german.e164, ['email', 'sms'], null],
      ['+12125550123', ['sms'], null],
      [undefined, ['embedded'], undefined],
      [undefined, ['email'], undefined],
    ]);
  });

  test('template recipients take phone and delivery under the same rules (400 naming recipients.0.phone)', async () => {
    // The body is read before the template is looked up: any id shows the refusal.
    const refused = await env.api.request('POST', `/templates/${randomUUID()}/envelopes`, {
      token: owner.token,
      json: { recipients: [{ roleName: 'Signer', email: 'r@example.com', name: 'R', phone: '+49 30 1234567', delivery: ['sms'] }] },
    });
    expectProblem(refused, 400);
    expect(refused.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'recipients.0.phone' })]));
  });
});

describe('invitations by text message', () => {
  test('a delivery ["sms"] signer gets one text, in its language, whose signing link opens its envelope, and no invitation e-mail', async () => {
    const phone = mobile();
    const email = `sms-${randomUUID()}@example.com`;
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Ada Lovelace', phone: phone.written, delivery: ['sms'], locale: 'de' }] });
    const [text] = await waitForTexts(sms.url(), phone.e164);
    expect(text!.from).toBe('Signing');
    expect(text!.message).toMatch(/^Maximiliane Hohenberg-Schmidt hat Ihnen "contract\.pdf" gesendet: \S+\/api\/sign#[A-Za-z0-9_-]{43}$/);
    expect(text!.enableDeliveryReport).toBe(true);
    const opened = await env.api.request('GET', '/signing', { token: signingLinkInText(text!.message).token });
    expect(opened.status).toBe(200);
    expect(opened.body.envelope.id).toBe(id);
    expect(opened.body.recipient).toMatchObject({ id: recipientIds[0], delivery: ['sms'] });
    const sent = await waitUntil(async () => {
      const signer = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.signers[0];
      return signer.lastSms?.status === 'sent' ? signer : undefined;
    }, 30_000, 'lastSms sent');
    expect(sent.lastSms).toEqual({ status: 'sent', at: expect.any(String) });
    // No invitation e-mail was queued for it: its lastEmail never changed.
    expect(sent.lastEmail).toBeNull();
    expect(await textsTo(sms.url(), phone.e164)).toHaveLength(1);
  });

  test('answered 429 once, the text is sent once: both attempts carry the same Repeatability-Request-ID and first-sent time', async () => {
    const phone = mobile();
    await scriptAnswers(sms.url(), [{ status: 429, retryAfterSeconds: 1 }]);
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email: `r-${randomUUID()}@example.com`, name: 'Retry', phone: phone.written, delivery: ['email', 'sms'] }] });
    const [text] = await waitForTexts(sms.url(), phone.e164);
    const attempts = await attemptsTo(sms.url(), phone.e164);
    expect(attempts.map((attempt) => attempt.status)).toEqual([429, 202]);
    const [first, second] = attempts;
    expect(second!.repeatabilityRequestIds).toEqual(first!.repeatabilityRequestIds);
    expect(second!.repeatabilityFirstSent).toEqual(first!.repeatabilityFirstSent);
    expect(first!.repeatabilityRequestIdHeader).toBe(first!.repeatabilityRequestIds[0]);
    expect(text!.repeatabilityRequestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(text!.repeatabilityRequestId).toBe(first!.repeatabilityRequestIds[0]);
    const signer = await waitUntil(async () => {
      const stored = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.signers[0];
      return stored.lastSms?.status === 'sent' ? stored : undefined;
    }, 30_000, 'lastSms sent');
    expect(signer.lastSms).toEqual({ status: 'sent', at: expect.any(String) });
    expect(await textsTo(sms.url(), phone.e164)).toHaveLength(1);
  });

  test('a text whose first delivery failed at every try is retried by the queue with the same repeatability values, and sent once', async () => {
    const phone = mobile();
    // The SDK tries three times in one delivery (its own back-off), all answered 500; the queue's second delivery is accepted.
    await scriptAnswers(sms.url(), [{ status: 500 }, { status: 500 }, { status: 500 }]);
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email: `q-${randomUUID()}@example.com`, name: 'Queue', phone: phone.written, delivery: ['sms'] }] });
    await waitForTexts(sms.url(), phone.e164, { timeoutMs: 60_000 });
    const attempts = await attemptsTo(sms.url(), phone.e164);
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, 500, 202]);
    expect(new Set(attempts.map((attempt) => attempt.repeatabilityRequestIds[0])).size).toBe(1);
    expect(new Set(attempts.map((attempt) => attempt.repeatabilityFirstSent[0])).size).toBe(1);
    // The id is the outbox message's: derived from `<batchId>.<index>` of the batch the send wrote.
    const stored = await storedEnvelope(owner.userId, id);
    const candidates = [0, 1, 2, 3].map((index) => operationIdOf(`${stored.signers[0]!.smsBatchId}.${index}`));
    expect(candidates).toContain(attempts[0]!.repeatabilityRequestIds[0]);
    expect(await textsTo(sms.url(), phone.e164)).toHaveLength(1);
  });
});
