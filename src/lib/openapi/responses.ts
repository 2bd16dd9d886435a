/**
 * Response bodies as zod schemas, for the OpenAPI document (`GET /api/openapi.json`) and for the
 * end-to-end tests, which validate every response against that document.
 *
 * The service builds its responses from the TypeScript types beside the code that owns them
 * ({@link EnvelopeView}, {@link AuditEventView}, {@link UploadTicket}, {@link LoginResult},
 * {@link ProblemDetails}); the checks at the bottom of this file make the build fail when a schema and
 * its type disagree on a field name or a field's type, so the document cannot drift from the code.
 * Strict objects (`additionalProperties: false`): a response that leaks a stored field (`blobName`,
 * `version`, `passwordHash`) fails validation.
 */
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { LoginResult } from '../auth/accounts.js';
import type { UploadTicket } from '../envelopes/createUpload.js';
import { detectedFieldProperties } from '../envelopes/schemas.js';
import { ATTACHMENT_TYPES, MAX_ATTACHMENT_BYTES, MAX_DROPDOWN_OPTION, MAX_DROPDOWN_OPTIONS, MAX_PATTERN, MAX_TEXT_LENGTH } from '../envelopes/fieldRules.js';
import {
  ENVELOPE_STATUSES,
  FIELD_TYPES,
  DELIVERIES,
  RECIPIENT_STATUSES,
  SIGNER_ROLES,
  OUTPUTS,
  SIGNING_ORDERS,
  type EnvelopeView,
  type Field,
} from '../envelopes/model.js';
import type { AuditEventView } from '../envelopes/audit.js';
import { problemTitles, type ProblemDetails } from '../http/problem.js';
import { localeSchema } from '../i18n/schema.js';
import { problemEntries, problemTypeOfSlug, type ProblemSlug } from '../problems.js';
import { REMOVED_KINDS } from '../pdf/index.js';
import { matches, type Matches } from './ties.js';

/** ISO 8601 UTC with milliseconds (docs/api.md#conventions). */
export const timestamp = z.iso.datetime({ precision: 3 }).meta({ description: 'ISO 8601 UTC with milliseconds.', examples: ['2026-11-22T10:15:30.123Z'] });
/** UUID version 7 (RFC 9562 §5.7): envelope and user identifiers (docs/api.md#conventions). */
export const uuidV7 = z.uuid({ version: 'v7' }).meta({ description: 'UUID version 7 (time-ordered).' });
/** Lower-case hex SHA-256. */
export const sha256Hex = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .meta({ description: 'Lower-case hex SHA-256.', examples: ['9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'] });
/** A read-only SAS URL of a blob, valid 15 minutes from the response (docs/api.md#the-envelope). */
const readUrl = z.url().meta({ description: 'Read-only SAS URL of the blob, valid 15 minutes from the response.' });

export const envelopeStatus = z.enum(ENVELOPE_STATUSES).meta({ id: 'EnvelopeStatus', description: 'Lifecycle state.' });
export const signerRole = z.enum(SIGNER_ROLES).meta({ id: 'SignerRole', description: 'What the recipient does with the envelope.' });

export const recipientStatus = z.enum(RECIPIENT_STATUSES).meta({
  id: 'RecipientStatus',
  description:
    '`created` (draft), `waiting` (sequential order: an earlier group has not finished), `sent` (invited; a `cc` from the send on), `opened`, `signed`, `approved`, `viewed`, `declined`, `reassigned` (handed its part to a new recipient; final, blocks nothing).',
});

