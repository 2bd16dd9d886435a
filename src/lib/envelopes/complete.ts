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
import { mapConcurrently } from '../concurrency.js';
import { crashPoint } from '../crashPoint.js';
import type { Services } from '../services.js';
import type { DueKind } from '../storage/dueIndex.js';
import { EnvelopeChangedError, type StoredEnvelope } from '../storage/envelopeRepository.js';
import { sealDocument, type CertificateDocument, type FieldDrawing, type SealOptions } from '../pdf/index.js';
import { allActed, pendingRecipients } from './routing.js';
import { completionCertificate } from './certificate.js';
import { Change, commitChange } from './change.js';
import { readQuotaRowsAhead } from './dailyQuota.js';
import { chainedEvents, headOf } from './auditChain.js';
import { chainEvents } from './auditHash.js';
import { envelopeOrganization } from '../organizations/envelopeOrganization.js';
import { givenValues } from './fieldValues.js';
import { checkUpload, readFrozenDocument, refreshFrozenCopy, storeFrozenCopy, type CheckedDocument, type CleanedDocument } from './freeze.js';
import { readOwnedEnvelope } from './get.js';
import { assertHasSigner, ifMatchSatisfied } from './lifecycle.js';
import {
  envelopeETag,
  isAttachmentValue,
  isFinal,
  ownerActor,
  SYSTEM_ACTOR,
  type Actor,
  type EnvelopeDocument,
  type EnvelopeRecord,
  type EventActor,
  type Field,
  type RecipientAction,
} from './model.js';
import { claimSealedBlob, readSealedMetadata, refreshSealClaim, renewSealClaim, SealContendedError, sealedFromState, storeOtherSealedBlob, type SealedBlob, type SealKey } from './sealClaim.js';
import { documentsOf, fieldDocumentId, sealedDocuments, setDocuments } from './documents.js';
import { freezePacket, refreshPacket, type FrozenPacket } from './freezePacket.js';
import { mutateEnvelope, mutateMembersEnvelope, preconditionFailed } from './mutate.js';
import { signedDocumentUrl } from './view.js';
import { attachmentsToSeal } from './attachments.js';
import { problem } from '../problems.js';
import { inSealSpan, inSpan } from '../telemetry/index.js';
import { afterResponse } from '../afterResponse.js';
import { LOG_DUE_KIND, logDueEntry, logLeaves, makeHeadIfDue } from '../transparency/publicLog.js';

/** Rounds of a completion: fewer than other changes', since each may seal the document. */
const MAX_COMPLETE_ATTEMPTS = 8;
/** Documents after the first sealed at a time (`separate`): at most two documents' bytes in hand, one in the seal worker. */
const OTHER_SEALS_CONCURRENCY = 2;
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
  /**
   * Every document with the sealed PDF that holds it (docs/api.md#several-documents): its own with
   * `separate` output, the one combined PDF with `combined`; `signedUrl` `null` once purged.
   */
  documents: { id: string; name: string; signedUrl: string | null; hash: string }[];
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
  let packet: FrozenPacket | undefined;
  if (record.status === 'draft') {
    assertHasSigner(record.signers);
    if (record.fields.length > 0) {
      throw problem('envelopeHasFields');
    }
    if (documentsOf(record).length > 1) {
      // Several documents (docs/api.md#several-documents): each frozen first, then sealed from its frozen copy.
      packet = await freezePacket(services, record, async () => (await services.envelopes.read(record.ownerId, record.id))?.record.status === 'draft');
      setDocuments(change.record, packet.documents);
    } else if (record.documentSha256 === null) {
      // A draft made from a template has its frozen document already (docs/api.md#templates): the seal reads it.
      checking = checkUpload({ services, record });
    }
  } else {
    const pending = pendingRecipients(record);
    if (pending.length > 0) {
      const names = pending.map((signer) => `${signer.name} <${signer.email}> (${signer.role}, ${signer.status})`);
      throw problem('recipientsPending', { detail: `Not every recipient has acted yet; waiting for ${pending.length}: ${names.join('; ')}.` });
    }
  }
  // The organisation's e-mail quota row is read while the document is sealed: the commit counts the
  // completion's e-mails against it (docs/api.md#rate-limits-and-quotas).
  const quotaRowsAhead = record.organizationId == null ? undefined : readQuotaRowsAhead(services.storage.tables.envelopes, record.organizationId, ['email']);
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
  if (packet !== undefined) await refreshPacket(services, packet);
  await refreshSealClaim(services, change.record, sealed);
  const [next] = await Promise.all([commitChange(services, stored, change, { ...(log === undefined ? {} : { log }), ...(quotaRowsAhead === undefined ? {} : { quotaRowsAhead }) }), recordSeal(services, change.record, sealed)]);
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
    await services.publicLog.append({ envelopeId, leaves: logLeaves(change.record.sealedHashes ?? [sealed.hash], sealed.auditHead) });
    if (due !== undefined) await services.dueIndex.remove(due);
    await makeHeadIfDue(services);
  });
}

