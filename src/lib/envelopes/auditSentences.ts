/**
 * The audit trail as a person reads it on the certificate of completion: one sentence per event,
 * naming who did what to whom ("Invitation e-mailed to landlord@example.com, after
 * tenant@example.com signed."), built from the event's type, actor and details. The raw event type
 * stays beside it in small print; an event type this module does not know reads as its type. The
 * words come from the `certificate` catalogue of the envelope's locale (docs/languages.md).
 */
import { DEFAULT_LOCALE, formatTimestamp, translate } from '../i18n/index.js';
import type { MessageValues } from '../i18n/index.js';
import { isEmbedded, type AuditEvent, type Delivery, type SignerRole } from './model.js';

/** What a sentence may name besides the event itself: the envelope's owner and its recipients. */
export interface SentenceContext {
  ownerId: string;
  ownerEmail: string | null;
  recipients: readonly { id: string; email: string; name: string; role: SignerRole; delivery?: Delivery | Delivery[] }[];
}

/** An audit event as far as its sentence needs it; any type (an unknown one reads as its type). */
export type EventLike = Pick<AuditEvent, 'actorId' | 'actorEmail' | 'details'> & { type: string };

/** A recipient's action, from its event type: the `action` a sentence's ICU `select` takes. */
const ACTED: Record<string, 'signed' | 'approved' | 'viewed'> = {
  'recipient.signed': 'signed',
  'recipient.approved': 'approved',
  'recipient.viewed': 'viewed',
};

/**
 * One sentence per event, in the order given (each may refer to an earlier one: an invitation that
 * follows a recipient's action says after whose action it went out), in `locale` (docs/languages.md; the
 * `certificate` catalogue, default English).
 * @returns one sentence for each event, ending with a full stop
 */
export function describeAuditTrail(events: readonly EventLike[], context: SentenceContext, locale: string = DEFAULT_LOCALE): string[] {
  const t = (key: string, values?: MessageValues): string => translate(locale, 'certificate', key, values);
  const lastActionBy = new Map<string, string>();
  return events.map((event) => {
    const sentence = describeEvent(event, context, lastActionBy, t, locale);
    const acted = ACTED[event.type];
    if (acted !== undefined && event.actorId !== null) lastActionBy.set(event.actorId, acted);
    return sentence;
  });
}

type T = (key: string, values?: MessageValues) => string;

function describeEvent(event: EventLike, context: SentenceContext, lastActionBy: Map<string, string>, t: T, locale: string): string {
  const details = event.details;
  const actor = actorName(event, context, t);
  const byOwner = event.actorId === context.ownerId;
  const recipient = recipientEmail(details.recipientId, details.email, context, t);
  switch (event.type) {
    case 'envelope.created':
      return t('event.created', { actor, document: text(details.documentName) });
    case 'envelope.signers_replaced': {
      const added = emails(details.added);
      const removed = emails(details.removed);
      const parts = [added.length > 0 ? t('change.added', { emails: added.join(', ') }) : null, removed.length > 0 ? t('change.removed', { emails: removed.join(', ') }) : null].filter((part) => part !== null);
      return parts.length > 0 ? t('event.signersReplacedDetails', { actor, changes: parts.join('; ') }) : t('event.signersReplaced', { actor });
    }
    case 'envelope.fields_replaced':
      return t('event.fieldsReplaced', { actor, count: typeof details.count === 'number' ? details.count : 0 });
    case 'envelope.document_added':
      return t('event.documentAdded', { actor, document: text(details.name) });
    case 'envelope.document_changed':
      return t('event.documentChanged', { actor, document: text(details.name), order: typeof details.order === 'number' ? details.order : 1 });
    case 'envelope.document_removed':
      return t('event.documentRemoved', { actor, document: text(details.name) });
    case 'envelope.settings_changed': {
      const changes = Object.entries(details).map(([name, value]) => setting(name, value, t, locale));
      return changes.length > 0 ? t('event.settingsChangedDetails', { actor, changes: changes.join(', ') }) : t('event.settingsChanged', { actor });
    }
    case 'envelope.sent': {
      if (typeof details.pageCount !== 'number' || typeof details.documentSha256 !== 'string') return t('event.sentPlain', { actor });
      const facts = { actor, pages: details.pageCount, sha256: details.documentSha256.slice(0, 16) };
      return Array.isArray(details.removed) && details.removed.length > 0 ? t('event.sentCleaned', { ...facts, removed: details.removed.join(', ') }) : t('event.sent', facts);
    }
    case 'recipient.invited': {
      if (details.resend === true) return t('event.invitedAgain', { recipient, actor });
      const after = !byOwner && event.actorId !== null && event.actorId !== 'system' ? lastActionBy.get(event.actorId) : undefined;
      // An embedded recipient gets no e-mail: its turn comes in the owner's application (docs/api.md#embedded-signing).
      const invited = context.recipients.find((candidate) => candidate.id === details.recipientId);
      if (invited !== undefined && isEmbedded(invited)) {
        return after === undefined ? t('event.turnEmbedded', { recipient }) : t('event.turnEmbeddedAfter', { recipient, actor, action: after });
      }
      return after === undefined ? t('event.invited', { recipient }) : t('event.invitedAfter', { recipient, actor, action: after });
    }
    case 'recipient.reminded':
      return t('event.reminded', { recipient });
    case 'recipient.opened':
      // Events recorded before they named their credential say only that the recipient opened it.
      if (details.credential === 'signingLink') return t('event.openedLink', { recipient });
      if (details.credential === 'embeddedView') return t('event.openedView', { recipient });
      return t('event.opened', { recipient });
    case 'recipient.authenticated':
      return t(codeSentence('event.authenticated', details), { recipient });
    case 'recipient.authentication_failed':
      return t(codeSentence('event.authenticationFailed', details), { recipient });
    case 'recipient.sms_opted_out':
      return t('event.smsOptedOut', { recipient, phone: text(details.phone) });
    case 'recipient.signed':
    case 'recipient.approved':
    case 'recipient.viewed': {
      const consent = details.consent as { version?: unknown } | undefined;
      const action = ACTED[event.type]!;
      return typeof consent?.version === 'string' ? t('event.actedConsent', { recipient, action, version: consent.version }) : t('event.acted', { recipient, action });
    }
    case 'recipient.declined':
      return typeof details.reason === 'string' ? t('event.declinedReason', { recipient, reason: text(details.reason) }) : t('event.declined', { recipient });
    case 'recipient.view_created':
      return t('event.viewCreated', { recipient, actor });
    case 'recipient.reassigned': {
      const to = context.recipients.find((candidate) => candidate.id === details.newRecipientId);
      const newcomer = to === undefined ? text(details.email) : `${to.name} <${to.email}>`;
      // `details.email` is the new recipient's: the one who handed on is named by its id.
      const from = recipientEmail(details.recipientId, undefined, context, t);
      return typeof details.reason === 'string' ? t('event.reassignedReason', { from, to: newcomer, reason: text(details.reason) }) : t('event.reassigned', { from, to: newcomer });
    }
    case 'envelope.declined':
      return t('event.envelopeDeclined', { recipient });
    case 'envelope.expired':
      return t('event.expired');
    case 'envelope.voided':
      return t('event.voided', { actor });
    case 'envelope.completed':
      return t('event.completed');
    case 'envelope.purged':
      return t('event.purged', { actor });
    case 'envelope.owner_changed':
      return t('event.ownerChanged', { actor, from: ownerEmail(details.from), to: ownerEmail(details.to) });
    default:
      return t('event.other', { type: event.type, actor });
  }
}

