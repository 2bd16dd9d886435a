/**
 * The pure rules of text messages' evidence and events: the words that opt a number out and back in
 * (docs/api.md#opting-out-of-text-messages), numbers as Communication Services' events write them, the
 * masked number (docs/api.md#how-each-recipient-was-identified) and the certificate's identification
 * line of a recipient reached by text message, in every locale.
 */
import { describe, expect, test } from '@jest/globals';
import { recipientIdentification } from '../../../src/lib/envelopes/certificate.js';
import { newSigner, type AuditEvent, type Signer } from '../../../src/lib/envelopes/model.js';
import { SUPPORTED_LOCALES } from '../../../src/lib/i18n/index.js';
import { eventPhoneNumber, maskPhone } from '../../../src/lib/phone.js';
import { deliveryStatus, replyKeyword } from '../../../src/lib/recipients/smsOptOut.js';

describe('replies', () => {
  test.each(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT-OUT', 'REVOKE'])('%s opts out, in any case and with spaces around it', (word) => {
    expect(replyKeyword(word)).toEqual({ wish: 'out', keyword: word });
    expect(replyKeyword(` ${word.toLowerCase()}\n`)).toEqual({ wish: 'out', keyword: word });
  });

  test.each(['START', 'UNSTOP', 'YES'])('%s opts back in', (word) => {
    expect(replyKeyword(word[0] + word.slice(1).toLowerCase())).toEqual({ wish: 'in', keyword: word });
  });

  test('any other text changes nothing', () => {
    for (const text of ['stop please', 'STOP!', 'no', '', 'S T O P', 'start now', 42, null]) expect(replyKeyword(text)).toBeNull();
  });

  test('delivery statuses: Delivered, and the final failures; anything else is ignored', () => {
    expect(deliveryStatus('Delivered')).toBe('delivered');
    for (const status of ['Failed', 'Expired', 'Undeliverable']) expect(deliveryStatus(status)).toBe('failed');
    for (const status of ['Queued', 'Sent', '', undefined]) expect(deliveryStatus(status)).toBeNull();
  });
});

describe('numbers', () => {
  test('numbers from events become E.164, with or without +', () => {
    expect(eventPhoneNumber('4915123456789')).toBe('+4915123456789');
    expect(eventPhoneNumber('+4915123456789')).toBe('+4915123456789');
    expect(eventPhoneNumber(' +1 (425) 555-0100 ')).toBe('+14255550100');
    for (const value of ['Signing', '12345', '', '+0123456789', 7]) expect(eventPhoneNumber(value)).toBeNull();
  });

  test('a masked number keeps the country code and the last four digits, whatever its length', () => {
    expect(maskPhone('+4915123451234')).toBe('+49 *** *** 12 34');
    expect(maskPhone('+12125550123')).toBe('+1 *** *** 01 23');
    expect(maskPhone('+447911123456')).toBe('+44 *** *** 34 56');
    expect(maskPhone('+97142345678')).toBe('+971 *** *** 56 78');
  });
});

describe('the identification line of a recipient reached by text message', () => {
  const phone = '+4915123459876';
  const texted: Signer = { ...newSigner({ id: 'r-tex', email: 'tex@example.com', name: 'Tex', role: 'signer' }), invitedAt: '2026-11-28T10:00:00.000Z', phone, delivery: ['sms'] };
  let sequence = 0;
  const event = (type: string, details: Record<string, unknown>, actorId = texted.id): AuditEvent => ({
    sequence: ++sequence,
    type: type as AuditEvent['type'],
    at: '2026-11-28T10:00:00.000Z',
    actorId,
    actorEmail: null,
    ip: null,
    userAgent: null,
    apiKeyId: null,
    details: { recipientId: texted.id, ...details },
  });
  const acted = [event('recipient.opened', { credential: 'signingLink' }), event('recipient.authenticated', { method: 'sms', channel: 'sms', credential: 'signingLink' }), event('recipient.signed', { credential: 'signingLink' })];

  test('in English: the link and the code sent by text message, the number masked', () => {
    expect(recipientIdentification({ locale: 'en' }, texted, acted)).toBe('Signing link sent by text message to +49 *** *** 98 76; One-time code sent by text message to +49 *** *** 98 76');
    expect(recipientIdentification({ locale: 'en' }, { ...texted, delivery: ['email', 'sms'] }, acted)).toBe(
      'Signing link e-mailed to tex@example.com and sent by text message to +49 *** *** 98 76; One-time code sent by text message to +49 *** *** 98 76',
    );
  });

  test('a number that opted out was not texted: the link went by e-mail, and so did the code', () => {
    const optedOut = [event('recipient.sms_opted_out', { phone: '+49 *** *** 98 76', since: '2026-11-28T09:00:00.000Z' }, 'system'), event('recipient.opened', { credential: 'signingLink' }), event('recipient.authenticated', { method: 'sms', channel: 'email', credential: 'signingLink' })];
    expect(recipientIdentification({ locale: 'en' }, texted, optedOut)).toBe('Signing link e-mailed to tex@example.com; One-time code e-mailed to tex@example.com');
  });

  test.each(SUPPORTED_LOCALES.map((locale) => [locale]))('in %s: the masked number, never the whole one', (locale) => {
    const line = recipientIdentification({ locale }, texted, acted);
    expect(line).toContain('+49 *** *** 98 76');
    expect(line).not.toContain(phone);
    expect(line).not.toContain('15123459876');
    const both = recipientIdentification({ locale }, { ...texted, delivery: ['email', 'sms'] }, acted);
    expect(both).toContain('tex@example.com');
    expect(both).toContain('+49 *** *** 98 76');
  });
});
