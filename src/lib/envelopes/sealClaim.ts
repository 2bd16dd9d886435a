/**
 * The sealed file as a claim (docs/api.md#what-completion-does step 5), for the completion of
 * `complete.ts`.
 *
 * Crash safety and concurrency: the sealed blob is stored before the envelope update that records
 * it, and carries in its metadata the state it was sealed from (`envelopeversion`:
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
 * the attempt, which then retries. Under the `sealed` container's WORM policy (Azure refuses Set Blob
 * Metadata on a version under it; a Put Blob over it makes a new version and keeps the old one), the
 * renewal only checks that the blob is still this attempt's; the fence keeps a late commit out as before.
 */
import { createHash } from 'node:crypto';
import type { Services } from '../services.js';
import { isImmutableRefusal, storageStatus } from '../storage/keys.js';
import { EnvelopeChangedError, type StoredEnvelope } from '../storage/envelopeRepository.js';
import type { EnvelopeRecord } from './model.js';

/**
 * How long a stored sealed blob that is not yet the envelope's stays its attempt's claim after it was
 * stored or renewed, milliseconds; after that another attempt may fence the claimer off and take it over.
 */
export const SEAL_LEASE_MS = 10_000;
/** Renew the claim on a sealed blob older than this before the envelope update, milliseconds. */
export const SEAL_REFRESH_AFTER_MS = 3_000;

/** The sealed blob a completion records. */
export interface SealedBlob {
  hash: string;
  originalSha256: string;
  completedAt: string;
  etag: string;
  /** When this attempt stored or last claimed it, milliseconds since the epoch. */
  storedAt: number;
  /** The audit trail head its certificate prints and its `audit.json` ends with (docs/api.md#chained-audit-trail). */
  auditHead: string;
  /**
   * `separate` output of several documents (docs/api.md#several-documents): the sealed PDFs of the
   * documents after the first, each stored while this attempt held the first's claim; checked
   * unchanged by {@link refreshSealClaim} before the envelope update records them.
   */
  others?: OtherSealedBlob[];
}

/** The sealed PDF of a document after the first (`separate` output), as stored. */
export interface OtherSealedBlob {
  blobName: string;
  hash: string;
  etag: string;
}

/** What identifies the state a blob is sealed from (see the module comment). */
export interface SealKey {
  /** The envelope version the completing request read. */
  baseVersion: number;
  /** A recipient's request: its nonce (its state is not stored yet); `null` for a stored state. */
  nonce: string | null;
}

/** Another request is sealing the same state right now (see the module comment); retry shortly. */
export class SealContendedError extends EnvelopeChangedError {
  constructor() {
    super();
    this.name = 'SealContendedError';
  }
}

/** The blob's `envelopeversion` metadata for `key`: the version, and a recipient's request's nonce after `:`. */
export function sealKeyText(key: SealKey): string {
  return key.nonce === null ? String(key.baseVersion) : `${key.baseVersion}:${key.nonce}`;
}

/**
 * What a stored blob holds when it was sealed from the state `key` names, of the original
 * `originalSha256` with the audit trail ending in `auditHead` (a retry after a crash, a concurrent
 * attempt that stored first): to be used as it is. `null` when there is none, or it was sealed from
 * another state, original or trail (a blob sealed before the trail was chained names none).
 */
export function sealedFromState(existing: StoredSeal | null, key: SealKey, originalSha256: string, auditHead: string): SealedBlob | null {
  if (existing === null || existing.key !== sealKeyText(key) || existing.sealed === undefined) return null;
  return existing.sealed.originalSha256 === originalSha256 && existing.sealed.auditHead === auditHead ? existing.sealed : null;
}

export interface ClaimSealedBlobOptions {
  services: Services;
  /** The envelope as the completing change read it: fenced (its ETag renewed) before a stale claim is taken over. */
  stored: StoredEnvelope;
  blobName: string;
  /** What {@link readSealedMetadata} read before sealing. */
  existing: StoredSeal | null;
  key: SealKey;
  /** The sealed PDF. */
  bytes: Uint8Array;
  /** Lower-case hex SHA-256 of the frozen original it was sealed from. */
  originalSha256: string;
  /** ISO 8601 UTC with milliseconds: the completion time the certificate prints. */
  completedAt: string;
  /** The audit trail head the certificate prints (docs/api.md#chained-audit-trail). */
  auditHead: string;
}

