/**
 * Deleting an envelope (docs/api.md#delete-an-envelope-or-purge-its-documents): `DELETE /api/envelopes/{id}`.
 *
 * - A `draft` is deleted with its upload and its audit trail; afterwards it is answered as missing.
 * - A `sent` envelope is refused (409 `envelope-locked`): void it first.
 * - A finished envelope (`completed`, `declined`, `expired`, `voided`) is purged: its documents (the
 *   upload, the frozen copy, the sealed PDF) are deleted, while the envelope stays with `purgedAt`,
 *   its `hash` and its audit trail (event `envelope.purged`); its signing links stop working and
 *   `GET /api/verify/{hash}` still answers. Purging again changes nothing.
 *
 * Crash safety: each kind first records what it does, then deletes blobs, so that a retry of the
 * request finishes what a process that died left:
 * - a draft leaves view in one ETag-conditional transaction that turns its envelope row into a
 *   tombstone (`EnvelopeRepository.startDeletion`); its blobs and audit rows go after, the tombstone
 *   last. A retry that finds the tombstone finishes the deletion and answers as the first request would have.
 * - a purge commits `purgedAt`, its event and its `envelope.purged` webhook first; the blobs go after,
 *   then the purge log row and the envelope's entry in the index of finished envelopes. A retry
 *   finds `purgedAt` set, deletes the blobs again (deleting a missing blob is not an error), writes
 *   the log row if it is missing and records nothing more.
 *
 * One purge operation ({@link purgeEnvelope}, with {@link commitPurge} and {@link finishPurge}) serves
 * `DELETE` and the sweeper's retention step (docs/api.md#retention): whatever a purge deletes, both delete.
 *
 * A sealed PDF still under the `sealed` container's immutability period (docs/api.md#sealed-pdfs-are-immutable)
 * is refused by storage (409 `BlobImmutableDueToPolicy`): the rest of the purge is done, the purge log
 * records the period's end, and `DELETE` answers 409 `sealed-immutable` with it.
 *
 * Due-index entries a draft may have left (a send that failed after writing its expiry or reminder
 * entry) point at an envelope that no longer exists: the sweeper drops such entries when it meets them.
 */
import { isUuid } from '../ids.js';
import type { Services } from '../services.js';
import { CONTAINERS } from '../storage/clients.js';
import { isImmutableRefusal } from '../storage/keys.js';
import type { PurgeReason } from '../storage/retentionRepository.js';
import type { StoredEnvelope } from '../storage/envelopeRepository.js';
import { Change, commitChange } from './change.js';
import { envelopeNotFound } from './get.js';
import { isFinal, ownerActor, SYSTEM_ACTOR, type Actor, type EnvelopeRecord } from './model.js';
import { mutateEnvelope } from './mutate.js';
import { problem } from '../problems.js';
import { envelopeOwnerFor } from './access.js';

/** The containers that hold an envelope's documents, each under the envelope's id (`storage/clients.ts`). */
const ENVELOPE_DOCUMENT_CONTAINERS: readonly (keyof typeof CONTAINERS)[] = ['documents', 'originals', 'sealed'];

export interface DeleteEnvelopeOptions {
  services: Services;
  envelopeId: string;
  actor: Actor;
  now?: () => Date;
  log?: (message: string) => void;
}

/** What a deletion did: a draft `deleted`, a finished envelope's documents `purged` (now or before). */
export type DeleteOutcome = 'deleted' | 'purged';

/**
 * Deletes the caller's draft, or purges the documents of its finished envelope (see the module comment).
 * @returns what was done
 * @throws AppError 404 (missing, deleted, malformed id or another organisation's: the same answer), 403
 *   `forbidden-role` for another member's envelope the actor's role may not change, 409
 *   `envelope-locked` for a `sent` envelope, 409 `envelope-contended` when concurrent changes kept it
 *   busy through every attempt, 409 `sealed-immutable` (with `immutableUntil`) when the purge is done
 *   but storage keeps the sealed PDF until its immutability period ends
 */
