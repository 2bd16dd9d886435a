/**
 * The audit trail as sentences (the certificate of completion): every event type reads as a sentence
 * naming who did what to whom, never as its raw type.
 */
import { describe, expect, test } from '@jest/globals';
import { describeAuditTrail } from '../../../src/lib/envelopes/auditSentences.js';
import { AUDIT_EVENT_TYPES } from '../../../src/lib/envelopes/model.js';

const owner = { id: 'owner-1', email: 'owner@example.com' };
const ada = { id: 'r-ada', email: 'ada@example.com', name: 'Ada', role: 'signer' as const };
const bob = { id: 'r-bob', email: 'bob@example.com', name: 'Bob', role: 'approver' as const };
const context = { ownerId: owner.id, ownerEmail: owner.email, recipients: [ada, bob] };
const byOwner = { actorId: owner.id, actorEmail: owner.email };
const byAda = { actorId: ada.id, actorEmail: ada.email };

const details: Record<(typeof AUDIT_EVENT_TYPES)[number], [Record<string, unknown>, typeof byOwner | { actorId: string; actorEmail: null }, string]> = {
  'envelope.created': [{ documentName: 'Lease.pdf', blobName: 'x/Lease.pdf' }, byOwner, 'Envelope created by owner@example.com for the document "Lease.pdf".'],
  'envelope.signers_replaced': [{ added: [{ id: ada.id, email: ada.email }], removed: [{ id: 'gone', email: 'old@example.com' }] }, byOwner, 'Recipients changed by owner@example.com: added ada@example.com; removed old@example.com.'],
  'envelope.fields_replaced': [{ count: 1 }, byOwner, '1 field placed by owner@example.com.'],
  'envelope.document_added': [{ documentId: 'd-1', name: 'House rules.pdf', order: 2 }, byOwner, 'Document "House rules.pdf" added by owner@example.com.'],
  'envelope.document_changed': [{ documentId: 'd-1', name: 'Rules.pdf', order: 1 }, byOwner, 'Document "Rules.pdf" renamed or moved by owner@example.com (now document 1).'],
  'envelope.document_removed': [{ documentId: 'd-1', name: 'Rules.pdf' }, byOwner, 'Document "Rules.pdf" removed by owner@example.com.'],
  'envelope.settings_changed': [{ signingOrder: 'sequential', remindEveryDays: 2, expiresAt: null }, byOwner, 'Settings changed by owner@example.com: signing order set to sequential, reminders every 2 days, no expiry date.'],
  'envelope.sent': [{ documentSha256: 'ab'.repeat(32), pageCount: 3 }, byOwner, 'Envelope sent by owner@example.com with the 3-page document (SHA-256 abababababababab…).'],
  'recipient.invited': [{ recipientId: ada.id, email: ada.email, resend: true }, byOwner, 'Invitation e-mailed again to ada@example.com, with a new signing link, at the request of owner@example.com.'],
  'recipient.reminded': [{ recipientId: ada.id, email: ada.email }, { actorId: 'system', actorEmail: null }, 'Reminder e-mailed to ada@example.com.'],
  'recipient.opened': [{ recipientId: ada.id }, byAda, 'ada@example.com opened the envelope.'],
  'recipient.authenticated': [{ recipientId: ada.id, method: 'accessCode' }, byAda, 'ada@example.com entered the right access code.'],
  'recipient.authentication_failed': [{ recipientId: ada.id, method: 'emailOtp' }, byAda, 'ada@example.com entered a wrong one-time code.'],
  'recipient.signed': [{ recipientId: ada.id, consent: { text: 't', version: 'esd-000000000000' } }, byAda, 'ada@example.com signed, agreeing to do so electronically (disclosure esd-000000000000).'],
  'recipient.approved': [{ recipientId: bob.id }, { actorId: bob.id, actorEmail: bob.email } as typeof byOwner, 'bob@example.com approved.'],
  'recipient.viewed': [{ recipientId: bob.id }, { actorId: bob.id, actorEmail: bob.email } as typeof byOwner, 'bob@example.com confirmed having read it.'],
  'recipient.declined': [{ recipientId: ada.id, reason: 'Wrong\ndate' }, byAda, 'ada@example.com declined, giving the reason "Wrong date".'],
  'envelope.declined': [{ recipientId: ada.id }, byAda, 'Envelope declined, as ada@example.com declined.'],
  'envelope.expired': [{}, { actorId: 'system', actorEmail: null }, 'Envelope expired before everyone had acted.'],
  'envelope.voided': [{}, byOwner, 'Envelope voided by owner@example.com.'],
  'envelope.completed': [{ originalSha256: 'a', sealedSha256: 'b' }, byAda, 'Envelope completed: the document and this certificate were sealed.'],
  'recipient.view_created': [{ recipientId: ada.id }, byOwner, 'Embedded signing view created for ada@example.com by owner@example.com.'],
  'recipient.reassigned': [{ recipientId: ada.id, newRecipientId: bob.id, email: bob.email, reason: 'Bob signs for us' }, byAda, 'ada@example.com handed the envelope on to Bob <bob@example.com>, giving the reason "Bob signs for us".'],
  'envelope.owner_changed': [{ from: { userId: 'u-1', email: 'grace@example.com' }, to: { userId: 'u-2', email: 'alan@example.com' } }, byOwner, 'Envelope handed over from grace@example.com to alan@example.com by owner@example.com, as grace@example.com left the organization.'],
  'envelope.purged': [{}, byOwner, 'Documents deleted by owner@example.com; the envelope\'s details, this trail and the sealed PDF\'s SHA-256 were kept.'],
  'recipient.sms_opted_out': [{ recipientId: ada.id, phone: '+49 *** *** 12 34', since: '2026-11-28T10:00:00.000Z' }, { actorId: 'system', actorEmail: null }, 'ada@example.com\'s number +49 *** *** 12 34 opted out of text messages (STOP): it is not texted, and its messages go by e-mail.'],
};

