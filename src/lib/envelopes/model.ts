/**
 * The envelope as the domain sees it (docs/api.md#the-envelope, docs/api.md#the-recipients-api) and as responses show it.
 *
 * What is stored but never shown: a recipient's signing link (salt and token hash), when it was
 * invited, how many reminders it had, the outbox batch of its newest e-mail; the owner's e-mail; when
 * the envelope reached a final status. A recipient's submitted values, adopted signature, IP and user
 * agent live in its action row (`RecipientAction`, `storage/envelopeRepository.ts`), not here.
 */
import { DEFAULT_LOCALE } from '../i18n/locales.js';
import type { Locale } from '../i18n/locales.js';
import type { FieldType, SignatureValue } from '../pdf/types.js';
import type { Role } from '../organizations/roles.js';

export const ENVELOPE_STATUSES = ['draft', 'sent', 'completed', 'declined', 'expired', 'voided'] as const;
export type EnvelopeStatus = (typeof ENVELOPE_STATUSES)[number];

/** Statuses nothing can leave (docs/api.md#lifecycle). */
export const FINAL_STATUSES: readonly EnvelopeStatus[] = ['completed', 'declined', 'expired', 'voided'];

export const SIGNER_ROLES = ['signer', 'approver', 'viewer', 'cc'] as const;
export type SignerRole = (typeof SIGNER_ROLES)[number];

/** A recipient's status (docs/api.md#recipients). */
export const RECIPIENT_STATUSES = ['created', 'waiting', 'sent', 'opened', 'signed', 'approved', 'viewed', 'declined', 'reassigned'] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/**
 * Statuses of a recipient who has acted: nothing more is asked of it. `reassigned` (docs/api.md#reassignment)
 * is final too and blocks nothing: the recipient it handed its part to acts instead.
 */
export const ACTED_STATUSES: readonly RecipientStatus[] = ['signed', 'approved', 'viewed', 'declined', 'reassigned'];

/**
 * How a recipient's signing link reaches it (docs/api.md#delivery): by e-mail, by text message (SMS,
 * docs/api.md#sms), or through the owner's application (embedded views, docs/api.md#embedded-signing).
 * A recipient's `delivery` is a list of them: `["email"]`, `["sms"]`, `["email", "sms"]` or `["embedded"]`.
 */
export const DELIVERIES = ['email', 'sms', 'embedded'] as const;
export type Delivery = (typeof DELIVERIES)[number];

/** The newest text message to a recipient (docs/api.md#lastsms). */
export interface LastSms {
  /** `sent` once Communication Services accepted it, `delivered` once the carrier reported it delivered, `failed` after the last retry. */
  status: 'sent' | 'delivered' | 'failed';
  /** ISO 8601 UTC with milliseconds: when it reached this status. */
  at: string;
  /** Why it failed, when known (the service's answer, shortened; `quota` for a text past the organisation's daily quota, docs/api.md#lastsms). */
  reason?: string;
  /** The outbox batch that carried it (internal: never shown). */
  batchId?: string;
}

/**
 * What completion seals (docs/api.md#several-documents): `separate`, each document as its own sealed
 * PDF with the certificate appended; `combined`, one PDF of every document in order, then the certificate.
 */
export const OUTPUTS = ['separate', 'combined'] as const;
export type Output = (typeof OUTPUTS)[number];

export const SIGNING_ORDERS = ['parallel', 'sequential'] as const;
export type SigningOrder = (typeof SIGNING_ORDERS)[number];

export const FIELD_TYPES = ['signature', 'initials', 'date_signed', 'name', 'email', 'text', 'checkbox', 'number', 'date', 'dropdown', 'attachment', 'image'] as const satisfies readonly FieldType[];

