/** The words of every e-mail (docs/api.md#e-mail): subjects, text and HTML, links, escaping. */
import { describe, expect, test } from '@jest/globals';
import { renderEmail } from '../../../src/lib/notifications/emailMessages.js';
import { SUPPORTED_LOCALES } from '../../../src/lib/i18n/locales.js';
import { EMAIL_TYPES, type EmailMessage, type EmailType } from '../../../src/lib/notifications/outbox.js';

const BASE = 'https://sign.example.com';
const TOKEN = 'Q0ZfS3R5bGVfdG9rZW5fZm9yX3Rlc3RzX29ubHlfMTIz';
const LINK = `${BASE}/api/sign#${TOKEN}`;
const ENVELOPE_ID = '0190a6f2-7c1e-7abc-8def-0123456789ab';

function message(type: EmailType, overrides: Partial<EmailMessage> = {}): EmailMessage {
  const toOwner = type === 'declined' || type === 'expired';
  return {
    kind: 'email',
    type,
    envelopeId: ENVELOPE_ID,
    recipientId: toOwner ? null : 'r-1',
    to: toOwner ? { email: 'owner@example.com', name: null } : { email: 'ada@example.com', name: 'Ada Lovelace' },
    documentName: 'Lease agreement.pdf',
    ownerEmail: 'owner@example.com',
    expiresAt: '2026-03-01T17:30:00.000Z',
    reason: type === 'declined' ? 'The rent is wrong.\nPlease fix clause 4.' : null,
    declinedBy: type === 'declined' ? 'Ada Lovelace' : null,
    linkSalt: null,
    ...overrides,
  };
}

function linkFor(type: EmailType, recipientId: string | null): string | null {
  return type === 'invitation' || type === 'reminder' || (type === 'completed' && recipientId !== null) ? LINK : null;
}

/** The e-mails about no envelope: each has its own tests below. */
const ABOUT_NO_ENVELOPE: readonly EmailType[] = ['verification', 'organizationInvitation'];

/**
 * Every e-mail about an envelope the service writes: each type, and the completed e-mail to the owner
 * and to a recipient. (The verification e-mail and the invitation to an organization are about no
 * envelope: their own tests are below.)
 */
const cases: [string, EmailMessage][] = [
  ...EMAIL_TYPES.filter((type) => !ABOUT_NO_ENVELOPE.includes(type)).map((type) => [type, message(type)] as [string, EmailMessage]),
  ['completed (owner)', message('completed', { recipientId: null, to: { email: 'owner@example.com', name: null } })],
];