export async function deleteEnvelope({ services, envelopeId, actor, now = () => new Date(), log }: DeleteEnvelopeOptions): Promise<DeleteOutcome> {
  if (!isUuid(envelopeId)) throw envelopeNotFound();
  const ownerId = await envelopeOwnerFor(services, actor, envelopeId, 'change');
  // A deletion a crash interrupted is finished by its retry; anything else is unknown.
  const finishInterrupted = async (): Promise<EnvelopeRecord | 'deleted'> => {
    const pending = await services.envelopes.pendingDeletion(ownerId, envelopeId);
    if (pending === null) throw envelopeNotFound();
    await finishDraftDeletion(services, ownerId, envelopeId, pending.blobName);
    return 'deleted';
  };
  const outcome = await mutateEnvelope<EnvelopeRecord | 'deleted'>(services, { ownerId, envelopeId }, async (stored) => {
    const { record } = stored;
    if (record.status === 'sent') {
      throw problem('envelopeLocked');
    }
    if (record.status === 'draft') {
      await services.envelopes.startDeletion(stored, now().toISOString());
      // Where the envelope is: `ownerId` may name a former owner (docs/api.md#removing-a-member).
      await finishDraftDeletion(services, record.ownerId, envelopeId, record.blobName);
      return 'deleted';
    }
    return (await commitPurge(services, stored, { actor, reason: 'delete', now: now(), log })).record;
  }, { missing: finishInterrupted });
  if (outcome === 'deleted') return 'deleted';
  const { sealedImmutableUntil } = await finishPurge(services, outcome, 'delete');
  if (sealedImmutableUntil !== null) {
    throw problem('sealedImmutable', {
      detail: `The envelope is purged, except its sealed PDF: storage keeps it unchanged until ${sealedImmutableUntil} (the sealed container's immutability period); delete the envelope again after that date to remove it.`,
      extensions: { immutableUntil: sealedImmutableUntil },
    });
  }
  return 'purged';
}

export interface PurgeEnvelopeOptions {
  services: Services;
  ownerId: string;
  envelopeId: string;
  reason: PurgeReason;
  /** The member purging (`DELETE`); absent: the `system` actor (the sweeper). */
  actor?: Actor;
  now?: () => Date;
  log?: (message: string) => void;
}

/** What a purge did. */
export interface PurgeOutcome {
  /** Whether this call committed the purge (`false`: the envelope was purged before). */
  committed: boolean;
  /** ISO 8601: the end of the sealed PDF's immutability period when storage refused to delete it; else `null`. */
  sealedImmutableUntil: string | null;
}

/**
 * Purges a finished envelope's documents (see the module comment), as the sweeper does when its
 * organisation's retention period has passed (docs/api.md#retention): the same steps as `DELETE`.
 * @returns what was done; `null` when there is nothing to purge (no such envelope, or not finished)
 * @throws AppError 409 `envelope-contended` when concurrent changes kept it
 *   busy; storage errors (a retry, the next sweep, finishes the purge)
 */
export async function purgeEnvelope({ services, ownerId, envelopeId, reason, actor, now = () => new Date(), log }: PurgeEnvelopeOptions): Promise<PurgeOutcome | null> {
  const committed = await mutateEnvelope<{ record: EnvelopeRecord; committed: boolean } | null>(
    services,
    { ownerId, envelopeId },
    async (stored) => (isFinal(stored.record.status) ? await commitPurge(services, stored, { ...(actor === undefined ? {} : { actor }), reason, now: now(), log }) : null),
    { missing: () => null },
  );
  if (committed === null) return null;
  const { sealedImmutableUntil } = await finishPurge(services, committed.record, reason);
  return { committed: committed.committed, sealedImmutableUntil };
}

/**
 * The first step of a purge: `purgedAt`, the `envelope.purged` event (`{}`, by the member or `system`)
 * and its webhook (with the sealed PDF's `hash` and the purge's `reason`), in one change. An envelope
 * purged before is left as it is.
 * @returns the envelope as it now stands, and whether this call committed the purge
 * @throws EnvelopeChangedError when the envelope changed since `stored` was read
 */