/** The newest e-mail to a recipient (docs/api.md#recipients `lastEmail`). */
export interface LastEmail {
  type: 'invitation' | 'reminder' | 'completed' | 'voided';
  /** `queued` when written to the outbox, `sent` once the mail server accepted it, `failed` after the last retry. */
  status: 'queued' | 'sent' | 'failed';
  /** ISO 8601 UTC with milliseconds: when it reached this status. */
  at: string;
  /** The outbox batch that carries it (internal: never shown). */
  batchId: string;
  /**
   * Why it `failed` when it was never sent: `quota`, past the owner's daily e-mail quota
   * (`docs/api.md#lastemail`). Absent otherwise.
   */
  reason?: 'quota';
}

/**
 * A recipient's current signing link (docs/api.md#sending-and-signing-order; `recipients/signingLinks.ts`): the salt the
 * token derives from, and the token's SHA-256, the only token that works for this recipient.
 */
export interface SigningLinkState {
  salt: string;
  tokenSha256: string;
}

/** A recipient of the envelope. `recipientId` always equals `id` in responses (docs/api.md#the-envelope). */
export interface Signer {
  id: string;
  email: string;
  name: string;
  role: SignerRole;
  /** 1 to 100; recipients with the same number act together in `sequential` order (docs/api.md#sending-and-signing-order). */
  routingOrder: number;
  status: RecipientStatus;
  /** When the recipient signed, approved, viewed or declined. */
  actedAt: string | null;
  declineReason: string | null;
  lastEmail: LastEmail | null;
  /** Internal: the current link, `null` until the recipient's turn (a `cc`'s: until completion). */
  link: SigningLinkState | null;
  /** Internal: when the newest invitation was queued (reminders count from it). */
  invitedAt: string | null;
  /** Internal: reminders sent since the newest invitation. */
  remindersSent: number;
  /** Internal: the owner's resends to this recipient (docs/api.md#rate-limits-and-quotas: at most 5); absent before the first. */
  resends?: number;
  /** Internal: when the newest resend was queued (the next one waits 60 s from it); absent or `null` before the first. */
  lastResendAt?: string | null;
  /** The language of its e-mails and signing page (docs/languages.md); absent or `null`: the envelope's. */
  locale?: Locale | null;
  /**
   * How the recipient's link reaches it (docs/api.md#delivery); absent: `["email"]`. Rows written
   * before text messages hold the single word `embedded`; {@link deliveryOf} reads both.
   */
  delivery?: Delivery | Delivery[];
  /** The recipient's mobile number in E.164 (docs/api.md#phone-numbers); absent: none. */
  phone?: string;
  /** The newest text message's outcome (docs/api.md#lastsms); absent or `null` before the first was sent. */
  lastSms?: LastSms | null;
  /** Internal: the outbox batch of the newest text message queued to it; outcomes of older ones are ignored. */
  smsBatchId?: string | null;
  /** An embedded recipient's wish for the completed e-mail (docs/api.md#embedded-signing); absent: `false`. */
  notifyOnCompletion?: boolean;
  /** Internal: the recipient's current embedded signing view (`recipients/views.ts`), absent or `null` when none. */
  view?: EmbeddedViewState | null;
  /** How the recipient proves who it is beyond its link (docs/api.md#signer-authentication); absent: `none`. */
  authentication?: SignerAuthentication;
  /**
   * Internal: when the opt-out of its `phone` that this envelope's trail records began
   * (docs/api.md#opting-out-of-text-messages): `recipient.sms_opted_out` is recorded once per opt-out.
   */
  smsOptedOutAt?: string | null;
}

/**
 * A recipient's current embedded signing view (docs/api.md#embedded-signing): the SHA-256 of its token (the raw
 * token exists only in the owner's API response), when it stops working, and what the page may do.
 */
export interface EmbeddedViewState {
  /** Random UUID, not secret: the page's path `/api/sign/v/<id>`. */
  id: string;
  tokenSha256: string;
  /** ISO 8601 UTC with milliseconds: issue time + `EMBED_TOKEN_TTL_SECONDS`. */
  expiresAt: string;
}

/**
 * A recipient's authentication and its state (`recipients/authentication.ts`), kept on the recipient
 * so that the signing `GET`, which reads the envelope anyway, needs no other read. Never shown but
 * as `{method}`.
 */
