/**
 * Completion (docs/api.md#what-completion-does): draw the recipients' values, append the certificate of
 * completion, seal with PAdES, store the sealed PDF, then mark the envelope completed. One path for
 * every way an envelope completes: the owner's `POST .../complete` (from `draft`, or from `sent` once
 * every recipient who must act has acted, which retries a completion that failed), the last
 * recipient's action (`recipients/act.ts`) and the sweeper ({@link retryCompletion}).
 *
 * Crash safety and concurrency (docs/api.md#what-completion-does step 5): the sealed blob is stored before the envelope
 * update that records it, and carries in its metadata the state it was sealed from (`envelopeversion`:
 * the envelope version it started from, and for a recipient's action also that request's nonce), its
 * hash, the original's hash, the completion time and when it was stored. The envelope becomes
 * `completed` only after that blob is stored, with an ETag-conditional write. A stored blob is
 * - reused when it was sealed from the same state (a retry after a crash, a concurrent complete);
 * - replaced (conditional on its ETag) when it was sealed from an older version, whose update can
 *   no longer succeed;
 * - otherwise another request's claim, about to commit: this one retries, until the claim's lease
 *   ({@link SEAL_LEASE_MS}, 10 s after the blob was stored or last renewed) has run out. A stored
 *   blob becomes the envelope's within milliseconds normally, so a lease that ran out means its
 *   attempt died (its process was killed) or stalls. The next attempt then takes it over: it first
 *   fences the claimer off (`EnvelopeRepository.fence` changes the envelope row's ETag, so the
 *   claimer's conditional update can never succeed, however late it comes), then replaces the blob,
 *   conditional on its ETag. A recipient whose action met a dead claim waits about 10 s, never two
 *   minutes, and no envelope records a blob that another attempt replaced.
 * An attempt renews its lease just before the update when it stored the blob over
 * {@link SEAL_REFRESH_AFTER_MS} ago (a slow request); a renewal that finds the blob replaced fails
 * the attempt, which then retries.
 */
import { createHash } from 'node:crypto';
import { assertVerifiedSender } from '../auth/emailVerification.js';
import type { Services } from '../services.js';
import type { DueKind } from '../storage/dueIndex.js';
import { storageStatus } from '../storage/keys.js';
import { EnvelopeChangedError, type StoredEnvelope } from '../storage/envelopeRepository.js';
import { sealDocument, type CertificateRecipient, type CompletionCertificate, type FieldDrawing } from '../pdf/index.js';
import { allActed, pendingRecipients } from '../recipients/routing.js';
import { describeAuditTrail, languageName } from './auditSentences.js';
import { DEFAULT_LOCALE, isSupportedLocale, translate, type Locale } from '../i18n/index.js';
import { Change, commitChange } from './change.js';
import { givenValues } from './fieldValues.js';
import { checkUpload, readFrozenDocument, refreshFrozenCopy, storeFrozenCopy, type CheckedDocument, type CleanedDocument } from './freeze.js';
import { readOwnedEnvelope } from './get.js';
import { assertHasSigner, ifMatchSatisfied } from './lifecycle.js';
import {
  deliveryOf,
  envelopeETag,
  isFinal,
  mustAct,
  ownerActor,
  recipientLocale,
  SYSTEM_ACTOR,
  type Actor,
  type AuditEvent,
  type EnvelopeRecord,
  type EventActor,
  type FieldValue,
  type RecipientAction,
  type Signer,
} from './model.js';
import { mutateEnvelope, preconditionFailed } from './mutate.js';
import { signedDocumentUrl } from './view.js';
import { problem } from '../problems.js';

/** Rounds of a completion: fewer than other changes', since each may seal the document. */
const MAX_COMPLETE_ATTEMPTS = 8;
/**
 * How long a stored sealed blob that is not yet the envelope's stays its attempt's claim after it was
 * stored or renewed, milliseconds; after that another attempt may fence the claimer off and take it over.
 */
export const SEAL_LEASE_MS = 10_000;
/** Renew the claim on a sealed blob older than this before the envelope update, milliseconds. */
export const SEAL_REFRESH_AFTER_MS = 3_000;
/** Due-index kind of completions to retry (docs/api.md#the-sweeper): id = envelope id. */
export const COMPLETION_DUE_KIND: DueKind = 'completion';