/** A signer as responses show it: `recipientId` always equals `id` (docs/api.md#the-envelope, docs/api.md#recipients). */
export const signerResponse = z
  .strictObject({
    id: z.uuid().meta({ description: 'Assigned by the service; send it back to keep the signer\'s identity.' }),
    recipientId: z.uuid().meta({ description: 'Always equal to `id`.' }),
    email: z.email(),
    name: z.string().min(1).max(200),
    role: signerRole,
    routingOrder: z.int().min(1).max(100).meta({ description: 'With `sequential` signing order, recipients act by ascending routing order.' }),
    status: recipientStatus,
    actedAt: timestamp.nullable().meta({ description: 'When the recipient signed, approved, viewed or declined; `null` before.' }),
    declineReason: z.string().nullable().meta({ description: 'The reason given when declining; `null` otherwise.' }),
    lastEmail: z
      .strictObject({
        type: z.enum(['invitation', 'reminder', 'completed', 'voided']),
        status: z
          .enum(['queued', 'sent', 'failed'])
          .meta({ description: '`queued` when written, `sent` once the mail server accepted it, `failed` after the last retry, or at once when it was past the owner\'s daily e-mail quota (`reason`).' }),
        at: timestamp,
        reason: z
          .enum(['quota'])
          .optional()
          .meta({ description: 'Only with `failed` for an e-mail never sent: `quota`, the owner\'s `EMAIL_DAILY_QUOTA` of the UTC day was used up when the change queued it. Absent otherwise.' }),
      })
      .nullable()
      .meta({ description: 'The newest e-mail to this recipient; `null` when none.' }),
    authentication: z
      .strictObject({ method: z.enum(['none', 'accessCode', 'emailOtp', 'sms']) })
      .meta({ description: 'How the recipient proves who it is beyond its signing link; never the access code itself.' }),
    locale: localeSchema.nullable().meta({ description: 'The language of this recipient\'s e-mails and signing page; `null`: the envelope\'s `locale`.' }),
    delivery: z
      .array(z.enum(DELIVERIES))
      .min(1)
      .max(2)
      .meta({
        description:
          'How the signing link reaches the recipient: `["email"]` (invited and reminded by e-mail), `["sms"]` (by text message to `phone`), `["email", "sms"]` (both), or `["embedded"]` (it signs inside the owner\'s application, `POST .../views`, and gets no e-mail).',
      }),
    phone: z
      .string()
      .regex(/^\+[1-9][0-9]{6,14}$/)
      .optional()
      .meta({ description: 'The recipient\'s mobile number in E.164, when it has one.', examples: ['+4915123456789'] }),
    lastSms: z
      .strictObject({
        status: z
          .enum(['sent', 'delivered', 'failed'])
          .meta({ description: '`sent` once Azure Communication Services accepted it, `delivered` once the carrier reported it delivered, `failed` after the last retry.' }),
        at: timestamp,
        reason: z.string().max(200).optional().meta({ description: 'Why it failed, when known: `quota` for a text never sent because the organization\'s `SMS_DAILY_QUOTA` of the UTC day was used up when the change queued it.' }),
      })
      .nullable()
      .optional()
      .meta({ description: 'Recipients whose delivery includes `sms` only: the newest text message to it; `null` before the first was sent.' }),
    notifyOnCompletion: z
      .boolean()
      .optional()
      .meta({ description: 'Embedded recipients only (absent for `email` delivery, which gets every e-mail): whether it gets the completed e-mail.' }),
  })
  .meta({ id: 'Signer', description: 'A recipient of the envelope and where it stands.' });

/** A field's value rules and prefilled value as responses show them: each present only when set. */
const fieldRuleResponses = {
  options: z.array(z.string().min(1).max(MAX_DROPDOWN_OPTION)).min(1).max(MAX_DROPDOWN_OPTIONS).optional().meta({ description: '`dropdown`: the choices.' }),
  min: z.number().optional().meta({ description: '`number`: the smallest value allowed.' }),
  max: z.number().optional().meta({ description: '`number`: the largest value allowed.' }),
  minLength: z.int().min(0).max(MAX_TEXT_LENGTH).optional().meta({ description: '`text`: fewest characters of a non-empty value.' }),
  maxLength: z.int().min(0).max(MAX_TEXT_LENGTH).optional().meta({ description: '`text`: most characters.' }),
  pattern: z.string().min(1).max(MAX_PATTERN).optional().meta({ description: '`text`: an RE2 regular expression a non-empty value must match whole.' }),
  value: z.union([z.string(), z.boolean()]).optional().meta({ description: 'The owner\'s prefilled value: a default the recipient may change, or with `readOnly` fixed.' }),
  readOnly: z.literal(true).optional().meta({ description: 'Present (`true`) when the recipient cannot change `value`.' }),
  accept: z.array(z.enum(ATTACHMENT_TYPES)).min(1).max(ATTACHMENT_TYPES.length).optional().meta({ description: '`attachment`: the media types the recipient may upload; absent: all three.' }),
  maxBytes: z.int().min(1).max(MAX_ATTACHMENT_BYTES).optional().meta({ description: '`attachment`, `image`: the largest upload, bytes; absent: 10 MiB.' }),
};