export interface SignerAuthentication {
  /** `sms`: one-time codes sent by text message to the recipient's `phone` (docs/api.md#signer-authentication). */
  method: 'accessCode' | 'emailOtp' | 'sms';
  /** `accessCode`: bcrypt hash of the code (the code itself is never stored). */
  codeHash?: string;
  /** Wrong codes still allowed before the link locks (5 after a right code or a resend; 0: locked). */
  attemptsLeft: number;
  /** When the current link last proved the code (it counts for `SIGNING_AUTH_TTL_SECONDS`), or `null`. */
  verifiedAt: string | null;
  /** `emailOtp`, `sms`: salt of the current one-time code (the code derives from it with a server key), or `null` when none is pending. */
  otpSalt?: string | null;
  /** `emailOtp`, `sms`: when the current one-time code stops working. */
  otpExpiresAt?: string | null;
  /** `emailOtp`, `sms`: one-time codes sent for the current link, by either channel (at most 5). */
  otpsSent?: number;
  /** `emailOtp`, `sms`: when the newest one-time code was queued. */
  lastOtpAt?: string | null;
  /**
   * How the current one-time code went: `email`, or `sms` (an `sms` recipient's code goes by e-mail
   * when its number opted out, docs/api.md#opting-out-of-text-messages). Absent: by the method's own channel.
   */
  otpChannel?: 'email' | 'sms';
}

/**
 * One document of an envelope (docs/api.md#several-documents). An envelope stored before several
 * documents has none stored: its one document is read from the envelope's own `documentName`,
 * `blobName`, `documentSha256` and `pageCount`, with the envelope's id as its id (`documents.ts`).
 */
export interface EnvelopeDocument {
  /** The envelope's id for the document it was made with; a new UUID version 7 for each one added. */
  id: string;
  /** The name shown (the file name it was uploaded with, unless renamed). */
  name: string;
  /** 1-based position: documents are shown, signed and sealed in this order; order 1 is "the first document". */
  order: number;
  /**
   * The upload in container `documents`, the frozen copy in `originals`, the sealed PDF in `sealed`:
   * `<envelopeId>/<filename>` for the document the envelope was made with, `<envelopeId>/<documentId>/<filename>` for each one added.
   */
  blobName: string;
  /** Lower-case hex SHA-256 of the frozen copy; `null` until frozen (send). */
  sha256: string | null;
  /** Lower-case hex SHA-256 of the upload as uploaded (before cleaning); `null` until frozen, or when not known. */
  uploadSha256: string | null;
  /** Pages of the frozen copy; `null` until frozen. */
  pageCount: number | null;
  /** The kinds of active content removed when it was frozen (docs/api.md#what-the-service-removes-from-documents-and-why); absent until then. */
  removed?: string[];
}

/** A document as responses show it (docs/api.md#several-documents). */
export interface EnvelopeDocumentView {
  id: string;
  name: string;
  order: number;
  pageCount: number | null;
  sha256: string | null;
  uploadSha256: string | null;
  /** A read-only SAS URL of the upload (draft) or the frozen copy, valid 15 minutes; `null` once purged. */
  documentUrl: string | null;
}

