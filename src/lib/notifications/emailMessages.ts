/**
 * The words of every e-mail (docs/api.md#e-mail): plain text and HTML of each {@link EmailMessage} type,
 * from what the outbox captured at the time of the change, in the message's locale (docs/languages.md:
 * the recipient's, or the envelope's for the owner) from the `email` catalogue (`src/lib/i18n`);
 * dates and times in the locale's format, naming UTC. The HTML carries the locale's `lang` and `dir`.
 *
 * Every e-mail names the document in its subject, and the document, the envelope id and the owner's
 * address in its text. E-mails to a recipient that carry its signing link (invitation, reminder, a
 * recipient's completed e-mail) show it as the absolute `<PUBLIC_BASE_URL>/api/sign#<token>`; the
 * token appears nowhere else. The HTML has inline styles only: no external image, style sheet or
 * font, nothing fetched when the e-mail is opened. Text that people typed (document name, names,
 * decline reason) is escaped in HTML and stripped of control characters everywhere, so it cannot
 * add headers, markup or fake lines.
 */
import type { SignerRole } from '../envelopes/model.js';
import { nameAndAddress } from '../nameAndAddress.js';
import type { EmailMessage } from './outbox.js';
import { DEFAULT_LOCALE, RIGHT_TO_LEFT_LOCALES, formatDateTime, translate } from '../i18n/index.js';
import type { Locale, MessageValues } from '../i18n/index.js';

/** The catalogue key of what an invitation or a reminder asks, by role: `any` for a message written before roles were captured. */
function askOf(role: SignerRole | null | undefined): 'signer' | 'approver' | 'viewer' | 'any' {
  return role === 'signer' || role === 'approver' || role === 'viewer' ? role : 'any';
}

/**
 * The console's address that opens one envelope (after logging in): `<publicBaseUrl>/api/console#envelope=<id>`.
 * The id is in the fragment, so it never reaches a server log.
 */
export function consoleEnvelopeLink(publicBaseUrl: string, envelopeId: string): string {
  return `${publicBaseUrl}/api/console#envelope=${encodeURIComponent(envelopeId)}`;
}

export interface RenderedEmail {
  /** One line, no control characters. */
  subject: string;
  text: string;
  html: string;
}

export interface RenderEmailOptions {
  /** Origin that links point at, without a trailing slash (`PUBLIC_BASE_URL`). */
  publicBaseUrl: string;
  /**
   * The recipient's absolute signing link `<publicBaseUrl>/api/sign#<token>`: required for
   * invitations and reminders, used by a recipient's completed e-mail, ignored otherwise.
   */
  signingLink: string | null;
  /** `otp` e-mails: the 6-digit one-time code (derived by the sender, never stored). */
  oneTimeCode?: string | null;
}

/** A part of the body: a paragraph, a link, a quoted text or the facts table. */
type Block =
  | { kind: 'paragraph'; text: string }
  | { kind: 'link'; label: string; url: string }
  | { kind: 'quote'; text: string }
  | { kind: 'facts'; rows: [string, string][] };

/**
 * Writes one e-mail.
 * @throws Error when an invitation or a reminder has no signing link (a fault of the caller)
 */