export interface CompleteEnvelopeOptions {
  services: Services;
  envelopeId: string;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. Ignored once the envelope is completed (retries are safe). */
  ifMatch: string | null;
  now?: () => Date;
  log?: (message: string) => void;
}

export interface CompletionResult {
  record: EnvelopeRecord;
  /** Read-only SAS URL of the sealed PDF, valid 15 minutes; `null` once the documents were purged (docs/api.md#delete-an-envelope-or-purge-its-documents). */
  signedUrl: string | null;
  /** Lower-case hex SHA-256 of the sealed PDF. */
  hash: string;
  /** False when the envelope was already completed and nothing was sealed. */
  sealedNow: boolean;
}

/** The sealed blob a completion records. */
export interface SealedBlob {
  hash: string;
  originalSha256: string;
  completedAt: string;
  etag: string;
  /** When this attempt stored or last claimed it, milliseconds since the epoch. */
  storedAt: number;
}

/** What identifies the state a blob is sealed from (see the module comment). */
export interface SealKey {
  /** The envelope version the completing request read. */
  baseVersion: number;
  /** A recipient's request: its nonce (its state is not stored yet); `null` for a stored state. */
  nonce: string | null;
}

/**
 * Completes the caller's envelope, or answers for one already completed.
 * @throws AppError 404 (missing or another owner's), 409 (`envelope-closed`; `no-signer`;
 *   `envelope-has-fields` from draft; `recipients-pending` from sent, naming them; document not
 *   uploaded), 412 (If-Match stale), 413/415/422 (document unusable), 503 (timestamp authority unavailable)
 */
export async function completeEnvelope({ services, envelopeId, actor, ifMatch, now = () => new Date(), log }: CompleteEnvelopeOptions): Promise<CompletionResult> {
  return await mutateEnvelope(services, { ownerId: actor.userId, envelopeId }, async (stored) => {
    const record = stored.record;
    if (record.status === 'completed') return await answerCompleted(services, record, false);
    if (isFinal(record.status)) {
      throw problem('envelopeClosed', { detail: `The envelope is ${record.status}; only draft or sent envelopes can be completed.` });
    }
    if (!ifMatchSatisfied(ifMatch, envelopeETag(record))) throw preconditionFailed();
    assertVerifiedSender(actor, services);
    try {
      const next = await completeStored({ services, stored, actor: ownerActor(actor), owner: actor, now: now(), ...(log === undefined ? {} : { log }) });
      return await answerCompleted(services, next, true);
    } catch (error) {
      // Without If-Match, or while another request seals the same state: the next round answers.
      if (ifMatch === null || !(error instanceof EnvelopeChangedError) || error instanceof SealContendedError) throw error;
      // With If-Match: completed by a concurrent request (answered as such), or changed meanwhile (412).
      const current = await readOwnedEnvelope(services.envelopes, actor.userId, envelopeId);
      if (current.record.status === 'completed') return await answerCompleted(services, current.record, false);
      throw preconditionFailed();
    }
  // A seal in progress takes a while: after a SealContendedError, the next round waits longer.
  }, { attempts: MAX_COMPLETE_ATTEMPTS, backoffRound: (round, error) => (error instanceof SealContendedError ? round + 5 : round) });
}

/**
 * Retries the completion of an envelope whose recipients have all acted (the sweeper,
 * docs/api.md#the-sweeper), as the `system` actor. Does nothing for an envelope that is completed, closed, missing, or
 * still waiting for someone; removes its `completion` due entry when it is done with it.
 * @returns whether the envelope is completed now
 * @throws what sealing throws (the entry stays, for the next sweep)
 */
export async function retryCompletion({ services, ownerId, envelopeId, now = () => new Date(), log }: { services: Services; ownerId: string; envelopeId: string; now?: () => Date; log?: (message: string) => void }): Promise<boolean> {
  return await mutateEnvelope(services, { ownerId, envelopeId }, async (stored) => {
    const record = stored.record;
    if (record.status !== 'sent' || !allActed(record)) {
      if (record.completionDueAt !== null && record.status !== 'sent') {
        await services.dueIndex.remove({ kind: COMPLETION_DUE_KIND, dueAt: record.completionDueAt, ownerId, id: envelopeId });
      }
      return record.status === 'completed';
    }
    await completeStored({ services, stored, actor: SYSTEM_ACTOR, owner: null, now: now(), ...(log === undefined ? {} : { log }) });
    return true;
  }, { attempts: MAX_COMPLETE_ATTEMPTS, missing: () => false, exhausted: () => false });
}