/** A place on the document that a signer fills (docs/api.md#fields). */
export interface Field {
  id: string;
  /** The signer (role `signer`) who fills it. */
  recipientId: string;
  /**
   * The document it is on (docs/api.md#several-documents). Stored only while the envelope holds
   * more than one document; absent, and always in responses filled in: the first document.
   */
  documentId?: string;
  type: FieldType;
  /** 1-based page of its document's frozen copy. */
  page: number;
  /** Fractions 0 to 1 of the page as a viewer displays it, origin top-left. */
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  label: string | null;
  /**
   * Where the field came from, when detection made it (docs/api.md#fields-from-the-document; absent when placed by hand):
   * `textTag`, its tag's text is covered in the frozen copy when the envelope is sent, so the tag
   * never shows (docs/api.md#fields-from-the-document); `formField`, the document's form field
   * `formFieldName` is removed at sealing and the value drawn in its place.
   */
  source?: FieldSource;
  /** With `source: 'formField'`: the form field's fully qualified name. */
  formFieldName?: string;
  /** `dropdown`: the choices, 1 to 50 strings of at most 100 characters (the value is one of them). */
  options?: string[];
  /** `number`: the smallest and largest value allowed. */
  min?: number;
  max?: number;
  /** `text`: fewest and most characters (code points) of a non-empty value; `maxLength` at most 500. */
  minLength?: number;
  maxLength?: number;
  /** `text`: an RE2 regular expression the whole non-empty value must match (at most 200 characters). */
  pattern?: string;
  /** `attachment`: the media types the recipient may upload, a subset of `ATTACHMENT_TYPES` (absent: all of them; docs/api.md#files-from-signers). */
  accept?: string[];
  /** `attachment`, `image`: the largest upload, bytes, at most 10 MiB (absent: 10 MiB; docs/api.md#files-from-signers). */
  maxBytes?: number;
  /** The owner's prefilled value (not on signature, initials, date_signed, name or email): a default, or with `readOnly` fixed. */
  value?: string | boolean;
  /** `true`: the recipient sees `value` and cannot change it. Absent otherwise. */
  readOnly?: true;
}

/** How a detected field came about (docs/api.md#fields-from-the-document). */
export const FIELD_SOURCES = ['textTag', 'formField'] as const;
export type FieldSource = (typeof FIELD_SOURCES)[number];

/** Everything stored about an envelope. */
export interface EnvelopeRecord {
  id: string;
  ownerId: string;
  /**
   * Internal: the organisation the envelope belongs to, recorded when it is made (docs/api.md#what-members-share);
   * `null` or absent for an envelope made before organisations (then its owner's, recorded by its next change).
   */
  organizationId?: string | null;
  /** Internal: the owner's e-mail address, for e-mails, the signing view and the certificate. */
  ownerEmail: string | null;
  /** Internal: the owner's display name when the owner gave one, else `null` or absent; shown with `ownerEmail`. */
  ownerName?: string | null;
  status: EnvelopeStatus;
  documentName: string;
  /** `<envelopeId>/<documentName>`: the upload in container `documents`, the frozen copy in `originals`, the seal in `sealed`. */
  blobName: string;
  signers: Signer[];
  fields: Field[];
  signingOrder: SigningOrder;
  /** ISO 8601 UTC with milliseconds, or `null`. */
  expiresAt: string | null;
  /** 1 to 30, or `null`: no reminders. */
  remindEveryDays: number | null;
  /** The language of the owner's e-mails, the certificate and, by default, the recipients' (docs/languages.md); absent: `en`. */
  locale?: Locale;
  /** Lower-case hex SHA-256 of the frozen document (container `originals`); `null` while `draft`. */
  documentSha256: string | null;
  /** Pages of the frozen document; `null` while `draft`. */
  pageCount: number | null;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  completedAt: string | null;
  /** Internal: when the envelope reached a final status (signing links work for `GET` 30 days longer). */
  closedAt: string | null;
  /** Internal: the due-index entry (kind `completion`) left when a completion failed after the last action. */
  completionDueAt: string | null;
  /** Lower-case hex SHA-256 of the sealed PDF. */
  hash: string | null;
  /** Lower-case hex SHA-256 of the original document as sealed. */
  originalSha256: string | null;
  /** When the owner purged the finished envelope's documents (docs/api.md#delete-an-envelope-or-purge-its-documents); `null` otherwise. */
  purgedAt: string | null;
  /** Why the owner voided the envelope, as given (trimmed); `null` (or absent) when not voided or none was given. */
  voidedReason?: string | null;
  /** The template the envelope was made from (docs/api.md#templates), else `null` (and absent from rows written before templates). */
  templateId: string | null;
  /** The bulk job that made it (docs/api.md#bulk-send); absent otherwise. */
  bulkJobId?: string;
  /** Its bulk row's `metadata` (docs/api.md#bulk-send), `null` when the row had none; absent on envelopes not made by a bulk job. */
  metadata?: Record<string, string> | null;
  /** `publicLink`: made through a template's public link (docs/api.md#public-links); absent otherwise. */
  source?: 'publicLink';
  /** Counts every change, from 1; the ETag is derived from it. */
  version: number;
  /** Sequence number of the last audit event (docs/api.md#evidence). */
  auditSequence: number;
  /**
   * The `hash` of the event numbered {@link auditSequence}: the head of the chained audit trail
   * (docs/api.md#chained-audit-trail), which the next change's first event names as `prevHash`. Absent
   * (or `null`) on envelopes whose events were recorded before the chain: found on their first change.
   */
  auditHead?: string | null;
  /** Whether signers and approvers may hand their part to someone else (docs/api.md#reassignment); absent: `false`. */
  allowReassign?: boolean;
  /**
   * Every document, in `order` (docs/api.md#several-documents); absent on envelopes stored before
   * several documents, which hold one (read through `documents.ts` `documentsOf`). The envelope's own
   * `documentName`, `blobName`, `documentSha256` and `pageCount` always describe the first.
   */
  documents?: EnvelopeDocument[];
  /** What completion seals (docs/api.md#several-documents), a setting locked at send; absent: `separate`. */
  output?: Output;
  /**
   * Lower-case hex SHA-256 of every sealed PDF, one per sealed PDF (docs/api.md#several-documents):
   * with `separate` output each document's in order, with `combined` the one PDF's. Set at completion;
   * absent on envelopes completed before it was recorded (their one sealed PDF is `hash`).
   */
  sealedHashes?: string[];
}

