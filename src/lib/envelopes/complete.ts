/**
 * Complete Envelope (spec §4, CONTRACT §6): flatten, append the certificate of completion, seal with
 * PAdES, store the sealed PDF, then mark the envelope completed.
 *
 * Crash safety and concurrency (CONTRACT §6 step 5): the sealed blob is written only if absent (or if
 * it was sealed from an older version of the envelope, left by a crash before the envelope was
 * updated), and carries in its metadata the envelope version, hash and completion time it was made
 * from. The envelope becomes `completed` only after that blob is stored, with an ETag-conditional
 * write. So a crash at any point leaves the envelope as it was and a retry succeeds, and of two
 * concurrent completes one stores the blob and both answer with its hash.
 */
import { createHash } from 'node:crypto';
import type { Services } from '../services.js';
import { storageStatus } from '../storage/keys.js';
import { EnvelopeChangedError } from '../storage/envelopeRepository.js';
import { AppError } from '../errors.js';
import { inspectDocument, sealDocument } from '../pdf/index.js';
import { readDocument } from './document.js';
import { readOwnedEnvelope } from './get.js';
import { COMPLETABLE, assertHasSigner, ifMatchSatisfied } from './lifecycle.js';
import { envelopeETag, type Actor, type AuditEvent, type EnvelopeRecord } from './model.js';
import { backoff, preconditionFailed } from './update.js';
import { signedDocumentUrl } from './view.js';

const MAX_COMPLETE_ATTEMPTS = 5;

export interface CompleteEnvelopeOptions {
  services: Services;
  envelopeId: string;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. Ignored once the envelope is completed (retries are safe). */
  ifMatch: string | null;
  now?: () => Date;
}

export interface CompletionResult {
  record: EnvelopeRecord;
  /** Read-only SAS URL of the sealed PDF, valid 15 minutes. */
  signedUrl: string;
  /** Lower-case hex SHA-256 of the sealed PDF. */
  hash: string;
  /** False when the envelope was already completed and nothing was sealed. */
  sealedNow: boolean;
}

interface SealedBlob {
  hash: string;
  originalSha256: string;
  completedAt: string;
}

/**
 * Completes the caller's envelope, or answers for one already completed.
 * @throws AppError 404 (missing or another owner's), 409 (voided; no signer; document not uploaded),
 *   412 (If-Match stale), 413/415/422 (document unusable), 503 (timestamp authority unavailable)
 */
export async function completeEnvelope({ services, envelopeId, actor, ifMatch, now = () => new Date() }: CompleteEnvelopeOptions): Promise<CompletionResult> {
  for (let attempt = 0; attempt < MAX_COMPLETE_ATTEMPTS; attempt++) {
    const stored = await readOwnedEnvelope(services.envelopes, actor.userId, envelopeId);
    const record = stored.record;
    if (record.status === 'completed') return await answerCompleted(services, record, false);
    if (!COMPLETABLE.includes(record.status)) {
      throw new AppError('conflict', `The envelope is ${record.status}; only draft or sent envelopes can be completed.`, { type: 'envelope-closed' });
    }
    if (!ifMatchSatisfied(ifMatch, envelopeETag(record))) throw preconditionFailed();
    assertHasSigner(record.signers);

    const sealed = await storeSealedDocument(services, record, actor, now());
    const event: AuditEvent = {
      sequence: record.auditSequence + 1,
      type: 'envelope.completed',
      at: sealed.completedAt,
      actorId: actor.userId,
      ip: actor.ip,
      userAgent: actor.userAgent,
      details: { originalSha256: sealed.originalSha256, sealedSha256: sealed.hash },
    };
    const next: EnvelopeRecord = {
      ...record,
      status: 'completed',
      completedAt: sealed.completedAt,
      updatedAt: sealed.completedAt,
      hash: sealed.hash,
      originalSha256: sealed.originalSha256,
      version: record.version + 1,
      auditSequence: event.sequence,
    };
    try {
      await services.envelopes.replace(stored, next, [event]);
      return await answerCompleted(services, next, true);
    } catch (error) {
      if (!(error instanceof EnvelopeChangedError)) throw error;
      // Completed by a concurrent request (answered on the next turn), or changed meanwhile.
      if (ifMatch !== null) {
        const current = await readOwnedEnvelope(services.envelopes, actor.userId, envelopeId);
        if (current.record.status === 'completed') return await answerCompleted(services, current.record, false);
        throw preconditionFailed();
      }
      await backoff(attempt);
    }
  }
  throw new AppError('conflict', 'The envelope is being changed by other requests at the same time; retry.', { type: 'envelope-contended' });
}