/** A field as responses show it . */
export const fieldResponse = z
  .strictObject({
    id: z.uuid().meta({ description: 'Assigned by the service unless a new UUID was sent; send it back to keep the field\'s identity.' }),
    recipientId: z.uuid().meta({ description: 'The signer who fills it.' }),
    documentId: z.uuid().optional().meta({ description: 'The document the field is on (an `id` of the envelope\'s `documents`); always present in an envelope\'s fields.' }),
    type: z.enum(FIELD_TYPES),
    page: z.int().min(1).meta({ description: '1-based page of its document.' }),
    x: z.number().min(0).max(1),
    y: z.number().min(0).max(1),
    width: z.number().gt(0).max(1),
    height: z.number().gt(0).max(1),
    required: z.boolean(),
    label: z.string().max(100).nullable(),
    ...detectedFieldProperties,
    ...fieldRuleResponses,
  })
  .meta({ id: 'Field', description: 'A place on the document that a signer fills: fractions 0 to 1 of the page as displayed, origin top-left.' });

/** One document of an envelope as responses show it (docs/api.md#several-documents). */
export const envelopeDocumentResponse = z
  .strictObject({
    id: z.uuid().meta({ description: 'The document\'s id: the envelope\'s own id for the document it was made with, a new UUID for each one added.' }),
    name: z.string().meta({ description: 'The name shown: the uploaded file\'s name unless renamed.' }),
    order: z.int().min(1).meta({ description: '1-based position; documents are shown, signed and sealed in this order.' }),
    pageCount: z.int().min(1).nullable().meta({ description: 'Pages of the frozen copy; `null` until frozen (send).' }),
    sha256: sha256Hex.nullable().meta({ description: 'SHA-256 of the frozen copy; `null` until frozen.' }),
    uploadSha256: sha256Hex.nullable().meta({ description: 'SHA-256 of the upload as uploaded: equal to `sha256` unless the service cleaned it; `null` until frozen (and for documents frozen before it was recorded).' }),
    documentUrl: readUrl.nullable().meta({ description: 'Read-only SAS URL, valid 15 minutes: the upload while `draft`, the frozen copy after; `null` once purged.' }),
  })
  .meta({ id: 'EnvelopeDocument', description: 'One document of the envelope.' });

/** The envelope in every response (docs/api.md#the-envelope table). */
export const envelopeResponse = z
  .strictObject({
    id: uuidV7,
    status: envelopeStatus,
    ownerId: z.uuid().meta({ description: 'The owner\'s userId: the member who made the envelope.' }),
    ownerEmail: z.email().nullable().meta({ description: 'The owner\'s e-mail address; `null` only for an envelope made before addresses were recorded with envelopes.' }),
    documentName: z.string().meta({ description: 'The uploaded file\'s name.' }),
    documentUrl: readUrl
      .nullable()
      .meta({ description: 'Read-only SAS URL of the document, valid 15 minutes from the response: the upload while `draft`, the frozen copy once sent or completed; `null` once purged.' }),
    documentSha256: sha256Hex.nullable().meta({ description: 'SHA-256 of the frozen document; `null` while `draft`.' }),
    pageCount: z.int().min(1).nullable().meta({ description: 'Pages of the frozen document; `null` while `draft`.' }),
    documents: z
      .array(envelopeDocumentResponse)
      .min(1)
      .meta({ description: 'Every document, in `order` (1 to `MAX_DOCUMENTS_PER_ENVELOPE`); `documentName`, `documentUrl`, `documentSha256` and `pageCount` above describe the first.' }),
    signers: z.array(signerResponse).meta({ description: '`[]` when none.' }),
    fields: z.array(fieldResponse).meta({ description: '`[]` when none.' }),
    signingOrder: z.enum(SIGNING_ORDERS),
    expiresAt: timestamp.nullable().meta({ description: 'When a sent envelope expires; `null` in `draft` unless set.' }),
    remindEveryDays: z.int().min(1).max(30).nullable(),
    locale: localeSchema.meta({ description: 'The language of the owner\'s e-mails, the certificate of completion and the recipients\' default (`en` unless set).' }),
    createdAt: timestamp,
    updatedAt: timestamp,
    sentAt: timestamp.nullable().meta({ description: '`null` until sent.' }),
    completedAt: timestamp.nullable().meta({ description: '`null` until completed.' }),
    signedUrl: readUrl.nullable().meta({ description: 'Read-only SAS URL of the sealed PDF, valid 15 minutes; `null` until completed, and once purged.' }),
    hash: sha256Hex.nullable().meta({ description: 'SHA-256 of the sealed PDF; `null` until completed. Kept when purged: `GET /api/verify/{sha256}` still answers for it.' }),
    purgedAt: timestamp
      .nullable()
      .meta({ description: 'When the documents of the finished envelope were purged (`DELETE /api/envelopes/{id}`, or the sweeper once the organization\'s `retentionDays` passed): its upload, frozen copy and sealed PDF are deleted (a sealed PDF still under the storage\'s immutability period stays until it ends); its audit trail and `hash` stay. `null` unless purged.' }),
    voidedReason: z.string().nullable().meta({ description: 'Why the owner voided the envelope (`voidedReason` of the update that voided it); `null` when it is not voided or no reason was given.' }),
    templateId: z.uuid().nullable().meta({ description: 'The template the envelope was made from (`POST /api/templates/{id}/envelopes`), else `null`.' }),
    bulkJobId: z.uuid().optional().meta({ description: 'The bulk job that made the envelope (`POST /api/templates/{id}/bulk`); present only on envelopes a bulk job made.' }),
    source: z.literal('publicLink').optional().meta({ description: '`publicLink`: made by someone who opened the template\'s public link (docs/api.md, Public links); absent otherwise.' }),
    metadata: z
      .record(z.string(), z.string())
      .nullable()
      .optional()
      .meta({ description: 'Its bulk row\'s `metadata` (`null` when the row had none); present only on envelopes a bulk job made.' }),
    allowReassign: z.boolean().meta({ description: 'Whether signers and approvers may hand their part to someone else (`POST /api/signing/reassign`); a setting, locked once sent.' }),
    output: z.enum(OUTPUTS).meta({ description: 'What completion seals: `separate` (default), each document as its own sealed PDF with the certificate appended; `combined`, one PDF of every document in order, then the certificate. A setting, locked once sent.' }),
  })
  .meta({ id: 'Envelope', description: 'An envelope: its documents, its signers and fields, and its state.' });