export function renderEmail(message: EmailMessage, options: RenderEmailOptions): RenderedEmail {
  const locale: Locale = message.locale ?? DEFAULT_LOCALE;
  const rightToLeft = RIGHT_TO_LEFT_LOCALES.includes(locale);
  // In a right-to-left text, what people typed (a Latin name, an address in angle brackets) is set
  // apart with Unicode isolates (U+2068 … U+2069, UAX #9), so that its own direction cannot reorder
  // the sentence around it. Subjects stay plain: they are one short line, shown by mail clients as is.
  const t = (key: string, values?: MessageValues): string =>
    translate(locale, 'email', key, rightToLeft && values !== undefined && !key.includes('subject') ? isolated(values) : values);
  if (message.type === 'verification') return renderVerification(message, options, locale, t);
  if (message.type === 'organizationInvitation') return renderOrganizationInvitation(message, options, locale, t);
  const document = oneLine(message.documentName) || t('document.untitled');
  // "Ada Lovelace <ada@example.com>" when the owner gave a name (docs/api.md#accounts), else the address.
  const owner = oneLine(nameAndAddress(message.ownerName === undefined || message.ownerName === null ? null : oneLine(message.ownerName), message.ownerEmail));
  const ask = askOf(message.role);
  const greeting = message.to.name !== null && oneLine(message.to.name) !== '' ? t('greeting.named', { name: oneLine(message.to.name) }) : t('greeting.anonymous');
  const expiry = message.expiresAt === null ? null : formatDateTime(locale, message.expiresAt);
  const link = options.signingLink;
  const typed = (value: string): string => (rightToLeft ? `\u2068${value}\u2069` : value);
  const facts: [string, string][] = [
    [t('fact.document'), typed(document)],
    [t('fact.envelopeId'), typed(message.envelopeId)],
    [t('fact.sentBy'), typed(owner)],
    ...(expiry === null || !['invitation', 'reminder'].includes(message.type) ? [] : [[t('fact.expires'), expiry] as [string, string]]),
  ];
  const personalLink = expiry === null ? t('link.personal') : t('link.personalExpires', { expiry });

  let subject: string;
  let blocks: Block[];
  switch (message.type) {
    case 'invitation':
      subject = t(`invitation.subject.${ask}`, { document });
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: t(`invitation.body.${ask}`, { owner, document }) },
        { kind: 'link', label: t(`button.${ask}`), url: requireLink(link, message) },
        { kind: 'paragraph', text: personalLink },
      ];
      break;
    case 'reminder':
      subject = t(`reminder.subject.${ask}`, { document });
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: t(`reminder.body.${ask}`, { owner, document }) },
        { kind: 'link', label: t(`button.${ask}`), url: requireLink(link, message) },
        { kind: 'paragraph', text: personalLink },
      ];
      break;
    case 'completed':
      subject = t('completed.subject', { document });
      blocks =
        message.recipientId === null
          ? [
              { kind: 'paragraph', text: greeting },
              { kind: 'paragraph', text: t('completed.owner.body', { document }) },
              { kind: 'paragraph', text: t('completed.owner.download') },
              { kind: 'link', label: t('completed.owner.button'), url: consoleEnvelopeLink(options.publicBaseUrl, message.envelopeId) },
            ]
          : [
              { kind: 'paragraph', text: greeting },
              { kind: 'paragraph', text: t('completed.recipient.body', { document, owner }) },
              ...(link === null
                ? [{ kind: 'paragraph', text: t('completed.recipient.askCopy', { owner }) } as Block]
                : [
                    { kind: 'link', label: t('completed.recipient.button'), url: link } as Block,
                    { kind: 'paragraph', text: t('link.personalDays', { days: 30 }) } as Block,
                  ]),
            ];
      break;
    case 'declined': {
      const name = message.declinedBy === null ? '' : oneLine(message.declinedBy);
      subject = t('declined.subject', { document });
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: name === '' ? t('declined.body.anonymous', { document }) : t('declined.body.named', { name, document }) },
        { kind: 'paragraph', text: t('declined.reason') },
        { kind: 'quote', text: multiLine(message.reason ?? '') || t('declined.noReason') },
      ];
      break;
    }
    case 'voided':
      subject = t('voided.subject', { document });
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: t('voided.body', { owner, document }) },
        // The owner's reason, when one was given (docs/api.md#update-an-envelope).
        ...(message.reason === null || message.reason === undefined || oneLine(message.reason) === ''
          ? []
          : [{ kind: 'paragraph', text: t('voided.reason') } as Block, { kind: 'quote', text: oneLine(message.reason) } as Block]),
      ];
      break;
    case 'otp':
      subject = t('otp.subject', { document });
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: t('otp.body', { document, owner }) },
        { kind: 'quote', text: requireCode(options.oneTimeCode ?? null, message) },
        { kind: 'paragraph', text: t('otp.warning') },
      ];
      break;
    case 'expired':
      subject = t('expired.subject', { document });
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: expiry === null ? t('expired.body.undated', { document }) : t('expired.body.dated', { document, expiry }) },
      ];
      break;
  }
  blocks.push({ kind: 'facts', rows: facts });
  blocks.push({ kind: 'paragraph', text: message.recipientId === null ? t('footer.owner') : t('footer.recipient', { owner }) });
  const safeSubject = oneLine(subject);
  return { subject: safeSubject, text: toText(blocks), html: toHtml(safeSubject, blocks, locale, t) };
}

/**
 * The e-mail that verifies an owner's address (no envelope): `options.signingLink` carries its
 * verification link.
 */
function renderVerification(message: EmailMessage, options: RenderEmailOptions, locale: Locale, t: (key: string, values?: MessageValues) => string): RenderedEmail {
  const expiry = message.expiresAt === null ? null : formatDateTime(locale, message.expiresAt);
  const subject = t('verification.subject');
  const blocks: Block[] = [
    { kind: 'paragraph', text: t('greeting.anonymous') },
    { kind: 'paragraph', text: t('verification.body', { email: oneLine(message.to.email) }) },
    { kind: 'link', label: t('verification.button'), url: requireLink(options.signingLink, message) },
    { kind: 'paragraph', text: expiry === null ? t('verification.noExpiry') : t('verification.expiry', { expiry }) },
  ];
  return { subject, text: toText(blocks), html: toHtml(subject, blocks, locale, t) };
}

/**
 * An invitation to an organization (no envelope, docs/api.md#invitations-to-an-organization):
 * `options.signingLink` carries its link (`<PUBLIC_BASE_URL>/api/console#join=<token>`); the inviter is
 * the message's owner.
 */