export async function commitPurge(services: Services, stored: StoredEnvelope, options: { actor?: Actor; reason: PurgeReason; now: Date; log?: ((message: string) => void) | undefined }): Promise<{ record: EnvelopeRecord; committed: boolean }> {
  const { record } = stored;
  if (record.purgedAt !== null) return { record, committed: false };
  const change = new Change(record, options.now);
  change.record.purgedAt = change.at;
  change.event('envelope.purged', options.actor === undefined ? SYSTEM_ACTOR : ownerActor(options.actor), {});
  change.webhook('envelope.purged', { ...(record.hash === null ? {} : { hash: record.hash }), reason: options.reason });
  const next = await commitChange(services, stored, change, options.log === undefined ? {} : { log: options.log });
  return { record: next, committed: true };
}

/**
 * The rest of a purge, once `purgedAt` is committed, each step idempotent: the documents deleted, the
 * purge log row written (once per purge), the envelope's entry in the index of finished envelopes removed.
 * @returns the end of the sealed PDF's immutability period when storage refused to delete it, else `null`
 */
export async function finishPurge(services: Services, record: EnvelopeRecord, reason: PurgeReason): Promise<{ sealedImmutableUntil: string | null }> {
  const sealedImmutableUntil = await deleteDocuments(services, record.blobName);
  const organizationId = record.organizationId ?? null;
  if (organizationId !== null && record.purgedAt !== null) {
    await services.retention.recordPurge(organizationId, { envelopeId: record.id, purgedAt: record.purgedAt, sealedSha256: record.hash, reason, sealedImmutableUntil });
    if (record.closedAt !== null) await services.retention.removeFinished({ organizationId, closedAt: record.closedAt, envelopeId: record.id });
  }
  return { sealedImmutableUntil };
}

/** Deletes a draft's documents, then its remaining rows (`EnvelopeRepository.finishDeletion`). */
async function finishDraftDeletion(services: Services, ownerId: string, envelopeId: string, blobName: string): Promise<void> {
  await deleteDocuments(services, blobName);
  await services.envelopes.finishDeletion(ownerId, envelopeId);
}

/**
 * Deletes the envelope's blobs in every container that may hold them: the uploads (`documents`), the
 * frozen copies (`originals`) and the sealed PDFs (`sealed`), every blob under the envelope's id
 * (`<envelopeId>/...`: each of its documents, docs/api.md#several-documents); a blob that is not
 * there is not an error.
 * @returns the latest end of a sealed PDF's immutability period (ISO 8601) when storage refused to
 *   delete one (docs/api.md#sealed-pdfs-are-immutable), else `null`; the other blobs are deleted all the same
 */
async function deleteDocuments(services: Services, blobName: string): Promise<string | null> {
  const { containers } = services.storage;
  const prefix = `${blobName.slice(0, blobName.indexOf('/'))}/`;
  const refused = await Promise.all(
    ENVELOPE_DOCUMENT_CONTAINERS.map(async (container): Promise<string[]> => {
      const client = containers[container];
      const names = new Set([blobName]);
      for await (const blob of client.listBlobsFlat({ prefix })) names.add(blob.name);
      const ends = await Promise.all([...names].map(async (name): Promise<string | null> => {
        try {
          await client.getBlockBlobClient(name).deleteIfExists({ deleteSnapshots: 'include' });
          return null;
        } catch (error) {
          if (!isImmutableRefusal(error)) throw error;
          return await immutableUntil(services, container, name);
        }
      }));
      return ends.filter((until): until is string => until !== null);
    }),
  );
  return refused.flat().sort().at(-1) ?? null;
}

/**
 * When a blob's immutability ends (ISO 8601): its version's policy as storage reports it
 * (`x-ms-immutability-policy-until-date`), else its creation time plus `SEALED_RETENTION_DAYS`.
 */
async function immutableUntil(services: Services, container: keyof typeof CONTAINERS, blobName: string): Promise<string> {
  const properties = await services.storage.containers[container].getBlockBlobClient(blobName).getProperties();
  if (properties.immutabilityPolicyExpiresOn !== undefined) return properties.immutabilityPolicyExpiresOn.toISOString();
  const created = properties.createdOn ?? properties.lastModified ?? new Date();
  return new Date(created.getTime() + services.config.sealedRetentionDays * 86_400_000).toISOString();
}