export const envelopeListResponse = z.array(envelopeResponse).meta({ id: 'EnvelopeList', description: 'The caller\'s envelopes, or with `scope=organization` its organization\'s, newest first.' });

/** 201 of `POST /api/GetUploadUrl` (docs/api.md#create-an-envelope-and-upload-its-document). */
export const uploadTicketResponse = z
  .strictObject({
    uploadUrl: z.url().meta({
      description:
        'SAS URL with create and write permission on this one blob. Send `PUT <uploadUrl>` with the PDF as body and the headers ' +
        '`x-ms-blob-type: BlockBlob` and `Content-Type: application/pdf`; Blob storage answers 201.',
    }),
    envelopeId: uuidV7,
    blobName: z.string().meta({ description: '`<envelopeId>/<filename>` in the container `documents`.' }),
    expiresAt: timestamp.meta({ description: 'When `uploadUrl` stops working (`UPLOAD_URL_TTL_SECONDS` after the response).' }),
  })
  .meta({ id: 'UploadTicket', description: 'Where to upload the document of a new draft envelope.' });

/** 200 of `POST /api/envelopes/{id}/complete` (docs/api.md#what-completion-does). */
export const completeResponse = z
  .strictObject({
    message: z.string(),
    signedUrl: readUrl
      .nullable()
      .meta({ description: 'Read-only SAS URL of the sealed PDF, valid 15 minutes from the response; `null` when the envelope\'s documents were purged.' }),
    hash: sha256Hex.meta({ description: 'SHA-256 of the sealed PDF: the same on every retry.' }),
    documents: z
      .array(
        z.strictObject({
          id: z.uuid().meta({ description: 'The document (an `id` of the envelope\'s `documents`).' }),
          name: z.string(),
          signedUrl: readUrl.nullable().meta({ description: 'Read-only SAS URL of the sealed PDF holding the document, valid 15 minutes; `null` once purged.' }),
          hash: sha256Hex.meta({ description: 'SHA-256 of that sealed PDF.' }),
        }),
      )
      .min(1)
      .meta({ description: 'Every document in order with its sealed PDF: with `output: separate` each its own (the first\'s is `signedUrl`, `hash` above); with `combined` every entry names the one combined PDF.' }),
  })
  .meta({ id: 'CompletionResult', description: 'The sealed document.' });

