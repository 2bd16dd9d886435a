/**
 * The certificate of completion's content (docs/api.md#evidence, docs/api.md#what-completion-does):
 * each recipient's block (who, how identified, in which language, with which consent and signature),
 * the consent's disclosure and the audit trail as sentences, from the envelope, its recipients'
 * actions and its events. `pdf/certificatePage.ts` draws it; `complete.ts` seals with it.
 */
import type { CertificateRecipient, CompletionCertificate } from '../pdf/index.js';
import { describeAuditTrail, languageName } from './auditSentences.js';
import { DEFAULT_LOCALE, isSupportedLocale, translate, type Locale } from '../i18n/index.js';
import { AUDIT_EVENT_TYPES, deliversBy, isEmbedded, mustAct, recipientLocale, type AuditEvent, type EnvelopeRecord, type RecipientAction, type Signer } from './model.js';
import { maskPhone } from '../phone.js';
import { nameAndAddress } from '../nameAndAddress.js';
import { usedAttachments } from './attachments.js';

/**
 * The certificate of `record` completed at `completedAt` (ISO 8601 UTC), from its recipients' actions
 * by recipient id and its whole audit trail so far (`events`, this completion's own included), whose
 * last event's `hash` is `auditHead` (docs/api.md#chained-audit-trail).
 * `record` holds the frozen document's SHA-256 and page count.
 */
export function completionCertificate(
  record: EnvelopeRecord,
  actions: Map<string, RecipientAction>,
  events: AuditEvent[],
  completedAt: string,
  auditHead: string,
  frozenNow?: { uploadSha256: string | null; removed: readonly string[] },
): CompletionCertificate {
  const upload = frozenNow ?? sentUpload(events);
  const attachments = usedAttachments(record, actions).map(({ field, signer, value }) => ({
    field: field.label ?? `${field.type} ${field.id}`,
    name: value.name,
    contentType: value.contentType,
    size: value.size,
    sha256: value.sha256,
    uploadedBy: nameAndAddress(signer.name, signer.email),
    uploadedAt: value.uploadedAt,
  }));
  return {
    locale: record.locale ?? DEFAULT_LOCALE,
    envelopeId: record.id,
    documentName: record.documentName,
    ownerEmail: record.ownerEmail ?? '',
    ownerName: record.ownerName ?? null,
    documentSha256: record.documentSha256!,
    uploadSha256: upload?.uploadSha256 ?? null,
    removed: [...(upload?.removed ?? [])],
    pageCount: record.pageCount!,
    createdAt: record.createdAt,
    sentAt: record.sentAt,
    completedAt,
    recipients: certificateRecipients(record, actions, events),
    disclosures: agreedDisclosures(record, events),
    events: certificateEvents(record, events),
    auditHead,
    // The signers' files (docs/api.md#files-from-signers), when there are any.
    ...(attachments.length === 0 ? {} : { attachments }),
  };
}

/** Longest user agent the certificate prints, characters (the rest is cut, ending in `…`). */
const CERTIFICATE_USER_AGENT_LENGTH = 200;

/**
 * The consent an acting event recorded, as `{text, version, locale}`, else `null` (events recorded
 * before consent was). Events recorded before disclosures had languages showed the English text.
 */
function recordedConsent(event: AuditEvent): { text: string; version: string; locale: Locale } | null {
  const consent = event.details.consent as { text?: unknown; version?: unknown; locale?: unknown } | undefined;
  if (typeof consent?.text !== 'string' || typeof consent.version !== 'string') return null;
  return { text: consent.text, version: consent.version, locale: isSupportedLocale(consent.locale) ? consent.locale : DEFAULT_LOCALE };
}

const ACTING_EVENTS = new Set(['recipient.signed', 'recipient.approved', 'recipient.viewed']);

/**
 * Every distinct disclosure agreed to in the trail, by version, in the order first agreed to: the
 * certificate prints each once (docs/api.md#consent-to-electronic-signatures), naming its language
 * in the certificate's language.
 */
function agreedDisclosures(record: Pick<EnvelopeRecord, 'locale'>, events: AuditEvent[]): CompletionCertificate['disclosures'] {
  const byVersion = new Map<string, CompletionCertificate['disclosures'][number]>();
  for (const event of events) {
    const consent = ACTING_EVENTS.has(event.type) ? recordedConsent(event) : null;
    if (consent !== null && !byVersion.has(consent.version)) {
      byVersion.set(consent.version, { text: consent.text, version: consent.version, language: languageName(record.locale ?? DEFAULT_LOCALE, consent.locale) });
    }
  }
  return [...byVersion.values()];
}