/**
 * Completes a stored `draft` (freezing its document) or a `sent` envelope whose recipients have all acted.
 * @throws EnvelopeChangedError when it changed meanwhile; SealContendedError when another request is sealing it
 */
async function completeStored({ services, stored, actor, owner, now, log }: { services: Services; stored: StoredEnvelope; actor: EventActor; owner: Actor | null; now: Date; log?: (message: string) => void }): Promise<EnvelopeRecord> {
  const record = stored.record;
  const change = new Change(record, now);
  if (owner !== null) change.recordOwner(owner);
  let checking: Promise<CleanedDocument> | undefined;
  if (record.status === 'draft') {
    assertHasSigner(record.signers);
    if (record.fields.length > 0) {
      throw problem('envelopeHasFields');
    }
    // A draft made from a template has its frozen document already (docs/api.md#templates): the seal reads it.
    if (record.documentSha256 === null) checking = checkUpload({ services, record });
  } else {
    const pending = pendingRecipients(record);
    if (pending.length > 0) {
      const names = pending.map((signer) => `${signer.name} <${signer.email}> (${signer.role}, ${signer.status})`);
      throw problem('recipientsPending', { detail: `Not every recipient has acted yet; waiting for ${pending.length}: ${names.join('; ')}.` });
    }
  }
  // A draft's upload is frozen while it is sealed: the seal works on the checked bytes in memory,
  // and both the frozen copy and the sealed blob are stored before the commit that records them.
  const storing = checking?.then(
    async (checked) =>
      await storeFrozenCopy({ services, record, checked, stillDraft: async () => (await services.envelopes.read(record.ownerId, record.id))?.record.status === 'draft' }),
  );
  const [sealing, freezing] = await Promise.allSettled([
    sealCompletion({ services, stored, change, actor, key: { baseVersion: record.version, nonce: null }, ...(checking === undefined ? {} : { document: checking }) }),
    storing,
  ]);
  // The freeze's fault first: a seal of bytes that could not be frozen is not to be reported.
  if (freezing.status === 'rejected') throw freezing.reason;
  if (sealing.status === 'rejected') throw sealing.reason;
  const sealed = sealing.value;
  if (freezing.value !== undefined) await refreshFrozenCopy(services, record, freezing.value);
  await refreshSealClaim(services, record, sealed);
  const [next] = await Promise.all([commitChange(services, stored, change, log === undefined ? {} : { log }), recordSeal(services, change.record, sealed)]);
  return next;
}

/**
 * Records a seal for verification (`VerifySeal`): written alongside the commit that completes the
 * envelope. Should that commit fail, the row names bytes that never left storage (the sealed URL is
 * given only once completed), so nobody can hold them to verify.
 */
export async function recordSeal(services: Services, record: Pick<EnvelopeRecord, 'id' | 'documentName'>, sealed: Pick<SealedBlob, 'hash' | 'completedAt'>): Promise<void> {
  await services.seals.put({ sha256: sealed.hash, envelopeId: record.id, completedAt: sealed.completedAt, documentName: record.documentName });
}

/**
 * Answers for a completed envelope and signs the URL. A completion sealed now recorded its seal
 * alongside its commit ({@link recordSeal}); for one completed before, the seal is recorded again
 * (idempotent: repairs a crash between the commit and that row).
 */
export async function answerCompleted(services: Services, record: EnvelopeRecord, sealedNow: boolean): Promise<CompletionResult> {
  const hash = record.hash!;
  if (!sealedNow) await recordSeal(services, record, { hash, completedAt: record.completedAt! });
  const signedUrl = record.purgedAt === null ? await signedDocumentUrl(services.storage.sas, record) : null;
  return { record, hash, signedUrl, sealedNow };
}

/** Another request is sealing the same state right now (see the module comment); retry shortly. */
export class SealContendedError extends EnvelopeChangedError {
  constructor() {
    super();
    this.name = 'SealContendedError';
  }
}

export interface SealCompletionOptions {
  services: Services;
  /** The envelope as the change read it: fenced (its ETag renewed) before a stale claim is taken over. */
  stored: StoredEnvelope;
  /** The state to complete (its recipients' actions applied), with the events and action rows of this request so far. */
  change: Change;
  /** Who completes: the owner, the last recipient, or the system. */
  actor: EventActor;
  key: SealKey;
  /**
   * A draft's upload as it is being checked, to seal before its frozen copy is stored: its SHA-256
   * and page count become the record's. Without it, the frozen copy is read from `originals`.
   */
  document?: Promise<CheckedDocument>;
}