/**
 * Records a seal for verification (`VerifySeal`): written alongside the commit that completes the
 * envelope. Should that commit fail, the row names bytes that never left storage (the sealed URL is
 * given only once completed), so nobody can hold them to verify.
 */
export async function recordSeal(services: Services, record: EnvelopeRecord, sealed: Pick<SealedBlob, 'hash' | 'completedAt'>): Promise<void> {
  // Every sealed PDF (docs/api.md#several-documents): each named by the first document it holds.
  const byHash = new Map<string, string>();
  for (const { hash, document } of sealedDocuments(record)) if (!byHash.has(hash)) byHash.set(hash, document.name);
  if (!byHash.has(sealed.hash)) byHash.set(sealed.hash, record.documentName);
  await Promise.all([...byHash].map(async ([sha256, documentName]) => await services.seals.put({ sha256, envelopeId: record.id, completedAt: sealed.completedAt, documentName })));
}

/**
 * Answers for a completed envelope and signs the URL. A completion sealed now recorded its seal
 * alongside its commit ({@link recordSeal}); for one completed before, the seal is recorded again
 * (idempotent: repairs a crash between the commit and that row).
 */
export async function answerCompleted(services: Services, record: EnvelopeRecord, sealedNow: boolean): Promise<CompletionResult> {
  const hash = record.hash!;
  if (!sealedNow) await recordSeal(services, record, { hash, completedAt: record.completedAt! });
  const purged = record.purgedAt !== null;
  const signedUrl = purged ? null : await signedDocumentUrl(services.storage.sas, record);
  const documents = await Promise.all(
    sealedDocuments(record).map(async ({ document, hash: documentHash, blobName }) => ({
      id: document.id,
      name: document.name,
      signedUrl: purged ? null : await signedDocumentUrl(services.storage.sas, { blobName }),
      hash: documentHash,
    })),
  );
  return { record, hash, signedUrl, documents, sealedNow };
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
  // A draft of one document whose list is stored (one was added, then removed): its entry gets the frozen facts too.
  if (record.documents?.length === 1) {
    const [only] = record.documents;
    setDocuments(record, [{ ...only!, sha256: original.documentSha256, pageCount: original.pageCount, ...(original.uploadSha256 === undefined ? {} : { uploadSha256: original.uploadSha256, removed: [...(original.removed ?? [])] }) }]);
  }
  // Every event before `envelope.completed` (which names the sealed hash, so it cannot be sealed),
  // this request's own chained as `commitChange` will chain them (docs/api.md#chained-audit-trail).
  const events = [...storedEvents.filter((event) => event.sequence <= stored.record.auditSequence), ...chainEvents(change.pendingEvents(), organizationId, headOf(stored.record, storedEvents))];
  const auditHead = events.at(-1)!.hash;
  const pendingByRecipient = new Map(change.actions.map((action) => [action.recipientId, action]));
  const actions = new Map(storedActions.map((action) => [action.recipientId, action]));
  for (const [id, action] of pendingByRecipient) actions.set(id, action);
  // Several documents (docs/api.md#several-documents): `combined` seals one PDF of them all, in order;
  // `separate` seals the first here (its blob is the completion's claim), then each other one below.
  const documents = documentsOf(record);
  const first = documents[0]!;
  const combined = documents.length > 1 && record.output === 'combined';
  const { config } = services;
  // The signers' files, embedded in every sealed PDF (docs/api.md#files-from-signers).
  const { files: attachments, images } = await attachmentsToSeal(services, record, actions);
  const sealWith = async (options: Pick<SealOptions, 'document' | 'inflateChecked' | 'fieldDrawings' | 'removeFormFields' | 'appendDocuments'>, completedAt: string): Promise<Uint8Array> => {
    // A draft frozen in this request: its upload's hash and what was removed come from the check;
    // otherwise from the `envelope.sent` event.
    const certificate = completionCertificate(record, actions, events, completedAt, auditHead, original.uploadSha256 === undefined ? undefined : { uploadSha256: original.uploadSha256, removed: original.removed ?? [] });
    // Drawing, the certificate and the PAdES signature (timestamp and validation data with them), in the seal worker.
    const { sealed: bytes } = await inSpan('seal.sign', { 'seal.level': config.sealLevel }, async () => await sealDocument({
      ...options,
      certificate: documents.length > 1 ? { ...certificate, documents: certificateDocuments(documents) } : certificate,
      auditTrail: new TextEncoder().encode(JSON.stringify(events)),
      ...(attachments.length === 0 ? {} : { attachments }),
      sealingP12: config.seal.p12,
      sealingPassphrase: config.seal.passphrase,
      ...(config.tsaUrl === undefined ? {} : { timestampAuthorityUrl: config.tsaUrl }),
      level: config.sealLevel,
      allowPrivateNetworks: config.outboundAllowPrivateNetworks,
    }));
    return bytes;
  };
  let sealed = sealedFromState(existing, key, original.documentSha256, auditHead);
  if (sealed === null) {
    const completedAt = change.at;
    const bytes = await sealWith(
      {
        document: original.bytes,
        // The frozen copy read here matched its recorded SHA-256, and those bytes passed the whole
        // inspection, decompression check included, when they were frozen (`freeze.ts`).
        inflateChecked: document === undefined,
        fieldDrawings: fieldDrawings(record, actions, combined ? combinedPage(documents) : pageWithin(first), images),
        removeFormFields: replacedFormFields(record, combined ? undefined : first),
        ...(combined ? { appendDocuments: await Promise.all(documents.slice(1).map(async (other) => await readFrozenDocument(services, { id: record.id, blobName: other.blobName, documentSha256: other.sha256 }))) } : {}),
      },
      completedAt,
    );
    sealed = await inSpan('seal.store', {}, async () => await claimSealedBlob({ services, stored, blobName: record.blobName, existing, key, bytes, originalSha256: original.documentSha256, completedAt, auditHead }));
  }
  if (documents.length > 1 && !combined) {
    const claim = sealed;
    // The first document's claim is this attempt's lock on every sealed blob of the envelope: renewed
    // as it goes (one renewal at a time), the other blobs checked once all are stored (`refreshSealClaim`).
    let renewing: Promise<void> | undefined;
    const renew = async () => {
      renewing ??= renewSealClaim(services, record, claim).finally(() => {
        renewing = undefined;
      });
      await renewing;
    };
    // Two at a time, in order: the worker seals one while the other is read or stored.
    claim.others = await mapConcurrently(documents.slice(1), OTHER_SEALS_CONCURRENCY, async (other) => {
      await renew();
      const [existingOther, frozen] = await Promise.all([
        readSealedMetadata(services, other.blobName),
        readFrozenDocument(services, { id: record.id, blobName: other.blobName, documentSha256: other.sha256 }),
      ]);
      const stored = await storeOtherSealedBlob({ services, blobName: other.blobName, existing: existingOther, key, originalSha256: other.sha256!, completedAt: claim.completedAt, auditHead }, async () =>
        await sealWith(
          {
            document: frozen,
            inflateChecked: true,
            fieldDrawings: fieldDrawings(record, actions, pageWithin(other, first), images),
            removeFormFields: replacedFormFields(record, other, first),
          },
          claim.completedAt,
        ),
      );
      // The crash tests' point: some documents sealed and stored, the envelope not yet completed.
      crashPoint('completion.partlySealed');
      return stored;
    });
  }
  record.sealedHashes = [sealed.hash, ...(sealed.others ?? []).map((other) => other.hash)];

  record.status = 'completed';
  record.completedAt = sealed.completedAt;
  record.closedAt = sealed.completedAt;
  record.hash = sealed.hash;
  record.originalSha256 = sealed.originalSha256;
  change.event('envelope.completed', actor, {
    originalSha256: sealed.originalSha256,
    sealedSha256: sealed.hash,
    auditHead: sealed.auditHead,
    // Several documents: each document's sealed PDF (with `combined`, the one PDF of all).
    ...(documents.length > 1 ? { documents: sealedDocuments(record).map(({ document: sealedDocument, hash }) => ({ id: sealedDocument.id, sealedSha256: hash })) } : {}),
  });
  // The public append-only log (docs/api.md#public-log) takes its leaves from this completion: each
  // sealed PDF's SHA-256 (`record.sealedHashes`, in order), then the chain head they seal. Its due
  // entry, written before the commit, lets the sweeper append them should this process die after the
  // commit ({@link logCompletion}).
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
 * The recipients' field values to draw (docs/api.md#what-completion-does step 2), `images` the bytes of
 * the signers' images by attachment id: every {@link givenValues given value} in
 * its field's rectangle, over the page as the signers saw it: a text tag's text is covered in the
 * frozen copy already (docs/api.md#fields-from-the-document), so nothing is painted under a value.
 */
export function fieldDrawings(
  record: Pick<EnvelopeRecord, 'fields' | 'signers'>,
  actions: Map<string, RecipientAction>,
  pageOf: (field: Field) => number | null = (field) => field.page,
  images: ReadonlyMap<string, Uint8Array> = new Map(),
): FieldDrawing[] {
  const values = new Map(givenValues(record, actions).map(({ field, value }) => [field.id, value]));
  return record.fields.flatMap((field): FieldDrawing[] => {
    const value = values.get(field.id);
    const page = pageOf(field);
    if (value === undefined || page === null) return [];
    if (isAttachmentValue(value)) {
      // A signer's file is embedded; an image field's is drawn too (docs/api.md#files-from-signers).
      const image = field.type === 'image' ? images.get(value.attachmentId) : undefined;
      return image === undefined ? [] : [{ page, x: field.x, y: field.y, width: field.width, height: field.height, type: field.type, value: { image } }];
    }
    return [{ page, x: field.x, y: field.y, width: field.width, height: field.height, type: field.type, value }];
  });
}

/**
 * The document's form fields that became envelope fields (docs/api.md#fields-from-the-document): removed at sealing, their values drawn in their place.
 * @param document only those of this document (docs/api.md#several-documents), `first` naming the
 *   document of fields stored without `documentId`; absent: every field's
 */
export function replacedFormFields(record: Pick<EnvelopeRecord, 'fields'>, document?: Pick<EnvelopeDocument, 'id'>, first: Pick<EnvelopeDocument, 'id'> | undefined = document): string[] {
  const fields = document === undefined ? record.fields : record.fields.filter((field) => fieldDocumentId(field, first!) === document.id);
  return [...new Set(fields.flatMap((field) => (field.source === 'formField' && field.formFieldName !== undefined ? [field.formFieldName] : [])))];
}

/** A field's page when `document` is sealed on its own: its page if it is on that document, else `null` (not drawn). */
function pageWithin(document: Pick<EnvelopeDocument, 'id'>, first: Pick<EnvelopeDocument, 'id'> = document): (field: Field) => number | null {
  return (field) => (fieldDocumentId(field, first) === document.id ? field.page : null);
}

/** A field's page in the one PDF of every document in order (`combined` output): the pages of the documents before its own, plus its page. */
function combinedPage(documents: readonly EnvelopeDocument[]): (field: Field) => number | null {
  const offsets = new Map<string, number>();
  let before = 0;
  for (const document of documents) {
    offsets.set(document.id, before);
    before += document.pageCount ?? 0;
  }
  return (field) => {
    const offset = offsets.get(fieldDocumentId(field, documents[0]!));
    return offset === undefined ? null : offset + field.page;
  };
}

/** The documents as the certificate of completion lists them (docs/api.md#several-documents). */
function certificateDocuments(documents: readonly EnvelopeDocument[]): CertificateDocument[] {
  return documents.map((document) => ({ name: document.name, pageCount: document.pageCount!, documentSha256: document.sha256!, uploadSha256: document.uploadSha256, removed: document.removed ?? [] }));
}