/** A recipient as responses show it (docs/api.md#the-envelope). */
export interface SignerView extends Pick<Signer, 'id' | 'email' | 'name' | 'role' | 'routingOrder' | 'status' | 'actedAt' | 'declineReason'> {
  recipientId: string;
  lastEmail: { type: LastEmail['type']; status: LastEmail['status']; at: string; reason?: 'quota' } | null;
  /** How the recipient authenticates (docs/api.md#signer-authentication): the method only, never a code. */
  authentication: { method: 'none' | SignerAuthentication['method'] };
  /** docs/languages.md: `null` when unset (the envelope's applies). */
  locale: Locale | null;
  /** docs/api.md#delivery: `["email"]` (default), `["sms"]`, `["email", "sms"]` or `["embedded"]`. */
  delivery: Delivery[];
  /** docs/api.md#phone-numbers: the recipient's number in E.164; shown when it has one. */
  phone?: string;
  /** docs/api.md#lastsms: the newest text message's outcome; shown for recipients whose delivery includes `sms` (`null` before the first). */
  lastSms?: LastSms | null;
  /** docs/api.md#embedded-signing: whether an embedded recipient gets the completed e-mail; shown for embedded recipients only. */
  notifyOnCompletion?: boolean;
}

/** The envelope in every response (docs/api.md#the-envelope table). */
export interface EnvelopeView {
  id: string;
  status: EnvelopeStatus;
  ownerId: string;
  /** The owner's e-mail address (docs/api.md#what-members-share); `null` for an envelope made before it was recorded. */
  ownerEmail: string | null;
  documentName: string;
  /** `null` once the documents were purged. */
  documentUrl: string | null;
  documentSha256: string | null;
  pageCount: number | null;
  /** Every document in order (docs/api.md#several-documents); the fields above describe the first. */
  documents: EnvelopeDocumentView[];
  signers: SignerView[];
  fields: Field[];
  signingOrder: SigningOrder;
  expiresAt: string | null;
  remindEveryDays: number | null;
  locale: Locale;
  createdAt: string;
  updatedAt: string;
  sentAt: string | null;
  completedAt: string | null;
  signedUrl: string | null;
  hash: string | null;
  purgedAt: string | null;
  /** Why the owner voided it ([docs/api.md#update-an-envelope](../../../docs/api.md#update-an-envelope)), else `null`. */
  voidedReason: string | null;
  /** The template it was made from, else `null`. */
  templateId: string | null;
  /** docs/api.md#bulk-send: the job that made it; present only on envelopes a bulk job made. */
  bulkJobId?: string;
  /** docs/api.md#bulk-send: its row's `metadata` (`null`: none); present only on envelopes a bulk job made. */
  metadata?: Record<string, string> | null;
  /** docs/api.md#public-links: `publicLink` on envelopes a public link made; absent otherwise. */
  source?: 'publicLink';
  /** docs/api.md#reassignment. */
  allowReassign: boolean;
  /** docs/api.md#several-documents: `separate` (default) or `combined`. */
  output: Output;
}