const addedOrRemoved = z.array(z.strictObject({ id: z.uuid(), email: z.email() }));
const auditBase = {
  sequence: z.int().min(1).meta({ description: '1, 2, 3, ... per envelope, without gaps.' }),
  at: timestamp,
  actorId: z.string().nullable().meta({ description: 'The owner\'s userId, the recipient\'s id for its own action, or `system`.' }),
  actorEmail: z.email().nullable().meta({ description: 'The actor\'s e-mail address; `null` for `system`.' }),
  ip: z.string().nullable().meta({ description: 'The client address: the TCP peer, or behind `TRUST_PROXY` proxies the address they name (at most 64 characters); `null` when absent.' }),
  userAgent: z.string().nullable().meta({ description: 'The `User-Agent` header (at most 1024 characters); `null` when absent.' }),
  apiKeyId: z.uuid().nullable().meta({ description: 'The id of the owner\'s API key the change was made with; `null` when made with an access token (Login), by a recipient or by the system. Never the key itself.' }),
  organizationId: z.uuid().meta({ description: 'The organization the envelope belongs to (for an envelope made before organizations, its owner\'s).' }),
  prevHash: sha256Hex.meta({
    description: 'The `hash` of the event before this one; for the first event, the SHA-256 of the envelope id\'s UTF-8 text (lower-case hex). See the chained audit trail in the API reference.',
  }),
  hash: sha256Hex.meta({
    description: 'SHA-256 (lower-case hex) of this event as shown here, less `hash`, in RFC 8785 (JCS) canonical JSON. See the chained audit trail in the API reference.',
  }),
};
const recipientOnly = z.strictObject({ recipientId: z.string() });
/** How a recipient came to act ([Evidence](../../../docs/api.md#evidence)): the credential it used and the language it was shown. */
const credential = z
  .enum(['signingLink', 'embeddedView'])
  .optional()
  .meta({ description: 'The credential the recipient used: `signingLink`, the link the service e-mailed it; `embeddedView`, an embedded signing view the owner created. Absent on events recorded before it was.' });
const shownLocale = localeSchema.optional().meta({ description: 'The language the service showed the recipient (its own `locale`, else the envelope\'s). Absent on events recorded before it was.' });
const recipientCame = z.strictObject({ recipientId: z.string(), credential, locale: shownLocale });
const codeProof = z.strictObject({
  recipientId: z.string(),
  method: z.enum(['accessCode', 'emailOtp', 'sms']),
  channel: z.enum(['email', 'sms']).optional().meta({ description: '`emailOtp`, `sms`: how the code was sent, `email` or `sms` (an `sms` recipient\'s code goes by e-mail while its number is opted out). Absent on events recorded before it was (those codes were e-mailed).' }),
  credential,
});
/** A disclosure as shown and agreed to (docs/api.md#consent-to-electronic-signatures). */
export const disclosureResponse = z
  .strictObject({
    text: z.string().meta({ description: 'The exact words shown to the recipient before it agrees (`consent: true`).' }),
    version: z.string().regex(/^esd-[0-9a-f]{12}$/).meta({ description: '`esd-` and 12 hex digits of the text\'s SHA-256: each locale\'s text has its own, and it changes whenever the text does.' }),
    locale: localeSchema.meta({ description: 'The locale the text is written for.' }),
  })
  .meta({ id: 'Disclosure', description: 'The disclosure about electronic records and signatures.' });

/** An action's details: the recipient, how it came, and the consent it gave, the exact disclosure the page showed. */
const recipientActed = z.strictObject({
  recipientId: z.string(),
  credential,
  locale: shownLocale,
  consent: z
    .strictObject({ text: z.string(), version: z.string(), locale: localeSchema.optional().meta({ description: 'The locale of the text shown (absent on events recorded before disclosures had languages: English).' }) })
    .optional()
    .meta({ description: 'The disclosure the recipient agreed to, word for word, its version and the locale of the text the page showed (the organization\'s own text for that locale when it set one, else the service\'s); absent on events recorded before consent was recorded.' }),
});
const event = <Type extends string, Details extends z.ZodType>(type: Type, details: Details) => z.strictObject({ ...auditBase, type: z.literal(type), details });