/**
 * Stores the sealed PDF in container `sealed` as this attempt's claim (see the module comment):
 * conditionally (`If-None-Match: *`, or `If-Match` the ETag of a blob from an older version, or of a
 * stale claim of the same version once its attempt is fenced off), with metadata naming the state
 * it was sealed from.
 * @returns the stored blob; when another attempt stored one first from the same state, that one
 * @throws EnvelopeChangedError when a newer state was sealed; SealContendedError when another
 *   attempt holds a live claim, or stored a blob from another state first
 */
export async function claimSealedBlob({ services, stored, blobName, existing, key, bytes, originalSha256, completedAt, auditHead }: ClaimSealedBlobOptions): Promise<SealedBlob> {
  const blob = services.storage.containers.sealed.getBlockBlobClient(blobName);
  const hash = sha256(bytes);
  const storedAt = Date.now();
  const { fence, ...conditions } = uploadConditions(existing, key);
  // A stale claim: its attempt can never commit once the envelope's ETag changed.
  if (fence) await services.envelopes.fence(stored);
  try {
    const response = await blob.uploadData(bytes, {
      blobHTTPHeaders: { blobContentType: 'application/pdf' },
      metadata: { envelopeversion: sealKeyText(key), sha256: hash, originalsha256: originalSha256, completedat: completedAt, audithead: auditHead, storedat: String(storedAt) },
      conditions,
    });
    return { hash, originalSha256, completedAt, etag: response.etag!, storedAt, auditHead };
  } catch (error) {
    const status = storageStatus(error);
    if (status !== 409 && status !== 412) throw error;
    // Another attempt stored a sealed blob first: use it if it was sealed from this state.
    const winner = sealedFromState(await readSealedMetadata(services, blobName), key, originalSha256, auditHead);
    if (winner === null) throw new SealContendedError();
    return winner;
  }
}

/**
 * Renews the claim on the sealed blob when it was stored over {@link SEAL_REFRESH_AFTER_MS} ago (a
 * slow request), so that no other attempt takes it for a leftover while this one records it, and
 * updates `sealed` (its ETag and claim time) to the renewed claim; first checks that the sealed PDFs
 * of the other documents (`sealed.others`) are still the ones this attempt stored.
 * @throws SealContendedError when it was replaced meanwhile
 */
export async function refreshSealClaim(services: Services, record: Pick<EnvelopeRecord, 'blobName'>, sealed: SealedBlob): Promise<void> {
  await assertOthersUnchanged(services, sealed.others ?? []);
  await renewSealClaim(services, record, sealed);
}

/**
 * The renewal of {@link refreshSealClaim} alone, without looking at the other documents' sealed PDFs:
 * while they are being sealed (their check comes before the envelope update). Calls must not overlap.
 * @throws SealContendedError when the claim was replaced meanwhile
 */
export async function renewSealClaim(services: Services, record: Pick<EnvelopeRecord, 'blobName'>, sealed: SealedBlob): Promise<void> {
  if (Date.now() - sealed.storedAt < SEAL_REFRESH_AFTER_MS) return;
  const blob = services.storage.containers.sealed.getBlockBlobClient(record.blobName);
  const properties = await blob.getProperties();
  const storedAt = Date.now();
  try {
    const response = await blob.setMetadata({ ...properties.metadata, storedat: String(storedAt) }, { conditions: { ifMatch: sealed.etag } });
    // The claim as it is now, for a later renewal by the same attempt (several documents sealed one after the other).
    sealed.etag = response.etag!;
    sealed.storedAt = storedAt;
  } catch (error) {
    const status = storageStatus(error);
    if (status === 412 || status === 404) throw new SealContendedError();
    // Under the sealed container's WORM policy (docs/api.md#sealed-pdfs-are-immutable) no metadata
    // can be written: the claim cannot be renewed, only checked. A takeover would have changed the
    // ETag; one that comes after this check fences the envelope first, so this attempt's commit fails
    // and it retries: the renewal saves work, it is not what keeps a seal from being recorded twice.
    if (isImmutableRefusal(error)) {
      if (properties.etag !== sealed.etag) throw new SealContendedError();
      return;
    }
    throw error;
  }
}

