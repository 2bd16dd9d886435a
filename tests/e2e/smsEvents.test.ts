/**
 * Communication Services' events through Event Grid (docs/api.md#events-from-communication-services):
 * `POST /api/events/acs` answers the validation handshake, refuses a forged or missing secret (401,
 * nothing changed), opts a number out on STOP (any case, trimmed, `+` missing) and back in on START
 * (docs/api.md#opting-out-of-text-messages): a number that opted out is never texted again, its
 * recipient gets the link or the code by e-mail, `lastSms` says `failed` with reason `opted-out`, and
 * `recipient.sms_opted_out` is in the trail of every envelope sent, or later sent, to it; delivery
 * reports set `lastSms` (docs/api.md#lastsms); Communication Services stalling is retried and the
 * text sent once, and failing for good leaves `lastSms` `failed` with the reason.
 *
 * Real HTTP, an Azurite of this file's own, the real `@azure/communication-sms` SDK against this file's
 * own SMS catcher, which also plays Event Grid: it posts the events to the service with `aeg-sas-key`.
 */
import { beforeAll, describe, expect, test } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { getServices } from '../../src/lib/services.js';
import { emailsTo, waitForEmails } from '../support/mail.js';
import { patience, waitUntil } from '../support/patience.js';
import { expectType, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, sentEnvelope, signingTokenFor } from '../support/signing.js';
import { attemptsTo, postEvent, scriptAnswers, sendEventsTo, smsServiceForFile, textsTo, uniqueMobile, waitForTexts } from '../support/sms.js';

const file = smsServiceForFile('Eve Events');
const sms = file.sms;
let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  ({ env, owner } = file.started());
  await sendEventsTo(sms.url(), env.service.apiUrl, sms.eventSecret);
});

const mobile = () => uniqueMobile('160');
const uniqueEmail = (name: string) => `${name}-${randomUUID().slice(0, 8)}@example.com`;

/** A reply from `from` as Communication Services reports it: an SMSReceived event. */
function replyEvent(from: string, message: string): unknown[] {
  const now = new Date().toISOString();
  return [{ id: randomUUID(), topic: '/acs', subject: 'phonenumber/18005550100', eventType: 'Microsoft.Communication.SMSReceived', eventTime: now, dataVersion: '1.0', data: { messageId: `Incoming_${randomUUID()}`, from, to: '+18005550100', message, receivedTimestamp: now } }];
}

async function lastSmsOf(envelopeId: string, predicate: (lastSms: any) => boolean, what: string): Promise<any> {
  return await waitUntil(async () => {
    const signer = (await env.api.request('GET', `/envelopes/${envelopeId}`, { token: owner.token })).body.signers[0];
    return signer.lastSms != null && predicate(signer.lastSms) ? signer.lastSms : undefined;
  }, patience(60_000), what);
}

describe('the endpoint', () => {
  test('answers Event Grid\'s validation handshake with the validation code', async () => {
    const answer = await postEvent(sms.url(), 'validation');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ validationResponse: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  test('refuses a forged, missing or wrong secret with 401 problem+json, and changes nothing; takes ?code= as well as aeg-sas-key', async () => {
    const phone = mobile();
    const url = `${env.service.apiUrl}/events/acs`;
    const post = async (target: string, headers: Record<string, string> = {}) => {
      const response = await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(replyEvent(phone.e164, 'STOP')) });
      return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as { type?: string } };
    };
    for (const attempt of [await post(url), await post(url, { 'aeg-sas-key': 'forged' }), await post(`${url}?code=forged`), await post(url, { 'aeg-sas-key': `${sms.eventSecret}x` })]) {
      expect(attempt.status).toBe(401);
      expect(attempt.type).toMatch(/^application\/problem\+json/);
      expect(attempt.body.type).toBe('urn:problem:invalid-event-secret');
    }
    expect(await getServices().smsNumbers.optOut(phone.e164)).toBeNull();
    // The validation handshake needs the secret too.
    const handshake = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([{ id: '1', eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent', data: { validationCode: 'abc' } }]) });
    expect(handshake.status).toBe(401);

    const accepted = await post(`${url}?code=${sms.eventSecret}`);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ received: 1 });
    expect(await getServices().smsNumbers.optOut(phone.e164)).toMatchObject({ optedOut: true, keyword: 'STOP' });
  });

  test('a body that is no event is 400', async () => {
    const response = await env.api.request('POST', `/events/acs?code=${sms.eventSecret}`, { json: [{ data: {} }] });
    expectType(response, 400, 'validation-failed');
  });
});