/** One audit event (docs/api.md#evidence): the shape of `details` follows `type`. */
export const auditEventResponse = z
  .discriminatedUnion('type', [
    event(
      'envelope.created',
      z.strictObject({
        documentName: z.string(),
        blobName: z.string(),
        templateId: z.uuid().optional().meta({ description: 'Present when the envelope was made from a template: that template\'s id.' }),
        bulkJobId: z.uuid().optional().meta({ description: 'Present when a bulk job made the envelope (`POST /api/templates/{id}/bulk`): that job\'s id.' }),
        source: z.literal('publicLink').optional().meta({ description: '`publicLink`: made through the template\'s public link.' }),
      }),
    ),
    event('envelope.signers_replaced', z.strictObject({ added: addedOrRemoved, removed: addedOrRemoved })),
    event('envelope.fields_replaced', z.strictObject({ count: z.int().min(0) })),
    event('envelope.document_added', z.strictObject({ documentId: z.uuid(), name: z.string(), order: z.int().min(1) }).meta({ description: 'A document added to the draft: its id, name and place.' })),
    event('envelope.document_changed', z.strictObject({ documentId: z.uuid(), name: z.string(), order: z.int().min(1) }).meta({ description: 'A draft\'s document renamed or moved: its id, and its name and place now.' })),
    event('envelope.document_removed', z.strictObject({ documentId: z.uuid(), name: z.string() }).meta({ description: 'A document removed from the draft: its id and name.' })),
    event(
      'envelope.settings_changed',
      z.strictObject({
        signingOrder: z.enum(SIGNING_ORDERS).optional(),
        expiresAt: timestamp.nullable().optional(),
        remindEveryDays: z.int().nullable().optional(),
        locale: localeSchema.optional(),
        allowReassign: z.boolean().optional(),
        output: z.enum(OUTPUTS).optional(),
      }),
    ),
    event(
      'envelope.sent',
      z.strictObject({
        documentSha256: sha256Hex.meta({ description: 'SHA-256 of the frozen document: the upload, cleaned of active content when `removed` is not empty.' }),
        uploadSha256: sha256Hex
          .nullable()
          .optional()
          .meta({
            description:
              'SHA-256 of the bytes as uploaded, before cleaning (for an envelope made from a template, its template\'s upload); `null` when not known (a template frozen before uploads\' hashes were recorded); absent on events recorded before it was.',
          }),
        pageCount: z.int().min(1),
        removed: z
          .array(z.enum(REMOVED_KINDS))
          .max(REMOVED_KINDS.length)
          .meta({
            description:
              'The kinds of active content found in the upload and removed from the frozen document, each once (`[]` when none): actions by type (`javascript`, `launch`, `importData`, `submitForm`, `resetForm`, `goToR`, `goToE`, `rendition`), `additionalActions` (`/AA`), `embeddedFile`, `fileAttachment`, `richMedia`, `xfa`, `3d`. URI links stay.',
          }),
        documents: z
          .array(
            z.strictObject({
              id: z.uuid(),
              name: z.string(),
              documentSha256: sha256Hex,
              uploadSha256: sha256Hex.nullable(),
              pageCount: z.int().min(1),
              removed: z.array(z.enum(REMOVED_KINDS)).max(REMOVED_KINDS.length),
            }),
          )
          .optional()
          .meta({ description: 'An envelope of several documents: every document in order, as frozen (the fields above are the first\'s); absent for one document.' }),
      }),
    ),
    event('recipient.invited', z.strictObject({ recipientId: z.string(), email: z.email(), resend: z.boolean() })),
    event('recipient.reminded', z.strictObject({ recipientId: z.string(), email: z.email() })),
    event('recipient.opened', recipientCame),
    event('recipient.authenticated', codeProof),
    event('recipient.authentication_failed', codeProof),
    event('recipient.signed', recipientActed),
    event('recipient.approved', recipientActed),
    event('recipient.viewed', recipientActed),
    event('recipient.declined', z.strictObject({ recipientId: z.string(), credential, locale: shownLocale, reason: z.string() })),
    event('envelope.declined', recipientOnly),
    event('envelope.expired', z.strictObject({})),
    event('envelope.voided', z.strictObject({ reason: z.string().optional().meta({ description: 'The owner\'s reason (`voidedReason`), when one was given.' }) })),
    event(
      'envelope.completed',
      z.strictObject({
        originalSha256: sha256Hex,
        sealedSha256: sha256Hex,
        auditHead: sha256Hex
          .optional()
          .meta({ description: 'The `hash` of the event before this one: the last event of the `audit.json` sealed into the PDF, which its certificate prints as the audit trail head. Absent on completions recorded before the chain.' }),
        documents: z
          .array(z.strictObject({ id: z.uuid(), sealedSha256: sha256Hex }))
          .optional()
          .meta({ description: 'An envelope of several documents: each document\'s sealed PDF (with `output: combined`, every entry names the one combined PDF); absent for one document.' }),
      }),
    ),
    event('envelope.purged', z.strictObject({})),
    event('recipient.view_created', recipientOnly.meta({ description: 'The owner created an embedded signing view for the recipient (never its token or URL).' })),
    event(
      'recipient.reassigned',
      z.strictObject({
        recipientId: z.string().meta({ description: 'The recipient who handed its part on (now `reassigned`).' }),
        newRecipientId: z.string().meta({ description: 'The recipient added in its place (same role, routing order and fields).' }),
        email: z.email().meta({ description: 'The new recipient\'s address.' }),
        credential,
        locale: shownLocale,
        reason: z.string(),
      }),
    ),
    event(
      'recipient.sms_opted_out',
      z
        .strictObject({
          recipientId: z.string(),
          phone: z.string().meta({ description: 'The number, masked: its country code and last four digits (`+49 *** *** 12 34`).', examples: ['+49 *** *** 12 34'] }),
          since: timestamp.meta({ description: 'When the number opted out (its STOP reply).' }),
        })
        .meta({ description: 'The recipient\'s number replied STOP: it is not texted; what its texts carried goes by e-mail. Recorded once per opt-out in the trail of each envelope sent, or later sent, to the number while it is opted out; the service as actor.' }),
    ),
    event(
      'envelope.owner_changed',
      z.strictObject({
        from: z.strictObject({ userId: z.string(), email: z.string() }).meta({ description: 'The former owner: the member removed from the organization.' }),
        to: z.strictObject({ userId: z.string(), email: z.string() }).meta({ description: 'The new owner: the member named by `transferTo`.' }),
      }).meta({ description: 'The envelope moved to another member as its owner was removed from the organization; the actor is the admin or owner who removed it.' }),
    ),
  ])
  .meta({ id: 'AuditEvent', description: 'One successful change of an envelope.' });

