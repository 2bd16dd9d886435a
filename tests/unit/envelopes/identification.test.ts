/**
 * The certificate's "Identified by" and "Language" lines, from a recipient's own events: every proof
 * it gave (the credential it acted with, the codes it passed), never one it could have used; and for
 * events recorded before they named their credential, only what the trail proves.
 */
import { describe, expect, test } from '@jest/globals';
import { recipientIdentification, shownLanguage } from '../../../src/lib/envelopes/certificate.js';
import { newSigner, type AuditEvent, type Signer } from '../../../src/lib/envelopes/model.js';

const owner = 'owner-1';
const ada: Signer = { ...newSigner({ id: 'r-ada', email: 'ada@example.com', name: 'Ada', role: 'signer' }), invitedAt: '2026-11-28T10:00:00.000Z' };
const embedded: Signer = { ...ada, delivery: 'embedded' };

let sequence = 0;
function event(type: string, actorId: string, details: Record<string, unknown>): AuditEvent {
  sequence += 1;
  return { sequence, type: type as AuditEvent['type'], at: '2026-11-28T10:00:00.000Z', actorId, actorEmail: null, ip: null, userAgent: null, apiKeyId: null, details };
}
const byAda = (type: string, details: Record<string, unknown> = {}) => event(type, ada.id, { recipientId: ada.id, ...details });
const viewCreated = () => event('recipient.view_created', owner, { recipientId: ada.id });
const identified = (signer: Signer, events: AuditEvent[], locale: 'en' | 'de' = 'en') => recipientIdentification({ locale }, signer, events);

describe('recipientIdentification', () => {
  test('a recipient who acted in an owner-created view is identified by the view, not by the link e-mailed to it', () => {
    const events = [viewCreated(), byAda('recipient.opened', { credential: 'embeddedView' }), byAda('recipient.signed', { credential: 'embeddedView' })];
    expect(identified(ada, events)).toBe('Embedded signing view created by the owner');
  });

  test('the e-mailed link, and both credentials when it used both', () => {
    expect(identified(ada, [byAda('recipient.opened', { credential: 'signingLink' }), byAda('recipient.signed', { credential: 'signingLink' })])).toBe('Signing link e-mailed to ada@example.com');
    const both = [byAda('recipient.opened', { credential: 'signingLink' }), viewCreated(), byAda('recipient.signed', { credential: 'embeddedView' })];
    expect(identified(ada, both)).toBe('Signing link e-mailed to ada@example.com; Embedded signing view created by the owner');
  });

  test('every code passed, with a one-time code\'s channel; a wrong code alone proves nothing', () => {
    const events = [
      byAda('recipient.authentication_failed', { method: 'accessCode', credential: 'embeddedView' }),
      byAda('recipient.authenticated', { method: 'accessCode', credential: 'embeddedView' }),
      byAda('recipient.signed', { credential: 'embeddedView' }),
    ];
    expect(identified(embedded, events)).toBe('Embedded signing view created by the owner; Access code');
    const failedOnly = [byAda('recipient.authentication_failed', { method: 'accessCode', credential: 'signingLink' }), byAda('recipient.declined', { credential: 'signingLink' })];
    expect(identified(ada, failedOnly)).toBe('Signing link e-mailed to ada@example.com');
    const otp = [byAda('recipient.authenticated', { method: 'emailOtp', channel: 'email', credential: 'signingLink' }), byAda('recipient.signed', { credential: 'signingLink' })];
    expect(identified(ada, otp)).toBe('Signing link e-mailed to ada@example.com; One-time code e-mailed to ada@example.com');
    expect(identified(ada, otp, 'de')).toBe('Signaturlink per E-Mail an ada@example.com gesendet; Einmalcode per E-Mail an ada@example.com gesendet');
  });

  test('events recorded before they named their credential: only what the trail proves', () => {
    const legacy = [byAda('recipient.authenticated', { method: 'emailOtp' }), byAda('recipient.opened'), byAda('recipient.signed')];
    // No view was ever created for it: its e-mailed link was its only way in.
    expect(identified(ada, legacy)).toBe('Signing link e-mailed to ada@example.com; One-time code e-mailed to ada@example.com');
    // An embedded recipient's link is never e-mailed: its views were its only way in.
    expect(identified(embedded, legacy)).toBe('Embedded signing view created by the owner; One-time code e-mailed to ada@example.com');
    // Both were possible: the line does not claim either.
    const withView = [viewCreated(), byAda('recipient.opened'), byAda('recipient.signed')];
    expect(identified(ada, withView)).toBe('Signing link e-mailed to ada@example.com or an embedded signing view created by the owner (which one was not recorded)');
  });

  test('a recipient who never came names no credential; other recipients\' and the owner\'s events do not count', () => {
    const others = [viewCreated(), event('recipient.signed', 'r-bob', { recipientId: 'r-bob', credential: 'signingLink' })];
    expect(identified(ada, others)).toBe('None: the recipient never used a signing link or view');
  });
});

describe('shownLanguage', () => {
  test('the locale the recipient\'s newest event records, named in the certificate\'s language; else its own, else the envelope\'s', () => {
    expect(shownLanguage({ locale: 'en' }, ada, [byAda('recipient.signed', { locale: 'fr' })])).toBe('French (fr)');
    expect(shownLanguage({ locale: 'de' }, ada, [byAda('recipient.signed', { locale: 'fr' })])).toBe('Französisch (fr)');
    expect(shownLanguage({ locale: 'en' }, { ...ada, locale: 'ja' }, [byAda('recipient.signed')])).toBe('Japanese (ja)');
    expect(shownLanguage({ locale: 'nl' }, ada, [])).toBe('Nederlands (nl)');
  });
});