/**
 * Seals `change.record` (or reuses the blob sealed from the same state) and applies the completion to
 * the change: status `completed`, `envelope.completed` (docs/api.md#evidence), the `envelope.completed`
 * webhook event, the `completed` e-mails to the owner and, for an envelope that was sent, to every
 * recipient (each recipient's carrying its link; one is made for recipients without), and the
 * removal of a `completion` due entry.
 * Call {@link refreshSealClaim} just before committing the change.
 * @throws AppError as `sealDocument` (422, 503); EnvelopeChangedError when a newer state was sealed;
 *   SealContendedError when another request is sealing the same state
 */
export async function sealCompletion({ services, stored, change, actor, key, document }: SealCompletionOptions): Promise<SealedBlob> {
  const record = change.record;
  const blob = services.storage.containers.sealed.getBlockBlobClient(record.blobName);
  const keyText = key.nonce === null ? String(key.baseVersion) : `${key.baseVersion}:${key.nonce}`;
  // Everything a seal reads, read at once: the stored blob's metadata decides whether the rest is
  // used (a blob sealed from this state is reused, rarely: a retry after a crash).
  const [existing, original, storedEvents, storedActions] = await Promise.all([
    readSealedMetadata(services, record.blobName),
    document ?? readFrozenDocument(services, record).then((bytes): CheckedDocument => ({ bytes, documentSha256: record.documentSha256!, pageCount: record.pageCount! })),
    services.envelopes.events(record.ownerId, record.id),
    services.envelopes.actions(record.ownerId, record.id),
  ]);
  record.documentSha256 = original.documentSha256;
  record.pageCount = original.pageCount;
  let sealed: SealedBlob | null = null;
  if (existing !== null && existing.key === keyText && existing.sealed !== undefined && existing.sealed.originalSha256 === record.documentSha256) {
    sealed = existing.sealed;
  } else {
    const completedAt = change.at;
    const pendingByRecipient = new Map(change.actions.map((action) => [action.recipientId, action]));
    const actions = new Map(storedActions.map((action) => [action.recipientId, action]));
    for (const [id, action] of pendingByRecipient) actions.set(id, action);
    const events = [...storedEvents, ...change.pendingEvents()];
    const { config } = services;
    const { sealed: bytes } = await sealDocument({
      document: original.bytes,
      // The frozen copy read here matched its recorded SHA-256, and those bytes passed the whole
      // inspection, decompression check included, when they were frozen (`freeze.ts`).
      inflateChecked: document === undefined,
      fieldDrawings: fieldDrawings(record, actions),
      removeFormFields: replacedFormFields(record),
      certificate: {
        locale: record.locale ?? DEFAULT_LOCALE,
        envelopeId: record.id,
        documentName: record.documentName,
        ownerEmail: record.ownerEmail ?? '',
        ownerName: record.ownerName ?? null,
        documentSha256: record.documentSha256!,
        pageCount: record.pageCount!,
        createdAt: record.createdAt,
        sentAt: record.sentAt,
        completedAt,
        recipients: certificateRecipients(record, actions, events),
        disclosure: agreedDisclosure(events),
        events: certificateEvents(record, events),
      },
      sealingP12: config.seal.p12,
      sealingPassphrase: config.seal.passphrase,
      ...(config.tsaUrl === undefined ? {} : { timestampAuthorityUrl: config.tsaUrl }),
      level: config.sealLevel,
      allowPrivateNetworks: config.webhookAllowPrivateNetworks,
    });
    const hash = sha256(bytes);
    const storedAt = Date.now();
    const { fence, ...conditions } = uploadConditions(existing, key);
    // A stale claim: its attempt can never commit once the envelope's ETag changed.
    if (fence) await services.envelopes.fence(stored);
    try {
      const response = await blob.uploadData(bytes, {
        blobHTTPHeaders: { blobContentType: 'application/pdf' },
        metadata: { envelopeversion: keyText, sha256: hash, originalsha256: record.documentSha256!, completedat: completedAt, storedat: String(storedAt) },
        conditions,
      });
      sealed = { hash, originalSha256: record.documentSha256!, completedAt, etag: response.etag!, storedAt };
    } catch (error) {
      const status = storageStatus(error);
      if (status !== 409 && status !== 412) throw error;
      // Another attempt stored a sealed blob first: use it if it was sealed from this state.
      const winner = await readSealedMetadata(services, record.blobName);
      if (winner?.key === keyText && winner.sealed !== undefined && winner.sealed.originalSha256 === record.documentSha256) {
        sealed = winner.sealed;
      } else {
        throw new SealContendedError();
      }
    }
  }

  record.status = 'completed';
  record.completedAt = sealed.completedAt;
  record.closedAt = sealed.completedAt;
  record.hash = sealed.hash;
  record.originalSha256 = sealed.originalSha256;
  change.event('envelope.completed', actor, { originalSha256: sealed.originalSha256, sealedSha256: sealed.hash });
  change.webhook('envelope.completed', { hash: sealed.hash });
  change.email('completed', null);
  // Recipients hear of a completion only when the envelope was sent to them: a draft the owner seals
  // as it is tells only the owner (`docs/api.md#completing-as-the-owner`).
  if (stored.record.status !== 'draft') {
    for (const signer of record.signers) {
      if (signer.link === null) change.newLink(signer, services.config.jwt.secret);
      change.email('completed', signer, { withLink: true });
    }
  }
  if (record.completionDueAt !== null) {
    change.dueDone.push({ kind: COMPLETION_DUE_KIND, dueAt: record.completionDueAt, ownerId: record.ownerId, id: record.id });
    record.completionDueAt = null;
  }
  return sealed;
}

