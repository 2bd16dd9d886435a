/**
 * Completion (docs/api.md#what-completion-does): draw the recipients' values, append the certificate of
 * completion, seal with PAdES, store the sealed PDF, then mark the envelope completed. One path for
 * every way an envelope completes: the owner's `POST .../complete` (from `draft`, or from `sent` once
 * every recipient who must act has acted, which retries a completion that failed), the last
 * recipient's action (`recipients/recipientActions.ts`) and the sweeper ({@link retryCompletion}).
 *
 * Crash safety and concurrency (docs/api.md#what-completion-does step 5): the sealed blob is stored,
 * as this attempt's claim, before the envelope update that records it (`sealClaim.ts`); the envelope
 * becomes `completed` only after that, with an ETag-conditional write. The certificate's content is
 * `certificate.ts`'s.
 */
import { assertVerifiedSender } from '../auth/emailVerification.js';
import type { Services } from '../services.js';
import type { DueKind } from '../storage/dueIndex.js';
import { EnvelopeChangedError, type StoredEnvelope } from '../storage/envelopeRepository.js';
import { sealDocument, type FieldDrawing } from '../pdf/index.js';
import { allActed, pendingRecipients } from './routing.js';
import { completionCertificate } from './certificate.js';
import { Change, commitChange } from './change.js';
import { chainedEvents, headOf } from './auditChain.js';
import { chainEvents } from './auditHash.js';
import { envelopeOrganization } from '../organizations/envelopeOrganization.js';
import { givenValues } from './fieldValues.js';
import { checkUpload, readFrozenDocument, refreshFrozenCopy, storeFrozenCopy, type CheckedDocument, type CleanedDocument } from './freeze.js';
import { readOwnedEnvelope } from './get.js';
import { assertHasSigner, ifMatchSatisfied } from './lifecycle.js';
import {
  envelopeETag,
  isFinal,
  ownerActor,
  SYSTEM_ACTOR,
  type Actor,
  type EnvelopeRecord,
  type EventActor,
  type RecipientAction,
} from './model.js';
import { claimSealedBlob, readSealedMetadata, refreshSealClaim, SealContendedError, sealedFromState, type SealedBlob, type SealKey } from './sealClaim.js';
import { mutateEnvelope, mutateMembersEnvelope, preconditionFailed } from './mutate.js';
import { signedDocumentUrl } from './view.js';
import { problem } from '../problems.js';
import { inSealSpan, inSpan } from '../telemetry/index.js';
import { afterResponse } from '../afterResponse.js';
import { crashPoint } from '../crashPoint.js';
import { LOG_DUE_KIND, logDueEntry, logLeaves, makeHeadIfDue } from '../transparency/publicLog.js';

/** Rounds of a completion: fewer than other changes', since each may seal the document. */
const MAX_COMPLETE_ATTEMPTS = 8;
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

/**
 * Completes the caller's envelope, or answers for one already completed.
 * @throws AppError 404 (missing or another owner's), 409 (`envelope-closed`; `no-signer`;
 *   `envelope-has-fields` from draft; `recipients-pending` from sent, naming them; document not
 *   uploaded), 412 (If-Match stale), 413/415/422 (document unusable), 503 (timestamp authority unavailable)
 */
