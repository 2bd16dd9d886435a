/**
 * The catalogue of problems: every `type` of a problem response ([Errors](../../docs/api.md#errors)),
 * by a camelCase key, with its slug (the type is `urn:problem:<slug>`, RFC 9457 §3.1.1), the
 * {@link ErrorCode} that fixes its HTTP status, and the `detail` sent when the throwing code has
 * nothing more specific to say. Code throws from here (`throw problem('envelopeContended')`), the
 * OpenAPI document's problem examples are built from here, and a unit test checks that
 * docs/api.md's Errors table lists exactly these slugs with these statuses.
 *
 * A slug answered with two statuses (`captcha-failed`: 403 at Register, 401 at Login) has one key per
 * status.
 */
import { AppError, errorStatus, problemTypeUri, type AppErrorOptions, type ErrorCode } from './errors.js';

/** One problem type of the catalogue. */
export interface ProblemEntry {
  /** The stable name in `urn:problem:<slug>`. */
  readonly slug: string;
  /** The kind of failure, which fixes the HTTP status ({@link errorStatus}). */
  readonly code: ErrorCode;
  /** The sentence sent when the throwing code gives no more specific `detail`. */
  readonly detail: string;
}

export const problemCatalogue = {
  accountExists: { slug: 'account-exists', code: 'conflict', detail: 'This address already has an account, and an account belongs to one organization only: it cannot be invited.' },
  alreadyActed: { slug: 'already-acted', code: 'conflict', detail: 'The recipient has already acted on this envelope.' },
  apikeyLimit: { slug: 'apikey-limit', code: 'conflict', detail: 'You already have the most API keys allowed; delete one first.' },
  apikeyNotFound: { slug: 'apikey-not-found', code: 'not_found', detail: 'No API key with this id exists.' },
  apikeysContended: { slug: 'apikeys-contended', code: 'conflict', detail: 'The API keys are being changed by other requests at the same time; retry.' },
  assetNotFound: { slug: 'asset-not-found', code: 'not_found', detail: 'No such file.' },
  attachmentDamaged: { slug: 'attachment-damaged', code: 'unprocessable', detail: 'The file could not be read as the type it claims: it is damaged or truncated.' },
  attachmentNotFound: { slug: 'attachment-not-found', code: 'not_found', detail: 'This envelope has no attachment with this id.' },
  attachmentTooLarge: { slug: 'attachment-too-large', code: 'payload_too_large', detail: 'The file is larger than the field accepts (its maxBytes).' },
  attachmentType: { slug: 'attachment-type', code: 'unsupported_media_type', detail: 'The field does not take files of this type, or the file is not of the type its Content-Type names.' },
  authenticationFailed: { slug: 'authentication-failed', code: 'forbidden', detail: 'The code is wrong, expired or already used.' },
  authenticationLocked: { slug: 'authentication-locked', code: 'locked', detail: 'Too many wrong codes: this signing link is locked. Ask the sender to send you a new link.' },
  authenticationMethodMismatch: { slug: 'authentication-method-mismatch', code: 'conflict', detail: 'This recipient needs no code: its signing link is enough.' },
  authenticationRequired: { slug: 'authentication-required', code: 'forbidden', detail: 'Enter your code first (POST /api/signing/authenticate): this recipient must prove who it is before it can act.' },
  bulkJobContended: { slug: 'bulk-job-contended', code: 'conflict', detail: 'The bulk job is being changed by other requests at the same time; retry.' },
  bulkJobNotFound: { slug: 'bulk-job-not-found', code: 'not_found', detail: 'No bulk job with this id exists.' },
  captchaFailed: { slug: 'captcha-failed', code: 'forbidden', detail: 'The captcha was not solved.' },
  captchaFailedLogin: { slug: 'captcha-failed', code: 'unauthorized', detail: 'The captcha was not solved.' },
  captchaUnavailable: { slug: 'captcha-unavailable', code: 'service_unavailable', detail: 'Captcha verification is unavailable right now; retry shortly.' },
  deliveryNotFound: { slug: 'delivery-not-found', code: 'not_found', detail: 'This webhook has no delivery with this id.' },
  documentCertified: { slug: 'document-certified', code: 'unprocessable', detail: 'The document carries a certification signature that does not allow pages to be added, so it cannot be sealed without breaking that signature.' },
  documentCopied: { slug: 'document-copied', code: 'unprocessable', detail: 'The document was not uploaded: it is a storage copy of another blob (Copy Blob). Upload the file itself with PUT to the uploadUrl.' },
  documentDamaged: { slug: 'document-damaged', code: 'unprocessable', detail: 'The document could not be read as a PDF: it is damaged or uses structures the service cannot process.' },
  documentEncrypted: { slug: 'document-encrypted', code: 'unprocessable', detail: 'The document is protected with a password. Upload a copy without a password to open it.' },
  documentHiddenContent: { slug: 'document-hidden-content', code: 'unprocessable', detail: 'The document has optional content (layers) that some viewers would hide. Make every layer visible and flatten the layers, then upload it again.' },
  documentLimit: { slug: 'document-limit', code: 'conflict', detail: 'The envelope already holds the most documents allowed (MAX_DOCUMENTS_PER_ENVELOPE); remove one first.' },
  documentNotFound: { slug: 'document-not-found', code: 'not_found', detail: 'This envelope has no document with this id.' },
  documentNotPdf: { slug: 'document-not-pdf', code: 'unsupported_media_type', detail: 'The uploaded document is not a PDF: no %PDF- header at its start.' },
  documentNotUploaded: { slug: 'document-not-uploaded', code: 'conflict', detail: 'The document has not been uploaded yet: PUT it to the uploadUrl first.' },
  documentSignedNotExtensible: { slug: 'document-signed-not-extensible', code: 'unprocessable', detail: 'The document already carries a signature, and it is stored in a way (linearized for fast web view, or damaged) that the service cannot extend without breaking that signature.' },
  documentTooComplex: { slug: 'document-too-complex', code: 'unprocessable', detail: 'The document is too complex to seal within the service limits (30 seconds and 512 MiB of memory); it may contain a decompression bomb.' },
  documentTooLarge: { slug: 'document-too-large', code: 'payload_too_large', detail: 'The document is larger than the service accepts.' },
  documentsPurged: { slug: 'documents-purged', code: 'conflict', detail: 'The envelope\'s documents were purged: there is nothing left to download. Its audit trail is still at GET /api/envelopes/{id}/audit.' },
  emailAlreadyRegistered: { slug: 'email-already-registered', code: 'conflict', detail: 'An account with this e-mail address already exists.' },
  emailAlreadyVerified: { slug: 'email-already-verified', code: 'conflict', detail: 'Your e-mail address is already verified.' },
  emailQuota: { slug: 'email-quota', code: 'too_many_requests', detail: 'This would queue more e-mails than the account has left today (UTC).' },
  emailUnverified: { slug: 'email-unverified', code: 'forbidden', detail: 'Verify your e-mail address first: open the link in the verification e-mail (ask for a new one with POST /api/ResendVerification). Until then you may create and edit drafts, but not send or complete them.' },
  envelopeClosed: { slug: 'envelope-closed', code: 'conflict', detail: 'The envelope is closed; it can no longer be changed.' },
  envelopeContended: { slug: 'envelope-contended', code: 'conflict', detail: 'The envelope is being changed by other requests at the same time; retry.' },
  envelopeHasFields: { slug: 'envelope-has-fields', code: 'conflict', detail: 'The envelope has fields for its recipients to fill: send it (status "sent") so that they fill and sign them; complete seals a draft only as it is.' },
  envelopeLocked: { slug: 'envelope-locked', code: 'conflict', detail: 'The envelope is sent: void it first (status "voided"), then delete it to purge its documents.' },
  envelopeNotCompleted: { slug: 'envelope-not-completed', code: 'conflict', detail: 'The envelope is not completed: there is nothing sealed to download yet.' },
  envelopeNotFound: { slug: 'envelope-not-found', code: 'not_found', detail: 'No envelope with this id exists.' },
  envelopeNotSent: { slug: 'envelope-not-sent', code: 'conflict', detail: 'The envelope is a draft: send it first; then open views for the recipients whose turn it is.' },
  envelopeTooLarge: { slug: 'envelope-too-large', code: 'payload_too_large', detail: 'The documents together are larger than the service accepts (MAX_ENVELOPE_BYTES).' },
  etagMismatch: { slug: 'etag-mismatch', code: 'precondition_failed', detail: 'The template has changed since the ETag in If-Match; read it again.' },
  fieldOutsideDocument: { slug: 'field-outside-document', code: 'unprocessable', detail: 'Some fields are on pages the document does not have.' },
  forbiddenRole: { slug: 'forbidden-role', code: 'forbidden', detail: 'Your role in your organization does not allow this.' },
  idempotencyKeyInUse: { slug: 'idempotency-key-in-use', code: 'conflict', detail: 'A request with this Idempotency-Key is already running or done.' },
  idempotencyKeyReused: { slug: 'idempotency-key-reused', code: 'unprocessable', detail: 'This Idempotency-Key was first used for another request; use a new key for a new request.' },
  idempotencyNotSupported: { slug: 'idempotency-not-supported', code: 'bad_request', detail: 'This endpoint does not take Idempotency-Key: its answer is never stored, so it cannot be replayed. Send the request without it.' },
  idempotencyOutcomeUnknown: { slug: 'idempotency-outcome-unknown', code: 'conflict', detail: 'The request sent with this Idempotency-Key was interrupted before its answer was stored; read the resource, and use a new key to make the change.' },
  internalError: { slug: 'internal-error', code: 'internal_error', detail: 'An unexpected error occurred.' },
  imageTooManyPixels: { slug: 'image-too-many-pixels', code: 'unprocessable', detail: 'The image has more than 50 megapixels; send a smaller one.' },
  invalidCredentials: { slug: 'invalid-credentials', code: 'unauthorized', detail: 'The e-mail address or password is wrong.' },
  invalidCursor: { slug: 'invalid-cursor', code: 'bad_request', detail: 'The cursor is invalid for this query; start again without it.' },
  invalidEventSecret: { slug: 'invalid-event-secret', code: 'unauthorized', detail: 'The event carries no aeg-sas-key header or ?code= equal to the secret this service was given (ACS_EVENT_SECRET): it is refused and changes nothing.' },
  invalidIdempotencyKey: { slug: 'invalid-idempotency-key', code: 'bad_request', detail: 'Idempotency-Key must be 1 to 255 printable ASCII characters (U+0020 to U+007E).' },
  invalidInvitation: { slug: 'invalid-invitation', code: 'forbidden', detail: 'The invitation code is invalid, expired or used up.' },
  invalidToken: { slug: 'invalid-token', code: 'unauthorized', detail: 'The access token is invalid.' },
  invalidTransferTarget: { slug: 'invalid-transfer-target', code: 'conflict', detail: 'The member to transfer to must be another member of the organization who is not a viewer.' },
  invalidTransition: { slug: 'invalid-transition', code: 'conflict', detail: 'The template is active; its status can no longer change (its document is frozen). Create a new template to change the document.' },
  invalidWebhookUrl: { slug: 'invalid-webhook-url', code: 'bad_request', detail: 'The webhook url is not one webhooks may reach.' },
  invitationLimit: { slug: 'invitation-limit', code: 'conflict', detail: 'The organization already has the most pending invitations allowed; delete one first.' },
  invitationNotFound: { slug: 'invitation-not-found', code: 'not_found', detail: 'Your organization has no pending invitation with this id.' },
  invitationsContended: { slug: 'invitations-contended', code: 'conflict', detail: 'The invitations are being changed by other requests at the same time; retry.' },
  jobFinished: { slug: 'job-finished', code: 'conflict', detail: 'The bulk job has already completed or been cancelled.' },
  jwtRequired: { slug: 'jwt-required', code: 'forbidden', detail: 'API keys cannot manage API keys: send the owner\'s access token (from Login).' },
  logEntryNotFound: { slug: 'log-entry-not-found', code: 'not_found', detail: 'The public log has no leaf with this value: this service completed no envelope with this sealed SHA-256 or audit trail head since its log began.' },
  linkExhausted: { slug: 'link-exhausted', code: 'gone', detail: 'This public link has made all the envelopes it may make (maxUses); ask its sender for another.' },
  linkExpired: { slug: 'link-expired', code: 'gone', detail: 'This public link has expired; ask its sender for another.' },
  lastDocument: { slug: 'last-document', code: 'conflict', detail: 'An envelope keeps at least one document: this is its last. Add another before removing it.' },
  loginThrottled: { slug: 'login-throttled', code: 'too_many_requests', detail: 'Too many failed logins for this account; wait before trying again.' },
  malformedJson: { slug: 'malformed-json', code: 'bad_request', detail: 'The request body is not valid JSON.' },
  memberNotFound: { slug: 'member-not-found', code: 'not_found', detail: 'Your organization has no member with this id.' },
  methodNotAllowed: { slug: 'method-not-allowed', code: 'method_not_allowed', detail: 'This endpoint does not take this method.' },
  missingToken: { slug: 'missing-token', code: 'unauthorized', detail: 'This endpoint needs an access token: send Authorization: Bearer <token>.' },
  noSigner: { slug: 'no-signer', code: 'conflict', detail: 'The envelope needs at least one signer with role "signer" first.' },
  notASigningRole: { slug: 'not-a-signing-role', code: 'conflict', detail: 'This recipient receives a copy (role cc): it has nothing to sign, so it has no signing view.' },
  notFound: { slug: 'not-found', code: 'not_found', detail: 'No such endpoint; the API lives under /api.' },
  notYourTurn: { slug: 'not-your-turn', code: 'conflict', detail: 'It is not this recipient\'s turn yet: it is invited when the recipients before it have acted.' },
  organizationContended: { slug: 'organization-contended', code: 'conflict', detail: 'The organization is being changed by other requests at the same time; retry.' },
  ownerProtected: { slug: 'owner-protected', code: 'conflict', detail: 'The owner cannot be removed: hand the organization over first (POST /api/organization/transfer).' },
  otpLimit: { slug: 'otp-limit', code: 'too_many_requests', detail: 'The most codes allowed were already sent for this signing link; ask the sender to resend the invitation.' },
  otpTooSoon: { slug: 'otp-too-soon', code: 'too_many_requests', detail: 'A code went out less than a minute ago; retry later.' },
  passwordHashingBusy: { slug: 'password-hashing-busy', code: 'service_unavailable', detail: 'Too many passwords are being checked right now; retry in a second.' },
  payloadTooLarge: { slug: 'payload-too-large', code: 'payload_too_large', detail: 'The request body is larger than 1048576 bytes.' },
  publicLinkLimit: { slug: 'public-link-limit', code: 'too_many_requests', detail: 'This e-mail address has had the most envelopes (or codes) this public link gives one address per UTC day; retry tomorrow.' },
  publicLinkNotFound: { slug: 'public-link-not-found', code: 'not_found', detail: 'No public link with this id is enabled.' },
  rateLimited: { slug: 'rate-limited', code: 'too_many_requests', detail: 'Too many requests; retry after the time in Retry-After.' },
  reassignNotAllowed: { slug: 'reassign-not-allowed', code: 'forbidden', detail: 'The sender of this envelope does not allow recipients to hand their part to someone else. Ask the sender instead.' },
  recipientExists: { slug: 'recipient-exists', code: 'conflict', detail: 'This address is already a recipient of the envelope.' },
  recipientIsCc: { slug: 'recipient-is-cc', code: 'conflict', detail: 'This recipient receives a copy (role cc): it gets no invitation, only the completed document.' },
  recipientLimit: { slug: 'recipient-limit', code: 'conflict', detail: 'The envelope already has the most recipients allowed.' },
  recipientNotFound: { slug: 'recipient-not-found', code: 'not_found', detail: 'This envelope has no recipient with this id.' },
  recipientsPending: { slug: 'recipients-pending', code: 'conflict', detail: 'Some recipients who must act have not acted yet.' },
  resendLimit: { slug: 'resend-limit', code: 'too_many_requests', detail: 'The recipient was already re-sent the most times allowed.' },
  resendTooSoon: { slug: 'resend-too-soon', code: 'too_many_requests', detail: 'The previous resend to this recipient was less than a minute ago; retry later.' },
  revocationUnavailable: { slug: 'revocation-unavailable', code: 'service_unavailable', detail: 'The revocation data of the sealing or timestamp certificates could not be fetched, so the document was not sealed. Try again later.' },
  roleCannotAct: { slug: 'role-cannot-act', code: 'forbidden', detail: 'You receive a copy of this envelope (role cc); there is nothing for you to sign.' },
  sealNotFound: { slug: 'seal-not-found', code: 'not_found', detail: 'This service sealed no document with this SHA-256.' },
  sealedImmutable: { slug: 'sealed-immutable', code: 'conflict', detail: 'The envelope is purged, except its sealed PDF, which storage keeps unchanged until its immutability period ends (immutableUntil).' },
  selfRemoval: { slug: 'self-removal', code: 'conflict', detail: 'You cannot remove yourself from the organization; the owner or another admin can.' },
  smsQuota: { slug: 'sms-quota', code: 'too_many_requests', detail: 'This would queue more text messages than the account has left today (UTC).' },
  storageUnavailable: { slug: 'storage-unavailable', code: 'service_unavailable', detail: 'Storage does not answer.' },
  templateContended: { slug: 'template-contended', code: 'conflict', detail: 'The template is being changed by other requests at the same time; retry.' },
  templateNotActive: { slug: 'template-not-active', code: 'conflict', detail: 'The template is a draft: activate it (status "active") before making envelopes from it.' },
  templateNotFound: { slug: 'template-not-found', code: 'not_found', detail: 'No template with this id exists.' },
  textTagInvalid: { slug: 'text-tag-invalid', code: 'unprocessable', detail: 'A text tag of the document is invalid (see errors). Nothing was changed.' },
  timestampAuthorityUnavailable: { slug: 'timestamp-authority-unavailable', code: 'service_unavailable', detail: 'The timestamp authority did not answer, so the document was not sealed. Try again later.' },
  tooManyFields: { slug: 'too-many-fields', code: 'unprocessable', detail: 'The document holds more text tags and form fields than an envelope has fields. Nothing was changed.' },
  unsupportedDocumentType: { slug: 'unsupported-document-type', code: 'unsupported_media_type', detail: 'Only PDF documents are accepted: mimetype must be application/pdf.' },
  unsupportedMediaType: { slug: 'unsupported-media-type', code: 'unsupported_media_type', detail: 'The request body must be JSON, sent with Content-Type: application/json.' },
  validationFailed: { slug: 'validation-failed', code: 'bad_request', detail: 'The request is invalid (see errors).' },
  valuesTooLarge: { slug: 'values-too-large', code: 'payload_too_large', detail: 'The values are too large to record; send fewer or shorter strokes.' },
  verificationTokenInvalid: { slug: 'verification-token-invalid', code: 'bad_request', detail: 'This verification link is not valid: its account does not exist.' },
  verificationTooSoon: { slug: 'verification-too-soon', code: 'too_many_requests', detail: 'A verification e-mail went out less than a minute ago: check your inbox, or retry later.' },
  webhookLimit: { slug: 'webhook-limit', code: 'conflict', detail: 'You already have the most webhooks allowed; delete one first.' },
  webhookNotFound: { slug: 'webhook-not-found', code: 'not_found', detail: 'No webhook with this id exists.' },
  webhooksContended: { slug: 'webhooks-contended', code: 'conflict', detail: 'The webhooks are being changed by other requests at the same time; retry.' },
} as const satisfies Record<string, ProblemEntry>;

