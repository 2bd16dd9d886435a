/**
 * The words of every e-mail (CONTRACT §12.1): plain text and HTML of each {@link EmailMessage} type,
 * from what the outbox captured at the time of the change.
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

/**
 * What an invitation or a reminder asks of a recipient, by role (CONTRACT §11): a signer signs, an
 * approver approves, a viewer reviews; never "sign" to someone who does not sign. `null`: a message
 * written before roles were captured, worded for any role.
 */
const ASKS: Record<'signer' | 'approver' | 'viewer' | 'any', { subject: string; verb: string; button: string }> = {
  signer: { subject: 'Please review and sign', verb: 'sign', button: 'Review and sign' },
  approver: { subject: 'Please review and approve', verb: 'approve', button: 'Review and approve' },
  viewer: { subject: 'Please review', verb: 'review', button: 'Review the document' },
  any: { subject: 'Please review and sign', verb: 'act on', button: 'Open the document' },
};

function askOf(role: SignerRole | null | undefined): (typeof ASKS)[keyof typeof ASKS] {
  return role === 'signer' || role === 'approver' || role === 'viewer' ? ASKS[role] : ASKS.any;
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
  if (message.type === 'verification') return renderVerification(message, options);
  const documentName = oneLine(message.documentName) || 'Untitled document';
  // "Ada Lovelace <ada@example.com>" when the owner gave a name (CONTRACT §2), else the address.
  const owner = oneLine(nameAndAddress(message.ownerName === undefined || message.ownerName === null ? null : oneLine(message.ownerName), message.ownerEmail));
  const ask = askOf(message.role);
  const quotedName = `"${documentName}"`;
  const greeting = message.to.name !== null && oneLine(message.to.name) !== '' ? `Hello ${oneLine(message.to.name)},` : 'Hello,';
  const expiry = message.expiresAt === null ? null : formatTime(message.expiresAt);
  const link = options.signingLink;
  const facts: [string, string][] = [
    ['Document', documentName],
    ['Envelope ID', message.envelopeId],
    ['Sent by', owner],
    ...(expiry === null || !['invitation', 'reminder'].includes(message.type) ? [] : [['Expires', expiry] as [string, string]]),
  ];
  const personalLink = 'This link is personal: please do not forward it.';

  let subject: string;
  let blocks: Block[];
  switch (message.type) {
    case 'invitation':
      subject = `${ask.subject}: ${documentName}`;
      blocks = [
        { kind: 'paragraph', text: greeting },
        {
          kind: 'paragraph',
          text:
            ask === ASKS.any
              ? `${owner} has sent you the document ${quotedName}. Open it to review it and complete your part (sign, approve or confirm that you have read it, as asked).`
              : `${owner} asks you to ${ask.verb} ${quotedName}.`,
        },
        { kind: 'link', label: ask.button, url: requireLink(link, message) },
        { kind: 'paragraph', text: `${personalLink}${expiry === null ? '' : ` The envelope expires on ${expiry}.`}` },
      ];
      break;
    case 'reminder':
      subject = `Reminder: ${ask.subject.charAt(0).toLowerCase()}${ask.subject.slice(1)}: ${documentName}`;
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: ask === ASKS.any ? `${owner} is still waiting for you to complete your part of ${quotedName}.` : `${owner} is still waiting for you to ${ask.verb} ${quotedName}.` },
        { kind: 'link', label: ask.button, url: requireLink(link, message) },
        { kind: 'paragraph', text: `${personalLink}${expiry === null ? '' : ` The envelope expires on ${expiry}.`}` },
      ];
      break;
    case 'completed':
      subject = `Completed: ${documentName}`;
      blocks =
        message.recipientId === null
          ? [
              { kind: 'paragraph', text: greeting },
              { kind: 'paragraph', text: `Every recipient has acted on ${quotedName}: the envelope is completed and the document is sealed.` },
              { kind: 'paragraph', text: 'Download the sealed PDF from the envelope in the console (after logging in) or through the API.' },
              { kind: 'link', label: 'Open the envelope in the console', url: consoleEnvelopeLink(options.publicBaseUrl, message.envelopeId) },
            ]
          : [
              { kind: 'paragraph', text: greeting },
              { kind: 'paragraph', text: `Every recipient has acted on ${quotedName}, which ${owner} sent you: the envelope is completed and the document is sealed.` },
              ...(link === null
                ? [{ kind: 'paragraph', text: `Ask ${owner} for a copy of the sealed PDF.` } as Block]
                : [
                    { kind: 'link', label: 'Download the sealed PDF', url: link } as Block,
                    { kind: 'paragraph', text: `${personalLink} It works for 30 days.` } as Block,
                  ]),
            ];
      break;
    case 'declined': {
      const who = message.declinedBy !== null && oneLine(message.declinedBy) !== '' ? oneLine(message.declinedBy) : 'A recipient';
      subject = `Declined: ${documentName}`;
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: `${who} declined ${quotedName}. The envelope is closed: nobody can act on it any more.` },
        { kind: 'paragraph', text: 'The reason given:' },
        { kind: 'quote', text: multiLine(message.reason ?? '') || '(none)' },
      ];
      break;
    }
    case 'voided':
      subject = `Voided: ${documentName}`;
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: `${owner} has voided ${quotedName}. Nothing more is needed from you, and the link you received no longer lets anyone act on it.` },
      ];
      break;
    case 'otp':
      subject = `Your code for ${documentName}`;
      blocks = [
        { kind: 'paragraph', text: greeting },
        { kind: 'paragraph', text: `Your code to open ${quotedName}, which ${owner} sent you:` },
        { kind: 'quote', text: requireCode(options.oneTimeCode ?? null, message) },
        { kind: 'paragraph', text: 'It works once, for 10 minutes. Nobody from the sender or this service will ever ask you for it: do not share it.' },
      ];
      break;
    case 'expired':
      subject = `Expired: ${documentName}`;
      blocks = [
        { kind: 'paragraph', text: greeting },
        {
          kind: 'paragraph',
          text: `${quotedName} expired${expiry === null ? '' : ` on ${expiry}`} before every recipient had acted. The envelope is closed; send the document again in a new envelope if it is still needed.`,
        },
      ];
      break;
  }
  blocks.push({ kind: 'facts', rows: facts });
  blocks.push({
    kind: 'paragraph',
    text:
      message.recipientId === null
        ? 'You receive this e-mail because you own this envelope.'
        : `You receive this e-mail because ${owner} named you as a recipient of this envelope. If you did not expect it, you can ignore it.`,
  });
  const safeSubject = oneLine(subject);
  return { subject: safeSubject, text: toText(blocks), html: toHtml(safeSubject, blocks) };
}