describe('describeAuditTrail', () => {
  test.each(AUDIT_EVENT_TYPES.map((type) => [type]))('%s reads as a sentence naming who did what to whom', (type) => {
    const [eventDetails, actor, sentence] = details[type];
    expect(describeAuditTrail([{ type, ...actor, details: eventDetails }], context)).toEqual([sentence]);
  });

  test('an invitation that follows a recipient\'s action says after whose action it went out', () => {
    const sentences = describeAuditTrail(
      [
        { type: 'recipient.invited', ...byOwner, details: { recipientId: ada.id, email: ada.email, resend: false } },
        { type: 'recipient.signed', ...byAda, details: { recipientId: ada.id } },
        { type: 'recipient.invited', ...byAda, details: { recipientId: bob.id, email: bob.email, resend: false } },
      ],
      context,
    );
    expect(sentences).toEqual(['Invitation e-mailed to ada@example.com.', 'ada@example.com signed.', 'Invitation e-mailed to bob@example.com, after ada@example.com signed.']);
  });

  test('an embedded recipient\'s turn reads without an e-mail', () => {
    const embedded = { ...context, recipients: [{ ...ada, delivery: 'embedded' as const }, bob] };
    expect(describeAuditTrail([{ type: 'recipient.invited', ...byOwner, details: { recipientId: ada.id, email: ada.email, resend: false } }], embedded)).toEqual([
      'ada@example.com\'s turn came (embedded signing: no e-mail).',
    ]);
  });

  test('an opening says through which credential: the e-mailed link or a view the owner created (older events: neither)', () => {
    const opened = (details: Record<string, unknown>) => describeAuditTrail([{ type: 'recipient.opened', ...byAda, details: { recipientId: ada.id, ...details } }], context);
    expect(opened({ credential: 'signingLink' })).toEqual(['ada@example.com opened the envelope with the signing link e-mailed to them.']);
    expect(opened({ credential: 'embeddedView' })).toEqual(['ada@example.com opened the envelope in an embedded signing view created by the owner.']);
    expect(opened({})).toEqual(['ada@example.com opened the envelope.']);
  });

  test('an event type it does not know reads as its type and actor', () => {
    expect(describeAuditTrail([{ type: 'envelope.future_kind', ...byOwner, details: {} }], context)).toEqual(['envelope.future_kind by owner@example.com.']);
  });
});