export const auditTrailResponse = z.array(auditEventResponse).meta({ id: 'AuditTrail', description: 'An envelope\'s audit events, oldest first.' });

/** 200 of `GET /api/verify/{sha256}` (docs/api.md#evidence). */
export const sealVerificationResponse = z
  .strictObject({ envelopeId: uuidV7, completedAt: timestamp, documentName: z.string() })
  .meta({ id: 'SealVerification', description: 'What the sealed PDF\'s own certificate page says, and nothing else.' });

/** 201 of `POST /api/Register` (docs/api.md#accounts). */
export const registerResponse = z
  .strictObject({ message: z.string(), userId: uuidV7 })
  .meta({ id: 'RegisterResult', description: 'The new account.' });

/** 200 of `POST /api/Login` (docs/api.md#accounts). */
export const loginResponse = z
  .strictObject({
    token: z
      .string()
      .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/)
      .meta({ description: 'Access token: a JWT (HS256, `typ: at+jwt`), sent as `Authorization: Bearer <token>`; valid `JWT_TTL_SECONDS` (default 3600).' }),
    user: z
      .strictObject({
        userId: uuidV7,
        email: z.email(),
        role: z.enum(['user']),
        emailVerified: z.boolean().meta({ description: 'Whether the owner verified its address with the link Register e-mailed. While the service requires verification, an unverified owner may create and edit drafts but not send or complete (403 `email-unverified`).' }),
        name: z.string().nullable().meta({ description: 'The display name given at registration, or `null` when none was given.' }),
      })
      .meta({ id: 'User' }),
  })
  .meta({ id: 'LoginResult', description: 'An access token and the account it belongs to.' });

/** 200 of `GET /api/health` (README.md#quick-start). */
export const healthResponse = z
  .union([
    z.strictObject({ status: z.literal('ok') }),
    z.strictObject({
      status: z.literal('degraded'),
      reasons: z.array(z.string()).min(1).meta({ description: 'Why, in sentences: this instance\'s last seal failed because the timestamp authority or a revocation source (OCSP, CRL) did not answer; completions are retried by the sweeper.' }),
    }),
  ])
  .meta({ id: 'Health' });