/** Audit event types (docs/api.md#evidence): no others. */
export const AUDIT_EVENT_TYPES = [
  'envelope.created',
  'envelope.signers_replaced',
  'envelope.fields_replaced',
  'envelope.document_added',
  'envelope.document_changed',
  'envelope.document_removed',
  'envelope.settings_changed',
  'envelope.sent',
  'recipient.invited',
  'recipient.reminded',
  'recipient.opened',
  'recipient.authenticated',
  'recipient.authentication_failed',
  'recipient.signed',
  'recipient.approved',
  'recipient.viewed',
  'recipient.declined',
  'envelope.declined',
  'envelope.expired',
  'envelope.voided',
  'envelope.completed',
  'envelope.purged',
  'recipient.view_created',
  'recipient.reassigned',
  'envelope.owner_changed',
  'recipient.sms_opted_out',
] as const;
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number];

/** One entry of an envelope's append-only audit trail (docs/api.md#evidence). */
export interface AuditEvent {
  /** 1, 2, 3, ... per envelope, without gaps. */
  sequence: number;
  type: AuditEventType;
  at: string;
  /** The owner's userId, the recipient's id for its own action, or `system` (the sweeper). */
  actorId: string | null;
  /** The actor's e-mail address; `null` for `system`. */
  actorEmail: string | null;
  ip: string | null;
  userAgent: string | null;
  /** The API key the change was made with (docs/api.md#api-keys); `null` for an access token, a recipient or the system. */
  apiKeyId: string | null;
  details: Record<string, unknown>;
  /**
   * The envelope's organisation, recorded with the event since the audit trail was chained
   * (docs/api.md#chained-audit-trail); events recorded before have none stored (the audit API shows the envelope's).
   */
  organizationId?: string;
  /** Lower-case hex SHA-256 of the previous event (docs/api.md#chained-audit-trail); absent on events recorded before the chain, until they are read. */
  prevHash?: string;
  /** Lower-case hex SHA-256 of the event as the audit API shows it, less `hash` (docs/api.md#chained-audit-trail); absent as `prevHash`. */
  hash?: string;
}

/** An audit event as `GET /api/envelopes/{id}/audit` shows it and its chain covers (docs/api.md#chained-audit-trail). */
export type ChainedAuditEvent = AuditEvent & { organizationId: string; prevHash: string; hash: string };

/** The owner making a request, as the bearer guard found it (docs/api.md#evidence). */
export interface Actor {
  userId: string;
  email: string;
  /** Whether the owner verified its address (only verified owners send, when verification is required). */
  emailVerified: boolean;
  /** The owner's display name (`null` or absent: none). */
  name?: string | null;
  ip: string | null;
  userAgent: string | null;
  /** The id of the API key the request was authenticated with; `null` for an access token (JWT). */
  apiKeyId: string | null;
  /** The organisation the owner belongs to (docs/api.md#organizations). */
  organizationId: string;
  /** The owner's role in it (docs/api.md#roles). */
  role: Role;
}

