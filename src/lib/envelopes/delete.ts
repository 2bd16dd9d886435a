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
 * - a purge commits `purgedAt` and its event first; the blobs go after. A retry finds `purgedAt` set,
 *   deletes the blobs again (deleting a missing blob is not an error) and records nothing more.
 *
 * Due-index entries a draft may have left (a send that failed after writing its expiry or reminder
 * entry) point at an envelope that no longer exists: the sweeper drops such entries when it meets them.
 */
import { isUuid } from '../ids.js';
import type { Services } from '../services.js';
import { CONTAINERS } from '../storage/clients.js';
import { Change, commitChange } from './change.js';
import { envelopeNotFound } from './get.js';
import { isFinal, ownerActor, type Actor } from './model.js';
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
 *   busy through every attempt
 */
export async function deleteEnvelope({ services, envelopeId, actor, now = () => new Date(), log }: DeleteEnvelopeOptions): Promise<DeleteOutcome> {
  if (!isUuid(envelopeId)) throw envelopeNotFound();
  const ownerId = await envelopeOwnerFor(services, actor, envelopeId, 'change');
  // A deletion a crash interrupted is finished by its retry; anything else is unknown.
  const finishInterrupted = async (): Promise<DeleteOutcome> => {
    const pending = await services.envelopes.pendingDeletion(ownerId, envelopeId);
    if (pending === null) throw envelopeNotFound();
    await finishDraftDeletion(services, ownerId, envelopeId, pending.blobName);
    return 'deleted';
  };
  return await mutateEnvelope<DeleteOutcome>(services, { ownerId, envelopeId }, async (stored) => {
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
    if (isFinal(record.status) && record.purgedAt === null) {
      const change = new Change(record, now());
      change.record.purgedAt = change.at;
      change.event('envelope.purged', ownerActor(actor), {});
      await commitChange(services, stored, change, log === undefined ? {} : { log });
    }
    await deleteDocuments(services, record.blobName);
    return 'purged';
  }, { missing: finishInterrupted });
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
 */
async function deleteDocuments(services: Services, blobName: string): Promise<void> {
  const { containers } = services.storage;
  const prefix = `${blobName.slice(0, blobName.indexOf('/'))}/`;
  await Promise.all(
    ENVELOPE_DOCUMENT_CONTAINERS.map(async (container) => {
      const client = containers[container];
      const names = new Set([blobName]);
      for await (const blob of client.listBlobsFlat({ prefix })) names.add(blob.name);
      await Promise.all([...names].map(async (name) => await client.getBlockBlobClient(name).deleteIfExists({ deleteSnapshots: 'include' })));
    }),
  );
}