describe.each(cases)('the %s e-mail', (_name, email) => {
  const rendered = renderEmail(email, { publicBaseUrl: BASE, signingLink: linkFor(email.type, email.recipientId), oneTimeCode: email.type === 'otp' ? '042917' : null });

  test('names the document in its subject, on one line', () => {
    expect(rendered.subject).toContain('Lease agreement.pdf');
    expect(rendered.subject).not.toMatch(/[\r\n]/);
  });

  test('names the document, the envelope id and the owner in its text and its HTML', () => {
    for (const part of [rendered.text, rendered.html]) {
      expect(part).toContain('Lease agreement.pdf');
      expect(part).toContain(ENVELOPE_ID);
      expect(part).toContain('owner@example.com');
    }
  });

  test('is a whole HTML document that loads nothing from outside', () => {
    expect(rendered.html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(rendered.html).toContain('<meta charset="utf-8">');
    expect(rendered.html).not.toMatch(/\ssrc=|<link\b|<img\b|<script\b|<style\b|url\(|@import/i);
    // Every link is absolute, from PUBLIC_BASE_URL.
    for (const [, href] of rendered.html.matchAll(/href="([^"]*)"/g)) expect(href!.startsWith(`${BASE}/api/`)).toBe(true);
  });

  test('carries the signing link exactly when it is a recipient e-mail that needs one, and the token nowhere else', () => {
    const expected = linkFor(email.type, email.recipientId);
    if (expected === null) {
      expect(rendered.text).not.toContain('/api/sign');
      expect(rendered.html).not.toContain('/api/sign');
    } else {
      expect(rendered.text).toContain(`\n${LINK}\n`);
      expect(rendered.html).toContain(`href="${LINK}"`);
    }
    expect(rendered.subject).not.toContain(TOKEN);
    expect(rendered.text.split(LINK).join('')).not.toContain(TOKEN);
    expect(rendered.html.split(LINK).join('')).not.toContain(TOKEN);
  });
});

describe('what each e-mail says', () => {
  test('invitation and reminder ask to act through the link and give the expiry', () => {
    for (const type of ['invitation', 'reminder'] as const) {
      const rendered = renderEmail(message(type), { publicBaseUrl: BASE, signingLink: LINK });
      expect(rendered.text).toContain('Hello Ada Lovelace,');
      expect(rendered.text).toContain('1 March 2026 at 17:30 UTC');
      expect(rendered.html).toContain('1 March 2026 at 17:30 UTC');
      expect(rendered.text).toContain('please do not forward it');
    }
    expect(renderEmail(message('invitation'), { publicBaseUrl: BASE, signingLink: LINK }).subject).toBe('Please review and sign: Lease agreement.pdf');
    expect(renderEmail(message('reminder'), { publicBaseUrl: BASE, signingLink: LINK }).subject).toBe('Reminder: please review and sign: Lease agreement.pdf');
  });

  test('an invitation or a reminder without a link is refused', () => {
    expect(() => renderEmail(message('invitation'), { publicBaseUrl: BASE, signingLink: null })).toThrow(/needs the recipient's signing link/);
    expect(() => renderEmail(message('reminder'), { publicBaseUrl: BASE, signingLink: null })).toThrow(/needs the recipient's signing link/);
  });

  test("a recipient's completed e-mail offers the sealed PDF through the signing link", () => {
    const rendered = renderEmail(message('completed'), { publicBaseUrl: BASE, signingLink: LINK });
    expect(rendered.subject).toBe('Completed: Lease agreement.pdf');
    expect(rendered.text).toContain(`Download the sealed PDF:\n${LINK}`);
    expect(rendered.html).toMatch(new RegExp(`<a href="${LINK.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"[^>]*>Download the sealed PDF</a>`));
  });

  test("the owner's completed e-mail points at that envelope in the console, not at the console's home or a signing link", () => {
    const rendered = renderEmail(message('completed', { recipientId: null, to: { email: 'owner@example.com', name: null } }), { publicBaseUrl: BASE, signingLink: null });
    expect(rendered.text).toContain(`Open the envelope in the console:\n${BASE}/api/console#envelope=${ENVELOPE_ID}\n`);
    expect(rendered.html).toContain(`href="${BASE}/api/console#envelope=${ENVELOPE_ID}"`);
    expect(rendered.text).not.toMatch(/\/api\/console(?!#envelope=)/);
    expect(rendered.text).toContain('Hello,');
  });

  test('declined names who declined and quotes the reason, line by line', () => {
    const rendered = renderEmail(message('declined'), { publicBaseUrl: BASE, signingLink: null });
    expect(rendered.subject).toBe('Declined: Lease agreement.pdf');
    expect(rendered.text).toContain('Ada Lovelace declined "Lease agreement.pdf"');
    expect(rendered.text).toContain('> The rent is wrong.\n> Please fix clause 4.');
    expect(rendered.html).toContain('The rent is wrong.<br>Please fix clause 4.');
  });

  test('voided and expired say so in the subject and the text', () => {
    const voided = renderEmail(message('voided'), { publicBaseUrl: BASE, signingLink: null });
    expect(voided.subject).toBe('Voided: Lease agreement.pdf');
    expect(voided.text).toContain('owner@example.com has voided "Lease agreement.pdf"');
    const expired = renderEmail(message('expired'), { publicBaseUrl: BASE, signingLink: null });
    expect(expired.subject).toBe('Expired: Lease agreement.pdf');
    expect(expired.text).toContain('expired on 1 March 2026 at 17:30 UTC');
  });

  test('the voided e-mail quotes the owner\'s reason, when one was given, in every locale with a sentence of its own', () => {
    const reason = 'The price changed; a new contract follows.';
    const english = renderEmail(message('voided', { reason }), { publicBaseUrl: BASE, signingLink: null });
    expect(english.text).toContain(`The reason given for voiding it:\n\n> ${reason}`);
    expect(english.html).toContain(reason);
    expect(renderEmail(message('voided'), { publicBaseUrl: BASE, signingLink: null }).text).not.toContain('The reason given');
    for (const locale of SUPPORTED_LOCALES) {
      const without = renderEmail(message('voided', { locale }), { publicBaseUrl: BASE, signingLink: null });
      const withReason = renderEmail(message('voided', { locale, reason }), { publicBaseUrl: BASE, signingLink: null });
      expect([locale, withReason.text]).toEqual([locale, expect.stringContaining(reason)]);
      // The sentence that introduces the reason: translated (not the English one) outside English.
      const added = withReason.text.split('\n').filter((line) => line.trim() !== '' && !without.text.split('\n').includes(line) && !line.includes(reason));
      expect([locale, added.length]).toEqual([locale, 1]);
      if (locale !== 'en') expect([locale, added[0]]).not.toEqual([locale, 'The reason given for voiding it:']);
    }
  });
});

describe('text people typed', () => {
  const hostile = message('declined', {
    documentName: '<script>alert("x")</script> & Co\'s.pdf\r\nBcc: victim@example.com',
    declinedBy: '<b>Mallory</b>\u202Egpj.exe',
    reason: '<img src=x onerror=alert(1)>\u0007\r\nsecond line',
  });
  const rendered = renderEmail(hostile, { publicBaseUrl: BASE, signingLink: null });

  test('is escaped in the HTML', () => {
    expect(rendered.html).not.toContain('<script>');
    expect(rendered.html).not.toContain('<img');
    expect(rendered.html).not.toContain('<b>Mallory');
    expect(rendered.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co&#39;s.pdf');
    expect(rendered.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  test('cannot add lines to the subject or headers, nor reorder text with bidirectional controls', () => {
    expect(rendered.subject).toBe('Declined: <script>alert("x")</script> & Co\'s.pdf Bcc: victim@example.com');
    expect(rendered.text).not.toContain('\nBcc:');
    expect(rendered.text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
    expect(rendered.text).toContain('<b>Mallory</b> gpj.exe declined');
    expect(rendered.text).toContain('> <img src=x onerror=alert(1)>\n> second line');
  });
});

describe('the verification e-mail', () => {
  const link = `${BASE}/api/verify-email#YWRhQGV4YW1wbGUuY29t.1796210130.abc`;
  const email = message('verification', { envelopeId: '', recipientId: null, to: { email: 'ada@example.com', name: null }, documentName: '', ownerEmail: 'ada@example.com' });
  const rendered = renderEmail(email, { publicBaseUrl: BASE, signingLink: link });

  test('asks the owner to verify its address, with the link in its text and HTML, and says when it expires', () => {
    expect(rendered.subject).toBe('Verify your e-mail address');
    for (const part of [rendered.text, rendered.html]) {
      expect(part).toContain('ada@example.com');
      expect(part).toContain(link);
    }
    expect(rendered.text).toContain('1 March 2026 at 17:30 UTC');
  });

  test('is refused without its link (a fault of the caller)', () => {
    expect(() => renderEmail(email, { publicBaseUrl: BASE, signingLink: null })).toThrow(/verification/);
  });
});

describe('the invitation to an organization (docs/api.md#invitations-to-an-organization)', () => {
  const link = `${BASE}/api/console#join=oinv_3Xq7bqfVbQ1bG9m0hTQwZ8kL2pN4sRtq3Xx7bqfVbQ1`;
  const invitation = (overrides: Partial<EmailMessage> = {}) =>
    message('organizationInvitation', {
      envelopeId: '',
      recipientId: null,
      to: { email: 'grace@example.com', name: null },
      documentName: '',
      ownerEmail: 'ada@example.com',
      ownerName: 'Ada Lovelace',
      organizationInvitation: { id: '0193a5e0-2b3c-7d4e-9f5a-6b7c8d9e0f1a', organizationName: 'Lovelace & <Partners>' },
      ...overrides,
    });

  test('names who invites and the organization, with the link in its text and HTML, and says until when it works', () => {
    const rendered = renderEmail(invitation(), { publicBaseUrl: BASE, signingLink: link });
    expect(rendered.subject).toBe('Join Lovelace & <Partners> on the envelope signing service');
    expect(rendered.text).toContain('Ada Lovelace <ada@example.com> invites you to join Lovelace & <Partners> on the envelope signing service.');
    expect(rendered.html).toContain('Lovelace &amp; &lt;Partners&gt;');
    expect(rendered.html).not.toContain('<Partners>');
    for (const part of [rendered.text, rendered.html]) expect(part).toContain(link);
    expect(rendered.text).toContain('The invitation works once, until 1 March 2026 at 17:30 UTC.');
  });

  test('is written in the organization\'s language', () => {
    const english = renderEmail(invitation(), { publicBaseUrl: BASE, signingLink: link });
    for (const locale of SUPPORTED_LOCALES.filter((candidate) => candidate !== 'en')) {
      const mail = renderEmail(invitation({ locale }), { publicBaseUrl: BASE, signingLink: link });
      expect(mail.subject).not.toBe(english.subject);
      expect(mail.subject).toContain('Lovelace & <Partners>');
      expect(mail.text).toContain(link);
      expect(mail.text).not.toContain('invites you');
    }
    expect(renderEmail(invitation({ locale: 'de' }), { publicBaseUrl: BASE, signingLink: link }).subject).toBe('Treten Sie Lovelace & <Partners> beim Umschlag-Signaturdienst bei');
  });

  test('is refused without its link (a fault of the caller)', () => {
    expect(() => renderEmail(invitation(), { publicBaseUrl: BASE, signingLink: null })).toThrow(/organizationInvitation/);
  });
});

describe("the owner's name and what the recipient is asked to do", () => {
  test('names the owner as "Name <address>" when the owner gave a name, in the text, the HTML and the facts', () => {
    const rendered = renderEmail(message('invitation', { ownerName: 'Ada Lovelace', ownerEmail: 'ada@example.com', role: 'signer', to: { email: 'bob@example.com', name: 'Bob' } }), { publicBaseUrl: BASE, signingLink: LINK });
    expect(rendered.text).toContain('Ada Lovelace <ada@example.com> asks you to sign "Lease agreement.pdf".');
    expect(rendered.text).toContain('Sent by: Ada Lovelace <ada@example.com>');
    expect(rendered.html).toContain('Ada Lovelace &lt;ada@example.com&gt; asks you to sign');
  });

  test('names the owner by address alone when no name was given', () => {
    const rendered = renderEmail(message('invitation', { ownerName: null, role: 'signer' }), { publicBaseUrl: BASE, signingLink: LINK });
    expect(rendered.text).toContain('owner@example.com asks you to sign "Lease agreement.pdf".');
    expect(rendered.text).not.toContain('<owner@example.com>');
  });

  test.each([
    ['signer', 'Please review and sign: Lease agreement.pdf', 'Reminder: please review and sign: Lease agreement.pdf', 'asks you to sign', 'Review and sign'],
    ['approver', 'Please review and approve: Lease agreement.pdf', 'Reminder: please review and approve: Lease agreement.pdf', 'asks you to approve', 'Review and approve'],
    ['viewer', 'Please review: Lease agreement.pdf', 'Reminder: please review: Lease agreement.pdf', 'asks you to review', 'Review the document'],
  ] as const)("a %s's invitation and reminder ask for what a %s does", (role, invitationSubject, reminderSubject, asks, button) => {
    const invitation = renderEmail(message('invitation', { role }), { publicBaseUrl: BASE, signingLink: LINK });
    const reminder = renderEmail(message('reminder', { role }), { publicBaseUrl: BASE, signingLink: LINK });
    expect(invitation.subject).toBe(invitationSubject);
    expect(reminder.subject).toBe(reminderSubject);
    expect(invitation.text).toContain(`owner@example.com ${asks} "Lease agreement.pdf".`);
    expect(invitation.text).toContain(`${button}:\n${LINK}`);
    expect(reminder.text).toContain(`owner@example.com is still waiting for you to ${asks.replace('asks you to ', '')} "Lease agreement.pdf".`);
    if (role !== 'signer') {
      // Never "sign" to someone who does not sign (the link's path aside).
      for (const rendered of [invitation, reminder]) expect(`${rendered.subject}\n${rendered.text}\n${rendered.html}`.split(LINK).join('')).not.toMatch(/\bsign\b/i);
    }
  });
});

describe('the language of an e-mail (docs/languages.md)', () => {
  const render = (type: EmailType, locale: EmailMessage['locale'], overrides: Partial<EmailMessage> = {}) =>
    renderEmail(message(type, { locale, role: 'signer', ...overrides }), { publicBaseUrl: BASE, signingLink: linkFor(type, 'r-1'), oneTimeCode: type === 'otp' ? '042917' : null });

  test('is English without a locale, exactly as before languages existed', () => {
    expect(render('invitation', undefined)).toEqual(render('invitation', 'en'));
  });

  test.each(EMAIL_TYPES.filter((type) => !ABOUT_NO_ENVELOPE.includes(type)).map((type) => [type]))('%s is written in each supported locale, with no English left in it', (type) => {
    const english = render(type, 'en');
    for (const locale of ['de', 'fr', 'ja', 'ar', 'ru', 'hi', 'th'] as const) {
      const mail = render(type, locale);
      expect(mail.subject).not.toBe(english.subject);
      expect(mail.subject).toContain('Lease agreement.pdf');
      expect(mail.html).toContain(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`);
      for (const word of ['Hello', 'Envelope ID', 'You receive this e-mail', 'Or open this address']) {
        expect(mail.text).not.toContain(word);
        expect(mail.html).not.toContain(word);
      }
    }
  });

  test('the one-time code e-mail is in the recipient\'s language, its code apart on a line of its own', () => {
    const mail = render('otp', 'de');
    expect(mail.subject).toBe('Ihr Code für Lease agreement.pdf');
    expect(mail.text).toContain('Ihr Code zum Öffnen von „Lease agreement.pdf“, das owner@example.com Ihnen gesendet hat:');
    expect(mail.text).toMatch(/^> ?042917$/m);
    expect(mail.text).toContain('Er gilt einmal und 10 Minuten lang.');
  });

  test('dates name UTC in the locale\'s own format', () => {
    expect(render('invitation', 'de').text).toContain('Läuft ab: 1. März 2026 um 17:30 UTC');
    expect(render('invitation', 'ja').text).toContain('有効期限: 2026年3月1日 17:30 UTC');
  });

  test('right to left: what people typed is set apart with Unicode isolates in the text, not in the subject', () => {
    const mail = render('invitation', 'he', { ownerName: 'Hans Müller' });
    expect(mail.subject).toBe('נא לעיין ולחתום: Lease agreement.pdf');
    expect(mail.text).toContain('\u2068Hans Müller <owner@example.com>\u2069');
    expect(mail.html).toContain('dir="rtl"');
  });
});