describe('opting out (docs/api.md#opting-out-of-text-messages)', () => {
  test('STOP (any case, trimmed, without +) stops every text to the number: links go by e-mail, lastSms failed opted-out, the trail of every envelope says so once; START undoes it', async () => {
    const phone = mobile();
    const email = uniqueEmail('stop');
    const first = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Stef Stop', phone: phone.written, delivery: ['sms'] }] });
    await waitForTexts(sms.url(), phone.e164, { timeoutMs: patience(60_000) });
    await lastSmsOf(first.id, (lastSms) => lastSms.status === 'sent', 'the first text sent');

    const stop = await postEvent(sms.url(), 'replies', { from: phone.e164.slice(1), message: '  sToP \n' });
    expect(stop).toEqual({ status: 200, body: { received: 1 } });
    const optOut = await getServices().smsNumbers.optOut(phone.e164);
    expect(optOut).toMatchObject({ optedOut: true, keyword: 'STOP' });
    // The envelope still waiting on that number records it.
    const firstTrail = await auditTrail(env.api, owner, first.id);
    expect(firstTrail.filter((event) => event.type === 'recipient.sms_opted_out').map((event) => [event.actorId, event.details])).toEqual([
      ['system', { recipientId: first.recipientIds[0], phone: phone.masked, since: optOut!.since }],
    ]);

    // A new envelope to the number: no text, the invitation by e-mail instead.
    const second = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Stef Stop', phone: phone.written, delivery: ['sms'] }] });
    const lastSms = await lastSmsOf(second.id, (candidate) => candidate.status === 'failed', 'lastSms failed');
    expect(lastSms).toEqual({ status: 'failed', at: expect.any(String), reason: 'opted-out' });
    const [invitation] = await waitForEmails(email, { count: 1 });
    const token = await signingTokenFor(owner.userId, second.id, email);
    expect(invitation!.text).toContain(`/api/sign#${token}`);
    expect(await textsTo(sms.url(), phone.e164)).toHaveLength(1);
    const secondTrail = await auditTrail(env.api, owner, second.id);
    expect(secondTrail.filter((event) => event.type === 'recipient.sms_opted_out')).toHaveLength(1);

    // A resend of the first envelope: again by e-mail, and the trail records the opt-out only once.
    expect((await env.api.request('POST', `/envelopes/${first.id}/recipients/${first.recipientIds[0]}/resend`, { token: owner.token })).status).toBe(202);
    await waitForEmails(email, { count: 2 });
    await lastSmsOf(first.id, (candidate) => candidate.reason === 'opted-out', 'the resend not texted');
    expect((await auditTrail(env.api, owner, first.id)).filter((event) => event.type === 'recipient.sms_opted_out')).toHaveLength(1);
    expect(await textsTo(sms.url(), phone.e164)).toHaveLength(1);
    expect((await attemptsTo(sms.url(), phone.e164)).map((attempt) => attempt.status)).toEqual([202]);

    // START: texts again.
    expect(await postEvent(sms.url(), 'replies', { from: phone.e164, message: 'Start' })).toEqual({ status: 200, body: { received: 1 } });
    expect(await getServices().smsNumbers.optOut(phone.e164)).toMatchObject({ optedOut: false, keyword: 'START' });
    await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Stef Stop', phone: phone.written, delivery: ['sms'] }] });
    await waitForTexts(sms.url(), phone.e164, { count: 2, timeoutMs: patience(60_000) });
  }, patience(180_000));

  test('a recipient with delivery ["email", "sms"] whose number opted out gets its e-mail only; other words than the list change nothing', async () => {
    const phone = mobile();
    const email = uniqueEmail('both');
    expect(await postEvent(sms.url(), 'replies', { from: phone.e164, message: 'stop please' })).toEqual({ status: 200, body: { received: 1 } });
    expect(await getServices().smsNumbers.optOut(phone.e164)).toBeNull();
    expect(await postEvent(sms.url(), 'replies', { from: phone.e164, message: 'opt-out' })).toEqual({ status: 200, body: { received: 1 } });
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Bo Both', phone: phone.written, delivery: ['email', 'sms'] }] });
    await lastSmsOf(id, (lastSms) => lastSms.reason === 'opted-out', 'the text not sent');
    await waitForEmails(email, { count: 1 });
    expect(await emailsTo(email)).toHaveLength(1);
    expect(await textsTo(sms.url(), phone.e164)).toEqual([]);
  }, patience(120_000));

  test('a one-time code to a number that opted out goes by e-mail, and the code\'s event says so', async () => {
    const phone = mobile();
    const email = uniqueEmail('code');
    expect(await postEvent(sms.url(), 'replies', { from: phone.e164, message: 'UNSUBSCRIBE' })).toEqual({ status: 200, body: { received: 1 } });
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Cody Code', phone: phone.written, authentication: { method: 'sms' } }] });
    const token = await signingTokenFor(owner.userId, id, email);
    expect((await env.api.request('POST', '/signing/otp', { token })).status).toBe(202);
    const [codeEmail] = await waitForEmails(email, { subject: /^Your code for /, count: 1 });
    const code = /\b(\d{6})\b/.exec(codeEmail!.text)![1]!;
    expect((await env.api.request('POST', '/signing/authenticate', { token, json: { code } })).status).toBe(200);
    const trail = await auditTrail(env.api, owner, id);
    expect(trail.filter((event) => event.type === 'recipient.authenticated').map((event) => event.details)).toEqual([{ recipientId: recipientIds[0], method: 'sms', channel: 'email', credential: 'signingLink' }]);
    expect(trail.filter((event) => event.type === 'recipient.sms_opted_out')).toHaveLength(1);
    expect(await textsTo(sms.url(), phone.e164)).toEqual([]);
  }, patience(120_000));
});

