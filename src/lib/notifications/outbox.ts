/**
 * The transactional outbox (docs/api.md#e-mail, docs/api.md#webhooks): what a change must tell people (e-mails) and the
 * owner's systems (webhook events) is written in the same entity-group transaction as the change
 * itself, as one outbox batch row beside the envelope (table `envelopes`, PartitionKey = ownerId,
 * RowKey `outbox_<batchId>`). After the transaction commits, the batch is dispatched: one Azure
 * Storage queue message per message of the batch. A process that dies in between loses nothing: the
 * sweeper re-queues batches still undispatched after 1 minute.
 *
 * One batch per request keeps the transaction within Table Storage's 100 entities whatever the
 * number of recipients (a parallel send to 100 signers is one batch of 100 invitations).
 *
 * These are the shapes the domain (envelopes, recipients) produces; `src/lib/notifications` stores,
 * dispatches and sends them.
 */

import type { SignerRole } from '../envelopes/model.js';
import type { Locale } from '../i18n/locales.js';

/** E-mail types (docs/api.md#e-mail). */
/**
 * E-mail types (docs/api.md#e-mail), `verification`: the link that verifies an owner's address (no
 * envelope), and `organizationInvitation`: an invitation to an organization (no envelope,
 * docs/api.md#invitations-to-an-organization).
 */
export const EMAIL_TYPES = ['invitation', 'reminder', 'completed', 'declined', 'voided', 'expired', 'verification', 'otp', 'organizationInvitation'] as const;
export type EmailType = (typeof EMAIL_TYPES)[number];

/** One e-mail to send. Everything the e-mail says is captured at the time of the change. */
export interface EmailMessage {
  kind: 'email';
  type: EmailType;
  envelopeId: string;
  /** The recipient it goes to, or `null` for the owner. Its `lastEmail` follows this e-mail. */
  recipientId: string | null;
  to: { email: string; name: string | null };
  documentName: string;
  ownerEmail: string;
  /** The owner's display name, or `null` (absent in rows written before names existed). */
  ownerName?: string | null;
  /** The role of the recipient it goes to (absent or `null`: the owner, or a row written before roles were captured). */
  role?: SignerRole | null;
  /** The envelope's `expiresAt` when the e-mail was written, or `null`. */
  expiresAt: string | null;
  /** The decline reason (`declined`) or the owner's reason for voiding (`voided`, when given), else `null`. */
  reason: string | null;
  /** The recipient's name who declined (`declined`), else `null`. */
  declinedBy: string | null;
  /**
   * The salt of the recipient's signing link, for e-mails that carry the link (invitation, reminder,
   * a recipient's completed e-mail); the sender derives the token (`envelopes/signingLinks.ts`) and
   * records the link before sending. `null` for e-mails without a link.
   */
  linkSalt: string | null;
  /**
   * `otp` (a recipient's one-time code, docs/api.md#signer-authentication): the salt the code derives from
   * (`recipients/authentication.ts`); the sender derives the code when it writes the e-mail, so the
   * row never holds the code. Absent or `null` otherwise.
   */
  otpSalt?: string | null;
  /**
   * `organizationInvitation`: the invitation's id, from which the sender derives its token
   * (`auth/organizationInvitationTokens.ts`), so the row never holds the token; and the organization's
   * name. Absent otherwise.
   */
  organizationInvitation?: { id: string; organizationName: string };
  /**
   * The language it is written in (docs/languages.md): the recipient's `locale` (default the envelope's),
   * the envelope's for the owner. Absent in rows written before languages: English.
   */
  locale?: Locale;
}

/** Text message types that carry the signing link (docs/api.md#sms): when the recipient's turn comes (and on resend), and its reminders. */
export const SMS_TYPES = ['invitation', 'reminder'] as const;
export type SmsType = (typeof SMS_TYPES)[number];

/**
 * Every text message type: those of {@link SMS_TYPES}, and `otp`, the one-time code of a recipient
 * with `sms` authentication (docs/api.md#signer-authentication), which carries no link.
 */
export type SmsMessageType = SmsType | 'otp';

/**
 * One text message to send (docs/api.md#sms), to a recipient whose delivery includes `sms` (or, for a
 * one-time code, whose authentication is `sms`). Like an
 * e-mail, everything it says is captured at the time of the change; the sender derives the signing
 * link from the salt, so the row never holds a token.
 */
export interface SmsMessage {
  kind: 'sms';
  type: SmsMessageType;
  envelopeId: string;
  /** The recipient it goes to; its `lastSms` follows this message. */
  recipientId: string;
  /** The recipient's number, E.164 (docs/api.md#phone-numbers). */
  to: string;
  documentName: string;
  /** Who sends the envelope, as the text names it: the owner's display name, else its address. */
  senderName: string;
  /** The salt of the recipient's signing link (`envelopes/signingLinks.ts`); `null` for `otp`, which carries no link. */
  linkSalt: string | null;
  /**
   * `otp`: the salt the code derives from (`recipients/oneTimeCodes.ts`); the sender derives the code
   * when it writes the text, so the row never holds the code. Absent otherwise.
   */
  otpSalt?: string;
  /** The recipient's language (docs/languages.md). */
  locale: Locale;
}

/** Webhook event types (docs/api.md#webhooks). */
export const WEBHOOK_EVENT_TYPES = [
  'envelope.sent',
  'envelope.completed',
  'envelope.declined',
  'envelope.voided',
  'envelope.expired',
  'envelope.purged',
  'recipient.opened',
  'recipient.signed',
  'recipient.approved',
  'recipient.viewed',
  'recipient.declined',
  'recipient.reassigned',
  // A bulk job ended (docs/api.md#bulk-send): completed or cancelled.
  'bulk.completed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The body of a webhook event (docs/api.md#webhooks), exactly as delivered. Never a token or a SAS URL. */
export interface WebhookEventBody {
  /** UUID, the same across retries (`webhook-id`). */
  id: string;
  type: WebhookEventType;
  createdAt: string;
  /**
   * The organisation the envelope belongs to (docs/api.md#events). Absent only on events
   * queued before organisations: the fan-out then finds it from the envelope's owner.
   */
  organizationId?: string;
  /** The member who acted (the owner, or an admin through the API); absent for a recipient or the system. */
  actor?: { userId: string; email: string };
  data: {
    /** The envelope's id; absent on `bulk.completed`, which is about a job. */
    envelopeId?: string;
    /** The envelope's status right after the event; a job's (`completed` or `cancelled`) on `bulk.completed`. */
    status: string;
    /** `bulk.completed` (docs/api.md#bulk-send): the job, its template and its final counts. */
    bulkJobId?: string;
    templateId?: string;
    total?: number;
    created?: number;
    failed?: number;
    recipient?: { id: string; email: string; name: string; role: string; status: string };
    hash?: string;
    reason?: string;
    /** `envelope.sent`: SHA-256 of the frozen document. */
    documentSha256?: string;
    /** `envelope.sent`: SHA-256 of the bytes as uploaded, `null` when not known (docs/api.md#webhooks). */
    uploadSha256?: string | null;
  };
}

/** One event for the organisation's webhooks; fanned out to each subscribed webhook when dispatched. */
export interface WebhookEventMessage {
  kind: 'event';
  event: WebhookEventBody;
}

export type OutboxMessage = EmailMessage | SmsMessage | WebhookEventMessage;

/** What one request must tell: written with the change, in its transaction. */
export interface OutboxBatch {
  /** UUIDv7. */
  id: string;
  ownerId: string;
  envelopeId: string;
  createdAt: string;
  messages: OutboxMessage[];
}