/** A key of the catalogue: the compiler refuses any other. */
export type ProblemKey = keyof typeof problemCatalogue;

/** A slug of the catalogue (`envelope-contended`). */
export type ProblemSlug = (typeof problemCatalogue)[ProblemKey]['slug'];

/** What a throwing site may add to the catalogue's entry: a more specific `detail`, field errors, headers, extensions. */
export interface ProblemOptions extends Omit<AppErrorOptions, 'type'> {
  /** A sentence a person understands, more specific than the catalogue's default; sent to the client, so never secrets. */
  detail?: string;
}

/**
 * The error to throw for the catalogue's problem `key`.
 * @example throw problem('envelopeContended')
 * @example throw problem('validationFailed', { detail: 'The request body is invalid: name is required.', errors })
 */
export function problem(key: ProblemKey, options: ProblemOptions = {}): AppError {
  const entry: ProblemEntry = problemCatalogue[key];
  const { detail, ...rest } = options;
  return new AppError(entry.code, detail ?? entry.detail, { ...rest, type: entry.slug });
}

/** The HTTP status of the catalogue's problem `key`. */
export function problemStatus(key: ProblemKey): number {
  return errorStatus[problemCatalogue[key].code];
}

/** The `type` member of the catalogue's problem `key` (`urn:problem:<slug>`). */
export function problemType(key: ProblemKey): string {
  return problemTypeUri(problemCatalogue[key].slug);
}

/** The `type` member for a catalogue slug (`urn:problem:<slug>`), for the OpenAPI document's examples. */
export function problemTypeOfSlug(slug: ProblemSlug): string {
  return problemTypeUri(slug);
}

/** The catalogue's entries with their keys and statuses, in catalogue order. */
export function problemEntries(): { key: ProblemKey; slug: string; code: ErrorCode; status: number; detail: string }[] {
  return (Object.keys(problemCatalogue) as ProblemKey[]).map((key) => ({ key, ...problemCatalogue[key], status: problemStatus(key) }));
}