describe('delivery reports (docs/api.md#lastsms)', () => {
  test('Delivered sets lastSms delivered; Failed sets it failed with the carrier\'s reason; a report of an unknown text changes nothing', async () => {
    const phone = mobile();
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email: uniqueEmail('dr'), name: 'Del Report', phone: phone.written, delivery: ['sms'] }] });
    const [text] = await waitForTexts(sms.url(), phone.e164, { timeoutMs: patience(60_000) });
    await lastSmsOf(id, (lastSms) => lastSms.status === 'sent', 'lastSms sent');
    expect(await postEvent(sms.url(), 'delivery-reports', { messageId: text!.messageId, deliveryStatus: 'Delivered' })).toEqual({ status: 200, body: { received: 1 } });
    expect(await lastSmsOf(id, (lastSms) => lastSms.status === 'delivered', 'lastSms delivered')).toEqual({ status: 'delivered', at: expect.any(String) });

    const other = mobile();
    const failing = await sentEnvelope(env.api, owner, { signers: [{ email: uniqueEmail('df'), name: 'Del Failed', phone: other.written, delivery: ['email', 'sms'] }] });
    const [failedText] = await waitForTexts(sms.url(), other.e164, { timeoutMs: patience(60_000) });
    await lastSmsOf(failing.id, (lastSms) => lastSms.status === 'sent', 'lastSms sent');
    await postEvent(sms.url(), 'delivery-reports', { messageId: failedText!.messageId, deliveryStatus: 'Failed', details: 'Number unreachable.' });
    expect(await lastSmsOf(failing.id, (lastSms) => lastSms.status === 'failed', 'lastSms failed')).toEqual({ status: 'failed', at: expect.any(String), reason: 'Number unreachable.' });

    expect(await postEvent(sms.url(), 'delivery-reports', { messageId: `Outgoing_${randomUUID()}`, deliveryStatus: 'Delivered' })).toEqual({ status: 200, body: { received: 1 } });
  }, patience(120_000));
});

describe('outages of Communication Services', () => {
  test('a request left unanswered is retried after its time-out with the same repeatability values, and the text sent once', async () => {
    const phone = mobile();
    await scriptAnswers(sms.url(), [{ timeout: true }]);
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email: uniqueEmail('stall'), name: 'Stall', phone: phone.written, delivery: ['sms'] }] });
    await waitForTexts(sms.url(), phone.e164, { timeoutMs: patience(90_000) });
    const attempts = await attemptsTo(sms.url(), phone.e164);
    expect(attempts.map((attempt) => attempt.status)).toEqual([null, 202]);
    expect(new Set(attempts.map((attempt) => attempt.repeatabilityRequestIds[0])).size).toBe(1);
    expect(await lastSmsOf(id, (lastSms) => lastSms.status === 'sent', 'lastSms sent')).toEqual({ status: 'sent', at: expect.any(String) });
    expect(await textsTo(sms.url(), phone.e164)).toHaveLength(1);
  }, patience(120_000));

  test('failing at every try of every delivery, the text ends failed: lastSms says so with the last error, and nothing was sent', async () => {
    const phone = mobile();
    // Five deliveries of three tries each (the SDK's own retries), all answered 503.
    await scriptAnswers(sms.url(), Array.from({ length: 15 }, () => ({ status: 503 })));
    const { id } = await sentEnvelope(env.api, owner, { signers: [{ email: uniqueEmail('down'), name: 'Down', phone: phone.written, delivery: ['sms'] }] });
    const lastSms = await lastSmsOf(id, (candidate) => candidate.status === 'failed', 'lastSms failed');
    expect(lastSms).toEqual({ status: 'failed', at: expect.any(String), reason: expect.stringMatching(/\S/) });
    expect((await attemptsTo(sms.url(), phone.e164)).map((attempt) => attempt.status)).toEqual(Array.from({ length: 15 }, () => 503));
    expect(await textsTo(sms.url(), phone.e164)).toEqual([]);
  }, patience(180_000));
});