/**
 * Stores the sealed PDF of a document after the first (`separate` output, docs/api.md#several-documents)
 * while this attempt holds the first document's claim ({@link claimSealedBlob}): whoever else holds
 * a claim of this envelope's first document is fenced off or about to fail, so the blob is written
 * conditional only on what was read before sealing (`If-None-Match: *`, or `If-Match` its ETag).
 * A blob sealed from the same state (`existing`, a retry after a crash) is reused as it is.
 * @throws EnvelopeChangedError when a newer state was sealed; SealContendedError when the blob changed since it was read
 */
export async function storeOtherSealedBlob(
  { services, blobName, existing, key, originalSha256, completedAt, auditHead }: Omit<ClaimSealedBlobOptions, 'bytes' | 'stored'>,
  seal: () => Promise<Uint8Array>,
): Promise<OtherSealedBlob> {
  const reused = sealedFromState(existing, key, originalSha256, auditHead);
  if (reused !== null) return { blobName, hash: reused.hash, etag: reused.etag };
  if (existing !== null && existing.baseVersion > key.baseVersion) throw new EnvelopeChangedError();
  const bytes = await seal();
  const hash = sha256(bytes);
  try {
    const response = await services.storage.containers.sealed.getBlockBlobClient(blobName).uploadData(bytes, {
      blobHTTPHeaders: { blobContentType: 'application/pdf' },
      metadata: { envelopeversion: sealKeyText(key), sha256: hash, originalsha256: originalSha256, completedat: completedAt, audithead: auditHead, storedat: String(Date.now()) },
      conditions: existing === null ? { ifNoneMatch: '*' } : { ifMatch: existing.etag },
    });
    return { blobName, hash, etag: response.etag! };
  } catch (error) {
    const status = storageStatus(error);
    if (status === 409 || status === 412) throw new SealContendedError();
    throw error;
  }
}

/** @throws SealContendedError when a sealed PDF of a later document was replaced since this attempt stored it */
async function assertOthersUnchanged(services: Services, others: readonly OtherSealedBlob[]): Promise<void> {
  await Promise.all(
    others.map(async (other) => {
      try {
        const properties = await services.storage.containers.sealed.getBlockBlobClient(other.blobName).getProperties();
        if (properties.etag !== other.etag) throw new SealContendedError();
      } catch (error) {
        if (storageStatus(error) === 404) throw new SealContendedError();
        throw error;
      }
    }),
  );
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

/** A stored sealed blob as its properties and metadata describe it. */
export interface StoredSeal {
  etag: string;
  key: string;
  baseVersion: number;
  storedAt: number;
  /** What the blob holds, when its metadata is complete. */
  sealed: SealedBlob | undefined;
}

/** The stored sealed blob's ETag, key and content; `null` when absent. */
export async function readSealedMetadata(services: Services, blobName: string): Promise<StoredSeal | null> {
  try {
    const properties = await services.storage.containers.sealed.getBlockBlobClient(blobName).getProperties();
    const metadata = properties.metadata ?? {};
    const key = metadata.envelopeversion ?? '';
    const storedAt = Number(metadata.storedat ?? properties.lastModified?.getTime() ?? 0);
    // A blob sealed before the audit trail was chained has no `audithead`: never reused (a new seal replaces it).
    const complete = metadata.sha256 && metadata.originalsha256 && metadata.completedat && metadata.audithead;
    return {
      etag: properties.etag!,
      key,
      baseVersion: Number.parseInt(key, 10) || 0,
      storedAt,
      sealed: complete
        ? { hash: metadata.sha256!, originalSha256: metadata.originalsha256!, completedAt: metadata.completedat!, auditHead: metadata.audithead!, etag: properties.etag!, storedAt }
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