/**
 * The key of an authentication sentence: the access code, a one-time code e-mailed, or one sent by
 * text message (its `channel`; events recorded before it was named were e-mailed codes).
 */
function codeSentence(prefix: 'event.authenticated' | 'event.authenticationFailed', details: Record<string, unknown>): string {
  if (details.method === 'accessCode') return `${prefix}AccessCode`;
  return details.channel === 'sms' ? `${prefix}Sms` : `${prefix}EmailOtp`;
}

/** Who did it: the recipient's or the owner's e-mail address, or "the service" for the sweeper. */
function actorName(event: EventLike, context: SentenceContext, t: T): string {
  if (event.actorId === 'system' || (event.actorId === null && event.actorEmail === null)) return t('actor.service');
  if (event.actorEmail !== null) return event.actorEmail;
  if (event.actorId === context.ownerId && context.ownerEmail !== null) return context.ownerEmail;
  return context.recipients.find((recipient) => recipient.id === event.actorId)?.email ?? t('actor.service');
}

/** The recipient an event names, by its e-mail address (as recorded, else as the envelope has it). */
function recipientEmail(recipientId: unknown, email: unknown, context: SentenceContext, t: T): string {
  if (typeof email === 'string') return email;
  const found = context.recipients.find((recipient) => recipient.id === recipientId);
  return found?.email ?? t('recipient.unknown');
}

/** A changed setting in words ("signing order set to sequential"); an unknown one by its name. */
function setting(name: string, value: unknown, t: T, locale: string): string {
  switch (name) {
    case 'signingOrder':
      return t('setting.signingOrder', { value: String(value) });
    case 'expiresAt':
      return value === null ? t('setting.noExpiry') : t('setting.expiresAt', { value: typeof value === 'string' ? formatTimestamp(locale, value) : String(value) });
    case 'remindEveryDays':
      return value === null ? t('setting.noReminders') : t('setting.remindEveryDays', { days: typeof value === 'number' ? value : Number(value) });
    case 'locale':
      return t('setting.locale', { language: languageName(locale, value) });
    case 'allowReassign':
      return value === true ? t('setting.reassignAllowed') : t('setting.reassignNotAllowed');
    default:
      return t('setting.other', { name, value: value === null ? t('setting.none') : String(value) });
  }
}

/** A language by its own name in `locale` and its tag: `German (de)`; the tag alone when Intl has no name. */
export function languageName(locale: string, tag: unknown): string {
  const value = String(tag);
  try {
    const name = new Intl.DisplayNames([locale === DEFAULT_LOCALE ? 'en' : locale], { type: 'language' }).of(value);
    return name === undefined || name === value ? value : `${name} (${value})`;
  } catch {
    return value;
  }
}

/** The address of a former or new owner as `envelope.owner_changed` records it (`{userId, email}`). */
function ownerEmail(owner: unknown): string {
  return typeof owner === 'object' && owner !== null && typeof (owner as { email?: unknown }).email === 'string' ? (owner as { email: string }).email : '?';
}

function emails(list: unknown): string[] {
  return Array.isArray(list) ? list.map((entry: { email?: unknown }) => (typeof entry?.email === 'string' ? entry.email : '?')) : [];
}

/** A text someone typed, as one line. */
function text(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
}