function renderOrganizationInvitation(message: EmailMessage, options: RenderEmailOptions, locale: Locale, t: (key: string, values?: MessageValues) => string): RenderedEmail {
  const organization = oneLine(message.organizationInvitation?.organizationName ?? '');
  const inviter = oneLine(nameAndAddress(message.ownerName === undefined || message.ownerName === null ? null : oneLine(message.ownerName), message.ownerEmail));
  const expiry = formatDateTime(locale, message.expiresAt ?? '');
  const subject = t('organizationInvitation.subject', { organization });
  const blocks: Block[] = [
    { kind: 'paragraph', text: t('greeting.anonymous') },
    { kind: 'paragraph', text: t('organizationInvitation.body', { inviter, organization }) },
    { kind: 'link', label: t('organizationInvitation.button'), url: requireLink(options.signingLink, message) },
    { kind: 'paragraph', text: t('organizationInvitation.expiry', { expiry }) },
  ];
  return { subject: oneLine(subject), text: toText(blocks), html: toHtml(oneLine(subject), blocks, locale, t) };
}

/** Each text value between a first-strong isolate and its pop (U+2068, U+2069). */
function isolated(values: MessageValues): MessageValues {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? `\u2068${value}\u2069` : value]));
}

function requireCode(code: string | null, message: EmailMessage): string {
  if (code === null) throw new Error(`A one-time code e-mail needs its code (envelope ${message.envelopeId})`);
  return code;
}

function requireLink(link: string | null, message: EmailMessage): string {
  if (link === null) {
    throw new Error(message.type === 'verification' ? 'A verification e-mail needs its verification link' : `A ${message.type} e-mail needs the recipient's signing link (envelope ${message.envelopeId})`);
  }
  return link;
}

/**
 * `31 January 2026 at 17:00 UTC` from an ISO 8601 timestamp, in `locale` (default English); the
 * original text if unparsable.
 */
export function formatTime(iso: string, locale: string = DEFAULT_LOCALE): string {
  return Number.isNaN(new Date(iso).getTime()) ? oneLine(iso) : formatDateTime(locale, iso);
}

// C0 and C1 controls, DEL, line and paragraph separators, and the bidirectional embedding, override
// and isolate controls (which can make a name display as something else).
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Typed text on one line: controls become spaces, runs of spaces one. */
function oneLine(text: string): string {
  return text.replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
}

/** Typed text keeping its line breaks: other controls become spaces. */
function multiLine(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(CONTROLS, ' ').replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function toText(blocks: Block[]): string {
  const parts = blocks.map((block) => {
    switch (block.kind) {
      case 'paragraph':
        return block.text;
      case 'link':
        return `${block.label}:\n${block.url}`;
      case 'quote':
        return block.text
          .split('\n')
          .map((line) => `> ${line}`)
          .join('\n');
      case 'facts':
        return block.rows.map(([label, value]) => `${label}: ${value}`).join('\n');
    }
  });
  return `${parts.join('\n\n')}\n`;
}

/** HTML escaping for text and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.5;color:#1f2328";

function toHtml(subject: string, blocks: Block[], locale: Locale, t: (key: string) => string): string {
  const body = blocks
    .map((block) => {
      switch (block.kind) {
        case 'paragraph':
          return `<p style="margin:0 0 16px">${escapeHtml(block.text)}</p>`;
        case 'link': {
          const href = escapeHtml(block.url);
          return (
            `<p style="margin:0 0 8px"><a href="${href}" style="display:inline-block;padding:10px 18px;background:#0b57d0;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:600">${escapeHtml(block.label)}</a></p>` +
            `<p style="margin:0 0 16px;font-size:13px;color:#57606a">${escapeHtml(t('link.orOpen'))} <a href="${href}" style="color:#0b57d0;word-break:break-all">${href}</a></p>`
          );
        }
        case 'quote':
          return `<blockquote style="margin:0 0 16px;padding:8px 12px;border-inline-start:3px solid #d0d7de;color:#57606a">${escapeHtml(block.text).replace(/\n/g, '<br>')}</blockquote>`;
        case 'facts':
          return (
            '<table role="presentation" style="border-collapse:collapse;margin:0 0 16px;font-size:13px">' +
            block.rows.map(([label, value]) => `<tr><th scope="row" style="text-align:start;padding-block:2px;padding-inline:0 12px;color:#57606a;font-weight:normal">${escapeHtml(label)}</th><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`).join('') +
            '</table>'
          );
      }
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="${escapeHtml(locale)}" dir="${RIGHT_TO_LEFT_LOCALES.includes(locale) ? 'rtl' : 'ltr'}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#ffffff">
<div style="${FONT};max-width:600px">
${body}
</div>
</body>
</html>
`;
}