/**
 * Renews the claim on the sealed blob when it was stored over {@link SEAL_REFRESH_AFTER_MS} ago (a
 * slow request), so that no other attempt takes it for a leftover while this one records it.
 * @throws SealContendedError when it was replaced meanwhile
 */
export async function refreshSealClaim(services: Services, record: Pick<EnvelopeRecord, 'blobName'>, sealed: SealedBlob): Promise<void> {
  if (Date.now() - sealed.storedAt < SEAL_REFRESH_AFTER_MS) return;
  const blob = services.storage.containers.sealed.getBlockBlobClient(record.blobName);
  const properties = await blob.getProperties();
  const storedAt = Date.now();
  try {
    await blob.setMetadata({ ...properties.metadata, storedat: String(storedAt) }, { conditions: { ifMatch: sealed.etag } });
  } catch (error) {
    const status = storageStatus(error);
    if (status === 412 || status === 404) throw new SealContendedError();
    throw error;
  }
}

/**
 * Where a new sealed blob may go, given what is stored (see the module comment); `fence`: the stored
 * blob is a stale claim of the same version, whose attempt must be fenced off first.
 */
function uploadConditions(existing: StoredSeal | null, key: SealKey): ({ ifNoneMatch: string } | { ifMatch: string }) & { fence: boolean } {
  if (existing === null) return { ifNoneMatch: '*', fence: false };
  if (existing.baseVersion < key.baseVersion) return { ifMatch: existing.etag, fence: false };
  if (existing.baseVersion > key.baseVersion) throw new EnvelopeChangedError();
  if (Date.now() - existing.storedAt > SEAL_LEASE_MS) return { ifMatch: existing.etag, fence: true };
  throw new SealContendedError();
}

interface StoredSeal {
  etag: string;
  key: string;
  baseVersion: number;
  storedAt: number;
  /** What the blob holds, when its metadata is complete. */
  sealed: SealedBlob | undefined;
}

