/**
 * The audit trail as a person reads it on the certificate of completion: one sentence per event,
 * naming who did what to whom ("Invitation e-mailed to landlord@example.com, after
 * tenant@example.com signed."), built from the event's type, actor and details. The raw event type
 * stays beside it in small print; an event type this module does not know reads as its type.
 */
import type { AuditEvent, SignerRole } from './model.js';

/** What a sentence may name besides the event itself: the envelope's owner and its recipients. */
export interface SentenceContext {
  ownerId: string;
  ownerEmail: string | null;
  recipients: readonly { id: string; email: string; name: string; role: SignerRole }[];
}

/** An audit event as far as its sentence needs it; any type (an unknown one reads as its type). */
export type EventLike = Pick<AuditEvent, 'actorId' | 'actorEmail' | 'details'> & { type: string };

/** The past tense of a recipient's action, from its event type. */
const ACTED: Record<string, string> = {
  'recipient.signed': 'signed',
  'recipient.approved': 'approved',
  'recipient.viewed': 'confirmed having read it',
};

/**
 * One sentence per event, in the order given (each may refer to an earlier one: an invitation that
 * follows a recipient's action says after whose action it went out).
 * @returns one sentence for each event, ending with a full stop
 */
export function describeAuditTrail(events: readonly EventLike[], context: SentenceContext): string[] {
  const lastActionBy = new Map<string, string>();
  return events.map((event) => {
    const sentence = describeEvent(event, context, lastActionBy);
    const acted = ACTED[event.type];
    if (acted !== undefined && event.actorId !== null) lastActionBy.set(event.actorId, acted);
    return sentence;
  });
}

function describeEvent(event: EventLike, context: SentenceContext, lastActionBy: Map<string, string>): string {
  const details = event.details;
  const actor = actorName(event, context);
  const byOwner = event.actorId === context.ownerId;
  const recipient = recipientEmail(details.recipientId, details.email, context);
  switch (event.type) {
    case 'envelope.created':
      return `Envelope created by ${actor} for the document "${text(details.documentName)}".`;
    case 'envelope.signers_replaced': {
      const added = emails(details.added);
      const removed = emails(details.removed);
      const parts = [added.length > 0 ? `added ${added.join(', ')}` : null, removed.length > 0 ? `removed ${removed.join(', ')}` : null].filter((part) => part !== null);
      return `Recipients changed by ${actor}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}.`;
    }
    case 'envelope.fields_replaced': {
      const count = typeof details.count === 'number' ? details.count : 0;
      return `${count} ${count === 1 ? 'field' : 'fields'} placed by ${actor}.`;
    }
    case 'envelope.settings_changed': {
      const changes = Object.entries(details).map(([name, value]) => setting(name, value));
      return `Settings changed by ${actor}${changes.length > 0 ? `: ${changes.join(', ')}` : ''}.`;
    }
    case 'envelope.sent':
      return `Envelope sent by ${actor}${typeof details.pageCount === 'number' ? ` with the ${details.pageCount}-page document` : ''}${typeof details.documentSha256 === 'string' ? ` (SHA-256 ${details.documentSha256.slice(0, 16)}…)` : ''}${
        Array.isArray(details.removed) && details.removed.length > 0 ? `; active content removed from the document: ${details.removed.join(', ')}` : ''
      }.`;
    case 'recipient.invited': {
      if (details.resend === true) return `Invitation e-mailed again to ${recipient}, with a new signing link, at the request of ${actor}.`;
      const after = !byOwner && event.actorId !== null && event.actorId !== 'system' ? lastActionBy.get(event.actorId) : undefined;
      return `Invitation e-mailed to ${recipient}${after === undefined ? '' : `, after ${actor} ${after}`}.`;
    }
    case 'recipient.reminded':
      return `Reminder e-mailed to ${recipient}.`;
    case 'recipient.opened':
      return `${recipient} opened the envelope.`;
    case 'recipient.authenticated':
      return `${recipient} entered the right ${details.method === 'emailOtp' ? 'one-time code e-mailed to them' : 'access code'}.`;
    case 'recipient.authentication_failed':
      return `${recipient} entered a wrong ${details.method === 'emailOtp' ? 'one-time code' : 'access code'}.`;
    case 'recipient.signed':
    case 'recipient.approved':
    case 'recipient.viewed': {
      const consent = details.consent as { version?: unknown } | undefined;
      const agreed = typeof consent?.version === 'string' ? `, agreeing to do so electronically (disclosure ${consent.version})` : '';
      return `${recipient} ${ACTED[event.type]}${agreed}.`;
    }
    case 'recipient.declined':
      return `${recipient} declined${typeof details.reason === 'string' ? `, giving the reason "${text(details.reason)}"` : ''}.`;
    case 'envelope.declined':
      return `Envelope declined, as ${recipient} declined.`;
    case 'envelope.expired':
      return 'Envelope expired before everyone had acted.';
    case 'envelope.voided':
      return `Envelope voided by ${actor}.`;
    case 'envelope.completed':
      return 'Envelope completed: the document and this certificate were sealed.';
    case 'envelope.purged':
      return `Documents deleted by ${actor}; the envelope's details, this trail and the sealed PDF's SHA-256 were kept.`;
    default:
      return `${event.type} by ${actor}.`;
  }
}

/** Who did it: the recipient's or the owner's e-mail address, or "the service" for the sweeper. */
function actorName(event: EventLike, context: SentenceContext): string {
  if (event.actorId === 'system' || (event.actorId === null && event.actorEmail === null)) return 'the service';
  if (event.actorEmail !== null) return event.actorEmail;
  if (event.actorId === context.ownerId && context.ownerEmail !== null) return context.ownerEmail;
  return context.recipients.find((recipient) => recipient.id === event.actorId)?.email ?? 'the service';
}

/** The recipient an event names, by its e-mail address (as recorded, else as the envelope has it). */
function recipientEmail(recipientId: unknown, email: unknown, context: SentenceContext): string {
  if (typeof email === 'string') return email;
  const found = context.recipients.find((recipient) => recipient.id === recipientId);
  return found?.email ?? 'a recipient';
}

/** A changed setting in words ("signing order set to sequential"); an unknown one by its name. */
function setting(name: string, value: unknown): string {
  switch (name) {
    case 'signingOrder':
      return `signing order set to ${String(value)}`;
    case 'expiresAt':
      return value === null ? 'no expiry date' : `expiry set to ${String(value)}`;
    case 'remindEveryDays':
      return value === null ? 'no reminders' : `reminders every ${String(value)} ${value === 1 ? 'day' : 'days'}`;
    default:
      return `${name} set to ${value === null ? 'none' : String(value)}`;
  }
}

function emails(list: unknown): string[] {
  return Array.isArray(list) ? list.map((entry: { email?: unknown }) => (typeof entry?.email === 'string' ? entry.email : '?')) : [];
}

/** A text someone typed, as one line. */
function text(value: unknown): string {
  return typeof value === 'string' ? value.replace(/\s+/g, ' ').trim() : '';
}