/** Who an audit event names (docs/api.md#evidence): the owner, a recipient, or the system. */
export interface EventActor {
  /** The owner's userId, a recipient's id, or `system`. */
  id: string;
  /** `null` for the system. */
  email: string | null;
  ip: string | null;
  userAgent: string | null;
  /** The owner's API key when the owner acted with one; else `null`. */
  apiKeyId: string | null;
  /** Set when a member of the organisation acted (never a recipient or the system): webhook events name it (docs/api.md#events). */
  member?: true;
}

/** The actor id of the sweeper's events (docs/api.md#evidence). */
export const SYSTEM_ACTOR: EventActor = { id: 'system', email: null, ip: null, userAgent: null, apiKeyId: null };

/** The owner as the actor of events. */
export function ownerActor(actor: Actor): EventActor {
  return { id: actor.userId, email: actor.email, ip: actor.ip, userAgent: actor.userAgent, apiKeyId: actor.apiKeyId, member: true };
}

/** A signer's or approver's recorded action, and a signer's values: its action row (never shown). */
export interface RecipientAction {
  recipientId: string;
  /** The status the action gave the recipient (`reassigned`: it handed its part on, docs/api.md#reassignment). */
  status: 'signed' | 'approved' | 'viewed' | 'declined' | 'reassigned';
  at: string;
  ip: string | null;
  userAgent: string | null;
  /** A signer's values, as sent (docs/api.md#fields); `[]` for the others. */
  values: FieldValue[];
  /** A signer's adopted signature (certificate of completion); `null` for the others. */
  signature: SignatureValue | null;
}

/**
 * A value of one field as a signer sent it (docs/api.md#fields); an `attachment` or `image` field's
 * is recorded with what the upload's checks found (docs/api.md#files-from-signers).
 */
export interface FieldValue {
  fieldId: string;
  value: SignatureValue | string | boolean | AttachmentValue;
}

/**
 * The value of an `attachment` or `image` field as recorded (docs/api.md#files-from-signers): the
 * upload's id and what its checks found. The signer sends `{attachmentId}` only.
 */
export interface AttachmentValue {
  attachmentId: string;
  /** The file's name: from the upload's `Content-Disposition`, else `attachment-<n>.<ext>`. */
  name: string;
  /** `application/pdf`, `image/jpeg` or `image/png`. */
  contentType: string;
  /** Bytes as stored (a PDF after cleaning). */
  size: number;
  /** Lower-case hex SHA-256 of the bytes as stored. */
  sha256: string;
  /** ISO 8601 UTC with milliseconds: when it was uploaded. */
  uploadedAt: string;
  /** Image fields: pixel width and height, read from the image's header. */
  width?: number;
  height?: number;
}

/** Whether a recorded value is an attachment's ({@link AttachmentValue}). */
export function isAttachmentValue(value: unknown): value is AttachmentValue {
  return typeof value === 'object' && value !== null && typeof (value as { attachmentId?: unknown }).attachmentId === 'string';
}

/** The strong ETag of an envelope version (RFC 9110 §8.8.3). */
export function envelopeETag(record: Pick<EnvelopeRecord, 'version'>): string {
  return `"${record.version}"`;
}

/** Shows a signer as responses do, with `recipientId` equal to `id` and nothing internal. */
export function viewSigner(signer: Signer): SignerView {
  const { lastEmail } = signer;
  return {
    id: signer.id,
    recipientId: signer.id,
    email: signer.email,
    name: signer.name,
    role: signer.role,
    routingOrder: signer.routingOrder,
    status: signer.status,
    actedAt: signer.actedAt,
    declineReason: signer.declineReason,
    lastEmail: lastEmail === null ? null : { type: lastEmail.type, status: lastEmail.status, at: lastEmail.at, ...(lastEmail.reason === undefined ? {} : { reason: lastEmail.reason }) },
    authentication: { method: signer.authentication?.method ?? 'none' },
    locale: signer.locale ?? null,
    delivery: deliveryOf(signer),
    ...(signer.phone === undefined ? {} : { phone: signer.phone }),
    // Only where it means something: a recipient sent no text has no lastSms, an e-mail recipient gets every e-mail.
    ...(deliversBy(signer, 'sms') ? { lastSms: signer.lastSms == null ? null : { status: signer.lastSms.status, at: signer.lastSms.at, ...(signer.lastSms.reason === undefined ? {} : { reason: signer.lastSms.reason }) } } : {}),
    ...(isEmbedded(signer) ? { notifyOnCompletion: signer.notifyOnCompletion === true } : {}),
  };
}