/**
 * The e-mail that verifies an owner's address (no envelope): `options.signingLink` carries its
 * verification link.
 */
function renderVerification(message: EmailMessage, options: RenderEmailOptions): RenderedEmail {
  const expiry = message.expiresAt === null ? null : formatTime(message.expiresAt);
  const subject = 'Verify your e-mail address';
  const blocks: Block[] = [
    { kind: 'paragraph', text: 'Hello,' },
    { kind: 'paragraph', text: `Someone (we hope you) created an account with the envelope signing service for ${oneLine(message.to.email)}. Confirm that this address is yours, so that you can send documents for signature in its name.` },
    { kind: 'link', label: 'Verify my e-mail address', url: requireLink(options.signingLink, message) },
    { kind: 'paragraph', text: `The link works once or more until ${expiry ?? 'it expires'}. If you did not create this account, ignore this e-mail: nothing will be sent in your name.` },
  ];
  return { subject, text: toText(blocks), html: toHtml(subject, blocks) };
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

/** `31 January 2026 at 17:00 UTC` from an ISO 8601 timestamp (the original text if unparsable). */
export function formatTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return oneLine(iso);
  return `${new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(date)} UTC`;
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

function toHtml(subject: string, blocks: Block[]): string {
  const body = blocks
    .map((block) => {
      switch (block.kind) {
        case 'paragraph':
          return `<p style="margin:0 0 16px">${escapeHtml(block.text)}</p>`;
        case 'link': {
          const href = escapeHtml(block.url);
          return (
            `<p style="margin:0 0 8px"><a href="${href}" style="display:inline-block;padding:10px 18px;background:#0b57d0;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:600">${escapeHtml(block.label)}</a></p>` +
            `<p style="margin:0 0 16px;font-size:13px;color:#57606a">Or open this address: <a href="${href}" style="color:#0b57d0;word-break:break-all">${href}</a></p>`
          );
        }
        case 'quote':
          return `<blockquote style="margin:0 0 16px;padding:8px 12px;border-left:3px solid #d0d7de;color:#57606a">${escapeHtml(block.text).replace(/\n/g, '<br>')}</blockquote>`;
        case 'facts':
          return (
            '<table role="presentation" style="border-collapse:collapse;margin:0 0 16px;font-size:13px">' +
            block.rows.map(([label, value]) => `<tr><th scope="row" style="text-align:left;padding:2px 12px 2px 0;color:#57606a;font-weight:normal">${escapeHtml(label)}</th><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`).join('') +
            '</table>'
          );
      }
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#ffffff">
<div style="${FONT};max-width:600px">
${body}
</div>
</body>
</html>
`;
}