/**
 * What the newest `envelope.sent` event records of the upload (docs/api.md#evidence): its SHA-256
 * and the kinds of active content removed; `null` when the envelope was never sent or its send
 * recorded no upload hash (sent before it was recorded, or made from a template frozen before).
 */
function sentUpload(events: readonly AuditEvent[]): { uploadSha256: string; removed: string[] } | null {
  const details = [...events].reverse().find((event) => event.type === 'envelope.sent')?.details ?? {};
  const { uploadSha256, removed } = details;
  if (typeof uploadSha256 !== 'string') return null;
  return { uploadSha256, removed: Array.isArray(removed) ? removed.filter((kind): kind is string => typeof kind === 'string') : [] };
}

/** The audit trail as the certificate prints it: a sentence per event, with its type, time and IP. */
function certificateEvents(record: EnvelopeRecord, events: AuditEvent[]): CompletionCertificate['events'] {
  const sentences = describeAuditTrail(
    events.map((event) => ({ ...event, actorEmail: eventActorEmail(record, event) })),
    { ownerId: record.ownerId, ownerEmail: record.ownerEmail, recipients: record.signers },
    record.locale ?? DEFAULT_LOCALE,
  );
  return events.map((event, index) => ({ sequence: event.sequence, type: event.type, at: event.at, sentence: sentences[index]!, ip: event.ip }));
}

/** A user agent as the certificate prints it: at most {@link CERTIFICATE_USER_AGENT_LENGTH} characters. */
function reportedUserAgent(userAgent: string | null): string | null {
  if (userAgent === null) return null;
  const characters = Array.from(userAgent);
  return characters.length <= CERTIFICATE_USER_AGENT_LENGTH ? userAgent : `${characters.slice(0, CERTIFICATE_USER_AGENT_LENGTH - 1).join('')}…`;
}

/** Each recipient's block on the certificate (docs/api.md#evidence, docs/api.md#consent-to-electronic-signatures). */
function certificateRecipients(record: EnvelopeRecord, actions: Map<string, RecipientAction>, events: AuditEvent[]): CertificateRecipient[] {
  return record.signers.map((signer) => {
    const action = actions.get(signer.id);
    const acted = events.find((event) => ACTING_EVENTS.has(event.type) && event.details.recipientId === signer.id);
    const consent = acted === undefined ? null : recordedConsent(acted);
    return {
      id: signer.id,
      name: signer.name,
      email: signer.email,
      role: signer.role,
      routingOrder: signer.routingOrder,
      status: signer.status,
      actedAt: signer.actedAt,
      ip: action?.ip ?? null,
      userAgent: reportedUserAgent(action?.userAgent ?? null),
      consent: acted === undefined || consent === null ? null : { at: acted.at, version: consent.version },
      identification: mustAct(signer) && signer.invitedAt !== null ? recipientIdentification(record, signer, events) : null,
      language: mustAct(signer) && signer.invitedAt !== null ? shownLanguage(record, signer, events) : null,
      signature: signer.role === 'signer' ? (action?.signature ?? null) : null,
    };
  });
}

/**
 * The recipient's own events, which record how it came: each names the credential it used. Every
 * `recipient.*` event but those the service or the owner makes about the recipient.
 */
const CREDENTIAL_EVENTS: ReadonlySet<string> = new Set(
  AUDIT_EVENT_TYPES.filter((type) => type.startsWith('recipient.') && !['recipient.invited', 'recipient.reminded', 'recipient.view_created', 'recipient.sms_opted_out'].includes(type)),
);

/**
 * How the recipient was identified ([Evidence](../../../docs/api.md#evidence)), in the certificate's
 * language: every proof its own events record, joined by the catalogue's `identification.separator`
 * (`; `; catalogue `certificate`, keys `identification.*`). First the credentials it used (`credential`
 * of its events: the signing link e-mailed to it, an embedded view the owner created), then the access
 * code or one-time code (and its channel, the number masked as `+49 *** *** 12 34`) it entered right.
 * The link's proof names how it was delivered: e-mailed, texted, or both. For events recorded before they named
 * their credential: an embedded recipient had only views, a recipient with no view created only its
 * link; else the line says that which of the two is not recorded. A recipient who never came:
 * `identification.none`.
 * @returns the line, e.g. `Signing link e-mailed to ada@example.com; Access code`
 */