/** Records the seal for verification (idempotent: repairs a crash after the envelope update) and signs the URL. */
async function answerCompleted(services: Services, record: EnvelopeRecord, sealedNow: boolean): Promise<CompletionResult> {
  const hash = record.hash!;
  await services.seals.put({ sha256: hash, envelopeId: record.id, completedAt: record.completedAt!, documentName: record.documentName });
  return { record, hash, signedUrl: await signedDocumentUrl(services.storage.sas, record), sealedNow };
}

/**
 * The sealed PDF for this version of the envelope: the one already stored if a concurrent or crashed
 * attempt made it from the same version, else a new one, stored only if the blob is still as seen.
 */
async function storeSealedDocument(services: Services, record: EnvelopeRecord, actor: Actor, now: Date): Promise<SealedBlob> {
  const blob = services.storage.containers.sealed.getBlockBlobClient(record.blobName);
  const existing = await readSealedMetadata(services, record);
  if (existing?.sealed !== undefined) return existing.sealed;

  const original = await readDocument({ services, record });
  const originalSha256 = sha256(original);
  const completedAt = now.toISOString();
  const events = await services.envelopes.events(record.ownerId, record.id);
  const { config } = services;
  const { sealed } = await sealDocument({
    document: original,
    certificate: {
      envelopeId: record.id,
      documentName: record.documentName,
      // Only the owner can complete an envelope, so the actor's e-mail is the owner's.
      ownerEmail: actor.email,
      documentSha256: originalSha256,
      pageCount: (await inspectDocument({ document: original })).pageCount,
      sentAt: null,
      recipients: record.signers.map(({ id, name, email, role }) => ({
        id, name, email, role, routingOrder: 1, status: 'created', actedAt: null, ip: null, userAgent: null, identification: null, signature: null,
      })),
      createdAt: record.createdAt,
      completedAt,
      // Only the owner changes an envelope before the recipients issue: every actor is the owner.
      events: events.map(({ sequence, type, at, actorId }) => ({ sequence, type, at, actorEmail: actorId === null ? null : actor.email })),
    },
    sealingP12: config.seal.p12,
    sealingPassphrase: config.seal.passphrase,
    ...(config.tsaUrl === undefined ? {} : { timestampAuthorityUrl: config.tsaUrl }),
  });
  const result: SealedBlob = { hash: sha256(sealed), originalSha256, completedAt };
  try {
    await blob.uploadData(sealed, {
      blobHTTPHeaders: { blobContentType: 'application/pdf' },
      metadata: { envelopeversion: String(record.version), sha256: result.hash, originalsha256: originalSha256, completedat: completedAt },
      conditions: existing === null ? { ifNoneMatch: '*' } : { ifMatch: existing.etag },
    });
    return result;
  } catch (error) {
    const status = storageStatus(error);
    if (status !== 409 && status !== 412) throw error;
    // Another attempt stored a sealed blob first: use it if it was made from this version.
    const winner = await readSealedMetadata(services, record);
    if (winner?.sealed !== undefined) return winner.sealed;
    throw new AppError('conflict', 'The envelope is being completed by another request; retry.', { type: 'envelope-contended' });
  }
}

/** The stored sealed blob's ETag and, when it was made from `record.version`, what it holds; `null` when absent. */
async function readSealedMetadata(services: Services, record: EnvelopeRecord): Promise<{ etag: string; sealed: SealedBlob | undefined } | null> {
  try {
    const properties = await services.storage.containers.sealed.getBlockBlobClient(record.blobName).getProperties();
    const metadata = properties.metadata ?? {};
    const sameVersion = metadata.envelopeversion === String(record.version) && metadata.sha256 && metadata.originalsha256 && metadata.completedat;
    return {
      etag: properties.etag!,
      sealed: sameVersion
        ? { hash: metadata.sha256!, originalSha256: metadata.originalsha256!, completedAt: metadata.completedat! }
        : undefined,
    };
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