/** The language of a recipient's e-mails and signing page (docs/languages.md): its own `locale`, else the envelope's. */
export function recipientLocale(record: Pick<EnvelopeRecord, 'locale'>, signer: Pick<Signer, 'locale'>): Locale {
  return signer.locale ?? record.locale ?? DEFAULT_LOCALE;
}

/** A new recipient as a draft holds it: `created`, no link, no e-mail. */
export function newSigner(fields: Pick<Signer, 'id' | 'email' | 'name' | 'role'> & { routingOrder?: number }): Signer {
  return {
    id: fields.id,
    email: fields.email,
    name: fields.name,
    role: fields.role,
    routingOrder: fields.routingOrder ?? 1,
    status: 'created',
    actedAt: null,
    declineReason: null,
    lastEmail: null,
    link: null,
    invitedAt: null,
    remindersSent: 0,
    locale: null,
  };
}

/**
 * How the recipient's signing link reaches it (docs/api.md#delivery): the stored list, `["email"]` when
 * absent, and a row's single word (written before text messages) as a list of one.
 */
export function deliveryOf(signer: Pick<Signer, 'delivery'>): Delivery[] {
  const { delivery } = signer;
  if (delivery === undefined) return ['email'];
  return typeof delivery === 'string' ? [delivery] : [...delivery];
}

/** Whether the recipient's delivery includes `channel` (docs/api.md#delivery). */
export function deliversBy(signer: Pick<Signer, 'delivery'>, channel: Delivery): boolean {
  return deliveryOf(signer).includes(channel);
}

/** Whether the recipient signs inside the owner's application (docs/api.md#embedded-signing). */
export function isEmbedded(signer: Pick<Signer, 'delivery'>): boolean {
  return deliversBy(signer, 'embedded');
}

/**
 * Whether an e-mail of `type` goes to the recipient (docs/api.md#delivery): an embedded recipient gets no
 * invitation, reminder or voided e-mail, and the completed one only with `notifyOnCompletion`; a
 * recipient whose delivery is `["sms"]` gets its invitations and reminders by text message only
 * (docs/api.md#sms); e-mails a recipient asks for itself (a one-time code) still go. Every other
 * recipient gets every e-mail.
 */
export function receivesEmail(signer: Pick<Signer, 'delivery' | 'notifyOnCompletion'>, type: string): boolean {
  if (isEmbedded(signer)) {
    if (type === 'completed') return signer.notifyOnCompletion === true;
    return type !== 'invitation' && type !== 'reminder' && type !== 'voided';
  }
  if (!deliversBy(signer, 'email')) return type !== 'invitation' && type !== 'reminder';
  return true;
}

/** Whether a text message of `type` goes to the recipient (docs/api.md#sms): invitations and reminders, for a delivery with `sms` and a phone. */
export function receivesSms(signer: Pick<Signer, 'delivery' | 'phone'>, type: string): boolean {
  return deliversBy(signer, 'sms') && signer.phone !== undefined && (type === 'invitation' || type === 'reminder');
}

/** Whether the recipient's role asks it to act (docs/api.md#recipients "must act": signer, approver, viewer). */
export function mustAct(signer: Pick<Signer, 'role'>): boolean {
  return signer.role !== 'cc';
}

/** Whether the recipient has acted (signed, approved, viewed or declined). */
export function hasActed(signer: Pick<Signer, 'status'>): boolean {
  return ACTED_STATUSES.includes(signer.status);
}

/** Whether the envelope is in a final status. */
export function isFinal(status: EnvelopeStatus): boolean {
  return FINAL_STATUSES.includes(status);
}