/** The stored sealed blob's ETag, key and content; `null` when absent. */
async function readSealedMetadata(services: Services, blobName: string): Promise<StoredSeal | null> {
  try {
    const properties = await services.storage.containers.sealed.getBlockBlobClient(blobName).getProperties();
    const metadata = properties.metadata ?? {};
    const key = metadata.envelopeversion ?? '';
    const storedAt = Number(metadata.storedat ?? properties.lastModified?.getTime() ?? 0);
    const complete = metadata.sha256 && metadata.originalsha256 && metadata.completedat;
    return {
      etag: properties.etag!,
      key,
      baseVersion: Number.parseInt(key, 10) || 0,
      storedAt,
      sealed: complete
        ? { hash: metadata.sha256!, originalSha256: metadata.originalsha256!, completedAt: metadata.completedat!, etag: properties.etag!, storedAt }
        : undefined,
    };
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}

/**
 * The recipients' field values to draw (docs/api.md#what-completion-does step 2): every {@link givenValues given value} in
 * its field's rectangle, over the page as the signers saw it: a text tag's text is covered in the
 * frozen copy already (docs/api.md#fields-from-the-document), so nothing is painted under a value.
 */
export function fieldDrawings(record: Pick<EnvelopeRecord, 'fields' | 'signers'>, actions: Map<string, RecipientAction>): FieldDrawing[] {
  const values = new Map(givenValues(record, actions).map(({ field, value }) => [field.id, value]));
  return record.fields.flatMap((field): FieldDrawing[] => {
    const value = values.get(field.id);
    if (value === undefined) return [];
    return [{ page: field.page, x: field.x, y: field.y, width: field.width, height: field.height, type: field.type, value }];
  });
}

/** The document's form fields that became envelope fields (docs/api.md#fields-from-the-document): removed at sealing, their values drawn in their place. */
export function replacedFormFields(record: Pick<EnvelopeRecord, 'fields'>): string[] {
  return [...new Set(record.fields.flatMap((field) => (field.source === 'formField' && field.formFieldName !== undefined ? [field.formFieldName] : [])))];
}

/** Longest user agent the certificate prints, characters (the rest is cut, ending in `…`). */
const CERTIFICATE_USER_AGENT_LENGTH = 200;

/** The consent an acting event recorded, as `{text, version}`, else `null` (events recorded before consent was). */
function recordedConsent(event: AuditEvent): { text: string; version: string } | null {
  const consent = event.details.consent as { text?: unknown; version?: unknown } | undefined;
  return typeof consent?.text === 'string' && typeof consent.version === 'string' ? { text: consent.text, version: consent.version } : null;
}

const ACTING_EVENTS = new Set(['recipient.signed', 'recipient.approved', 'recipient.viewed']);

/** The disclosure of the newest consent in the trail (the one text printed on the certificate), or `null`. */
function agreedDisclosure(events: AuditEvent[]): { text: string; version: string } | null {
  for (const event of [...events].reverse()) {
    const consent = ACTING_EVENTS.has(event.type) ? recordedConsent(event) : null;
    if (consent !== null) return consent;
  }
  return null;
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

/** The recipient's own events that record how it came: each names the credential it used. */
const CREDENTIAL_EVENTS = new Set([
  'recipient.opened',
  'recipient.authenticated',
  'recipient.authentication_failed',
  'recipient.signed',
  'recipient.approved',
  'recipient.viewed',
  'recipient.declined',
  'recipient.reassigned',
]);

/**
 * How the recipient was identified ([Evidence](../../../docs/api.md#evidence)), in the certificate's
 * language: every proof its own events record, joined by the catalogue's `identification.separator`
 * (`; `; catalogue `certificate`, keys `identification.*`). First the credentials it used (`credential`
 * of its events: the signing link e-mailed to it, an embedded view the owner created), then the access
 * code or one-time code (and its channel) it entered right. For events recorded before they named
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
  const embedded = deliveryOf(signer) === 'embedded';
  if (unrecorded) {
    const viewCreated = events.some((event) => event.type === 'recipient.view_created' && event.details.recipientId === signer.id);
    if (embedded) credentials.add('embeddedView');
    else if (!viewCreated) credentials.add('signingLink');
    else if (credentials.size < 2) credentials.add('unrecorded');
  }
  const proofs: string[] = [];
  // An embedded recipient's link is never e-mailed (its views are its only way in), so it cannot have used one.
  if (credentials.has('signingLink') && !embedded) proofs.push(t('identification.link', { email: signer.email }));
  if (credentials.has('embeddedView')) proofs.push(t('identification.view'));
  if (credentials.has('unrecorded') && !credentials.has('signingLink') && !credentials.has('embeddedView')) {
    proofs.push(t('identification.linkOrView', { email: signer.email }));
  }
  const passed = own.filter((event) => event.type === 'recipient.authenticated');
  if (passed.some((event) => event.details.method === 'accessCode')) proofs.push(t('identification.accessCode'));
  // One-time codes go by e-mail; events recorded before they named the channel are e-mail ones too.
  if (passed.some((event) => event.details.method === 'emailOtp')) proofs.push(t('identification.oneTimeCodeEmail', { email: signer.email }));
  return proofs.length === 0 ? t('identification.none') : proofs.join(t('identification.separator'));
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

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