/** Every error response: RFC 9457 problem details (docs/api.md#conventions). */
export const problemResponseSchema = z
  .strictObject({
    type: z.string().meta({ description: `Stable URI naming the problem, \`${problemTypeOfSlug('<slug>' as ProblemSlug)}\`; the slugs are named in each response's description.` }),
    title: z.string().meta({ description: 'The HTTP status\'s reason phrase.' }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status code, repeated.' }),
    detail: z.string().min(1).meta({ description: 'What went wrong, in a sentence a person understands.' }),
    errors: z
      .array(
        z.strictObject({
          path: z.string().meta({ examples: ['signers.0.email'] }),
          message: z.string(),
          fieldId: z.uuid().optional().meta({ description: 'A recipient\'s value (CompleteSigning): the field it concerns.' }),
          rule: z.string().optional().meta({ description: 'A recipient\'s value (CompleteSigning): the rule it breaks (`required`, `maxLength`, `pattern`...); the rules and their `params` are listed in the API documentation\'s Errors section.' }),
          params: z
            .record(z.string(), z.union([z.string(), z.number(), z.array(z.string())]))
            .optional()
            .meta({ description: 'The rule\'s parameters, such as `{max: 20}` for `maxLength`.' }),
          row: z.int().min(1).optional().meta({ description: 'A bulk send (`POST /api/templates/{id}/bulk`): the bad row\'s number, from 1, data rows only (a CSV\'s header is not counted).' }),
          field: z.string().optional().meta({ description: 'A bulk send: what in the row is wrong (`recipients.0.email`, `prefill.Amount`), or for CSV the column\'s name as its header writes it.' }),
          column: z.string().optional().meta({ description: 'A bulk send as CSV: the column of the bad cell (or header entry), as its header writes it (`Client.email`, `field.Amount`).' }),
        }),
      )
      .optional()
      .meta({ description: 'For validation failures: one entry per complaint, `path` in dotted form.' }),
    correlationId: z.uuid().optional().meta({ description: 'For 500: quote it when reporting the fault; the log has the same id.' }),
    attemptsLeft: z.int().min(0).max(5).optional().meta({ description: 'Signer authentication (403 `authentication-failed`, `authentication-required`; 423): wrong codes still allowed before the link locks.' }),
    immutableUntil: z.iso
      .datetime({ precision: 3 })
      .optional()
      .meta({ description: 'A purge that left the sealed PDF (409 `sealed-immutable`): when the sealed PDF\'s immutability period ends; delete the envelope again after it to remove the PDF.' }),
    documentId: z.uuid().optional().meta({ description: 'Sending an envelope of several documents: the document that refused the send (its `detail` names it too).' }),
    documentName: z.string().optional().meta({ description: 'With `documentId`: that document\'s name.' }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (`application/problem+json`).' });

// Compile-time ties between the schemas above and the types the service answers with: each schema's
// output must be assignable to its type, and both must name the same fields.
matches<Matches<typeof envelopeResponse, EnvelopeView>>(true);
matches<Matches<typeof signerResponse, EnvelopeView['signers'][number]>>(true);
matches<Matches<typeof fieldResponse, Field>>(true);
matches<Matches<typeof auditEventResponse, AuditEventView>>(true);
matches<Matches<typeof uploadTicketResponse, UploadTicket>>(true);
matches<Matches<typeof loginResponse, LoginResult>>(true);
matches<Matches<typeof problemResponseSchema, ProblemDetails>>(true);

/**
 * One example of a problem response, named by the problem's slug: its `detail`, and `errors`,
 * `correlationId`, `attemptsLeft` or `immutableUntil` where it has them; `type`: the problem's slug when the example's
 * own name is another (two examples of `validation-failed`).
 */
export type ProblemExample = { type?: string; detail?: string; errors?: { path: string; message: string; row?: number; field?: string; column?: string }[]; correlationId?: string; attemptsLeft?: number; immutableUntil?: string };

/**
 * The body of a problem example, as the service answers it: `type` from the catalogue's `slug`
 * (src/lib/problems.ts), `title` the status's reason phrase, and `detail`, when the example gives
 * none, the catalogue's default for that slug and status. Every problem example of the document is
 * built here.
 */
export function problemExampleValue(slug: string, status: number, example: Omit<ProblemExample, 'type'> = {}): Record<string, unknown> {
  const entry = problemEntries().find((candidate) => candidate.slug === slug && candidate.status === status);
  if (entry === undefined) throw new Error(`No problem ${status} ${slug} in the catalogue (src/lib/problems.ts).`);
  const { detail, ...rest } = example;
  return { type: problemTypeOfSlug(entry.slug as ProblemSlug), title: problemTitles[status], status, detail: detail ?? entry.detail, ...rest };
}

/**
 * A builder of problem-details responses (RFC 9457) for one table of examples by slug: each response
 * has one example per slug it names (summary: the slug), and the header its status carries
 * (`WWW-Authenticate` on 401, RFC 6750; `Retry-After` on 429 and 503, RFC 9110 §10.2.3).
 */
export function problemResponses<Slug extends string>(examples: Record<Slug, ProblemExample>): (status: number, description: string, slugs: Slug[]) => ResponseConfig {
  type HeaderObject = { description: string; required: boolean; schema: { type: 'string'; pattern: string } };
  return (status, description, slugs) => {
    const headers: Record<string, HeaderObject> | undefined =
      status === 401
        ? { 'WWW-Authenticate': { description: '`Bearer` (RFC 6750), with `error="invalid_token"` when a token was sent.', required: true, schema: { type: 'string' as const, pattern: '^Bearer' } } }
        : status === 429 || status === 503
          ? { 'Retry-After': { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'string' as const, pattern: '^[0-9]+$' } } }
          : undefined;
    const values = Object.fromEntries(
      slugs.map((slug) => {
        const { type, ...example } = examples[slug];
        return [slug, { summary: slug, value: problemExampleValue(type ?? slug, status, example) }];
      }),
    );
    return { description, ...(headers === undefined ? {} : { headers }), content: { 'application/problem+json': { schema: problemResponseSchema, examples: values } } };
  };
}