describe('in the envelope\'s language (docs/languages.md)', () => {
  test('the same events read in German, with plural rules and the language named in German', () => {
    const events = [
      { type: 'envelope.fields_replaced', actorId: owner.id, actorEmail: owner.email, details: { count: 2 } },
      { type: 'envelope.settings_changed', actorId: owner.id, actorEmail: owner.email, details: { locale: 'de', remindEveryDays: 1 } },
      { type: 'recipient.signed', actorId: ada.id, actorEmail: ada.email, details: { recipientId: ada.id, consent: { text: 'x', version: 'v1' } } },
      { type: 'recipient.invited', actorId: ada.id, actorEmail: ada.email, details: { recipientId: bob.id, email: bob.email, resend: false } },
      { type: 'envelope.expired', actorId: 'system', actorEmail: null, details: {} },
      { type: 'some.future_event', actorId: 'system', actorEmail: null, details: {} },
    ];
    expect(describeAuditTrail(events, context, 'de')).toEqual([
      '2 Felder von owner@example.com platziert.',
      'Einstellungen von owner@example.com geändert: Sprache auf Deutsch (de) gesetzt, tägliche Erinnerungen.',
      'ada@example.com hat unterschrieben und dabei der elektronischen Abwicklung zugestimmt (Erklärung v1).',
      'Einladung per E-Mail an bob@example.com gesendet, nachdem ada@example.com unterschrieben hat.',
      'Umschlag abgelaufen, bevor alle gehandelt hatten.',
      'some.future_event von dem Dienst.',
    ]);
    expect(describeAuditTrail(events.slice(1, 2), context)).toEqual(['Settings changed by owner@example.com: language set to German (de), reminders every 1 day.']);
  });

  test('a recipient\'s codes, right and wrong, read in the envelope\'s language, by method', () => {
    const code = (type: string, method: string) => ({ type, actorId: ada.id, actorEmail: ada.email, details: { recipientId: ada.id, method } });
    const events = [code('recipient.authentication_failed', 'accessCode'), code('recipient.authenticated', 'accessCode'), code('recipient.authentication_failed', 'emailOtp'), code('recipient.authenticated', 'emailOtp')];
    expect(describeAuditTrail(events, context, 'de')).toEqual([
      'ada@example.com hat einen falschen Zugangscode eingegeben.',
      'ada@example.com hat den richtigen Zugangscode eingegeben.',
      'ada@example.com hat einen falschen Einmalcode eingegeben.',
      'ada@example.com hat den richtigen per E-Mail erhaltenen Einmalcode eingegeben.',
    ]);
    expect(describeAuditTrail(events.slice(3), context, 'fr')).toEqual(['ada@example.com a saisi le bon code à usage unique reçu par e-mail.']);
  });

  test('a code sent by text message reads so, by its channel: an sms recipient\'s code e-mailed while its number opted out reads as e-mailed', () => {
    const code = (type: string, method: string, channel: string) => ({ type, actorId: ada.id, actorEmail: ada.email, details: { recipientId: ada.id, method, channel } });
    const events = [code('recipient.authentication_failed', 'sms', 'sms'), code('recipient.authenticated', 'sms', 'sms'), code('recipient.authenticated', 'sms', 'email')];
    expect(describeAuditTrail(events, context)).toEqual([
      'ada@example.com entered a wrong one-time code sent by text message.',
      'ada@example.com entered the right one-time code sent to them by text message.',
      'ada@example.com entered the right one-time code e-mailed to them.',
    ]);
    expect(describeAuditTrail(events.slice(1, 2), context, 'de')).toEqual(['ada@example.com hat den richtigen per SMS erhaltenen Einmalcode eingegeben.']);
  });
});