export function recipientIdentification(record: Pick<EnvelopeRecord, 'locale'>, signer: Signer, events: readonly AuditEvent[]): string {
  const locale = record.locale ?? DEFAULT_LOCALE;
  const t = (key: string, values?: Record<string, string>) => translate(locale, 'certificate', key, values);
  const own = events.filter((event) => event.actorId === signer.id && CREDENTIAL_EVENTS.has(event.type) && event.details.recipientId === signer.id);
  if (own.length === 0) return t('identification.none');
  const credentials = new Set<string>();
  let unrecorded = false;
  for (const event of own) {
    const credential = event.details.credential;
    if (credential === 'signingLink' || credential === 'embeddedView') credentials.add(credential);
    else unrecorded = true;
  }
  const embedded = isEmbedded(signer);
  if (unrecorded) {
    const viewCreated = events.some((event) => event.type === 'recipient.view_created' && event.details.recipientId === signer.id);
    if (embedded) credentials.add('embeddedView');
    else if (!viewCreated) credentials.add('signingLink');
    else if (credentials.size < 2) credentials.add('unrecorded');
  }
  const proofs: string[] = [];
  // An embedded recipient's link is never e-mailed (its views are its only way in), so it cannot have used one.
  if (credentials.has('signingLink') && !embedded) proofs.push(linkProof(signer, events, t));
  if (credentials.has('embeddedView')) proofs.push(t('identification.view'));
  if (credentials.has('unrecorded') && !credentials.has('signingLink') && !credentials.has('embeddedView')) {
    proofs.push(t('identification.linkOrView', { email: signer.email }));
  }
  const passed = own.filter((event) => event.type === 'recipient.authenticated');
  if (passed.some((event) => event.details.method === 'accessCode')) proofs.push(t('identification.accessCode'));
  // A code's channel as its event recorded it; events recorded before they named it were e-mailed codes.
  const codeChannels = new Set(passed.filter((event) => event.details.method === 'emailOtp' || event.details.method === 'sms').map((event) => (event.details.channel === 'sms' ? 'sms' : 'email')));
  if (codeChannels.has('email')) proofs.push(t('identification.oneTimeCodeEmail', { email: signer.email }));
  if (codeChannels.has('sms')) proofs.push(t('identification.oneTimeCodeSms', { phone: maskedPhone(signer) }));
  return proofs.length === 0 ? t('identification.none') : proofs.join(t('identification.separator'));
}

/** The recipient's number as the certificate prints it (docs/api.md#how-each-recipient-was-identified). */
function maskedPhone(signer: Signer): string {
  return signer.phone === undefined ? '' : maskPhone(signer.phone);
}

/**
 * How the signing link reached the recipient: by e-mail, by text message to its number (masked), or
 * both, as its `delivery` says; a number that had opted out (`recipient.sms_opted_out` for it) was not
 * texted, its link went by e-mail (docs/api.md#opting-out-of-text-messages).
 */
function linkProof(signer: Signer, events: readonly AuditEvent[], t: (key: string, values?: Record<string, string>) => string): string {
  const optedOut = events.some((event) => event.type === 'recipient.sms_opted_out' && event.details.recipientId === signer.id);
  const texted = deliversBy(signer, 'sms') && signer.phone !== undefined && !optedOut;
  const emailed = deliversBy(signer, 'email') || !texted;
  if (texted && emailed) return t('identification.linkEmailSms', { email: signer.email, phone: maskedPhone(signer) });
  if (texted) return t('identification.linkSms', { phone: maskedPhone(signer) });
  return t('identification.link', { email: signer.email });
}

/**
 * The language the service showed the recipient ([Languages](../../../docs/api.md#languages)), by its
 * name in the certificate's language and its tag (`German (de)`): the `locale` its newest event
 * records, else (events recorded before they did) its own locale, else the envelope's.
 */
export function shownLanguage(record: Pick<EnvelopeRecord, 'locale'>, signer: Signer, events: readonly AuditEvent[]): string {
  const recorded = [...events].reverse().find((event) => event.actorId === signer.id && CREDENTIAL_EVENTS.has(event.type) && isSupportedLocale(event.details.locale));
  const tag = recorded === undefined ? recipientLocale(record, signer) : (recorded.details.locale as Locale);
  return languageName(record.locale ?? DEFAULT_LOCALE, tag);
}

/** The actor of an event by e-mail: recorded since recipients act; for events of older versions, the owner's. */
function eventActorEmail(record: EnvelopeRecord, event: AuditEvent): string | null {
  if (event.actorEmail !== null) return event.actorEmail;
  return event.actorId === record.ownerId ? record.ownerEmail : null;
}