export async function completeEnvelope({ services, envelopeId, actor, ifMatch, now = () => new Date(), log }: CompleteEnvelopeOptions): Promise<CompletionResult> {
  return await mutateMembersEnvelope(services, actor, envelopeId, async (stored) => {
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
      const current = await readOwnedEnvelope(services.envelopes, record.ownerId, envelopeId);
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
  logCompletion(services, change, sealed);
  return next;
}

/**
 * After the commit that completed an envelope, without the caller waiting ({@link afterResponse}):
 * appends its leaves to the public log (docs/api.md#public-log: each sealed PDF's SHA-256, then the
 * audit trail's head), removes the change's `log` due entry, and makes a signed tree head if one is
 * due (docs/api.md#signed-tree-heads). A process that dies before the append leaves the due entry,
 * and the sweeper appends the envelope; appends are once per envelope, so both may run.
 * Crash point (`crashPoint.ts`): `log.beforeAppend`, the completion committed and nothing appended.
 */
export function logCompletion(services: Services, change: Change, sealed: Pick<SealedBlob, 'hash' | 'auditHead'>): void {
  crashPoint('log.beforeAppend');
  const envelopeId = change.record.id;
  const due = change.due.find((entry) => entry.kind === LOG_DUE_KIND);
  afterResponse.start(`Public log append of envelope ${envelopeId}`, async () => {
    await services.publicLog.append({ envelopeId, leaves: logLeaves([sealed.hash], sealed.auditHead) });
    if (due !== undefined) await services.dueIndex.remove(due);
    await makeHeadIfDue(services);
  });
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
  document?: Promise<CleanedDocument>;
}

/**
 * Seals `change.record` (or reuses the blob sealed from the same state) with its audit trail so far as
 * `audit.json` (docs/api.md#chained-audit-trail) and applies the completion to
 * the change: status `completed`, `envelope.completed` (docs/api.md#evidence) naming the trail's head as `auditHead`, the `envelope.completed`
 * webhook event, the `completed` e-mails to the owner and, for an envelope that was sent, to every
 * recipient (each recipient's carrying its link; one is made for recipients without), and the
 * removal of a `completion` due entry.
 * Call {@link refreshSealClaim} just before committing the change.
 * @throws AppError as `sealDocument` (422, 503); EnvelopeChangedError when a newer state was sealed;
 *   SealContendedError when another request is sealing the same state
 */
export async function sealCompletion(options: SealCompletionOptions): Promise<SealedBlob> {
  // The span `seal` and `seal.duration` (docs/api.md#telemetry), whichever way the envelope completes;
  // a race lost to another completion of the same envelope is `contended`, not a failure.
  const { services, change } = options;
  return await inSealSpan({ envelopeId: change.record.id, level: services.config.sealLevel }, async () => await sealAndApply(options), (error) => error instanceof EnvelopeChangedError);
}

/** {@link sealCompletion}'s work: read, seal (or reuse), store, and apply the completion to the change. */
async function sealAndApply({ services, stored, change, actor, key, document }: SealCompletionOptions): Promise<SealedBlob> {
  const record = change.record;
  // Everything a seal reads, read at once: the stored blob's metadata decides whether the rest is
  // used (a blob sealed from this state is reused, rarely: a retry after a crash).
  const [existing, original, storedEvents, storedActions, organizationId] = await inSpan('seal.read', {}, async () => await Promise.all([
    readSealedMetadata(services, record.blobName),
    document ?? readFrozenDocument(services, record).then((bytes): CheckedDocument & Partial<Pick<CleanedDocument, 'uploadSha256' | 'removed'>> => ({ bytes, documentSha256: record.documentSha256!, pageCount: record.pageCount! })),
    chainedEvents(services, stored.record),
    services.envelopes.actions(record.ownerId, record.id),
    envelopeOrganization(services, stored.record),
  ]));
  record.documentSha256 = original.documentSha256;
  record.pageCount = original.pageCount;
  // Every event before `envelope.completed` (which names the sealed hash, so it cannot be sealed),
  // this request's own chained as `commitChange` will chain them (docs/api.md#chained-audit-trail).
  const events = [...storedEvents.filter((event) => event.sequence <= stored.record.auditSequence), ...chainEvents(change.pendingEvents(), organizationId, headOf(stored.record, storedEvents))];
  const auditHead = events.at(-1)!.hash;
  let sealed = sealedFromState(existing, key, original.documentSha256, auditHead);
  if (sealed === null) {
    const completedAt = change.at;
    const pendingByRecipient = new Map(change.actions.map((action) => [action.recipientId, action]));
    const actions = new Map(storedActions.map((action) => [action.recipientId, action]));
    for (const [id, action] of pendingByRecipient) actions.set(id, action);
    const { config } = services;
    // Drawing, the certificate and the PAdES signature (timestamp and validation data with them), in the seal worker.
    const { sealed: bytes } = await inSpan('seal.sign', { 'seal.level': config.sealLevel }, async () => await sealDocument({
      document: original.bytes,
      // The frozen copy read here matched its recorded SHA-256, and those bytes passed the whole
      // inspection, decompression check included, when they were frozen (`freeze.ts`).
      inflateChecked: document === undefined,
      fieldDrawings: fieldDrawings(record, actions),
      removeFormFields: replacedFormFields(record),
      // A draft frozen in this request: its upload's hash and what was removed come from the check;
      // otherwise from the `envelope.sent` event.
      certificate: completionCertificate(record, actions, events, completedAt, auditHead, original.uploadSha256 === undefined ? undefined : { uploadSha256: original.uploadSha256, removed: original.removed ?? [] }),
      auditTrail: new TextEncoder().encode(JSON.stringify(events)),
      sealingP12: config.seal.p12,
      sealingPassphrase: config.seal.passphrase,
      ...(config.tsaUrl === undefined ? {} : { timestampAuthorityUrl: config.tsaUrl }),
      level: config.sealLevel,
      allowPrivateNetworks: config.outboundAllowPrivateNetworks,
    }));
    sealed = await inSpan('seal.store', {}, async () => await claimSealedBlob({ services, stored, blobName: record.blobName, existing, key, bytes, originalSha256: original.documentSha256, completedAt, auditHead }));
  }

  record.status = 'completed';
  record.completedAt = sealed.completedAt;
  record.closedAt = sealed.completedAt;
  record.hash = sealed.hash;
  record.originalSha256 = sealed.originalSha256;
  change.event('envelope.completed', actor, { originalSha256: sealed.originalSha256, sealedSha256: sealed.hash, auditHead: sealed.auditHead });
  // The public append-only log (docs/api.md#public-log) takes its leaves from this completion: the
  // sealed PDF's SHA-256, then the chain head it seals. Its due entry, written before the commit, lets
  // the sweeper append them should this process die after the commit ({@link logCompletion}).
  change.due.push(logDueEntry(record, change.at));
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
