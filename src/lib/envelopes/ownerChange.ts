/**
 * An envelope changing owner, when its owner is removed from the organisation
 * (docs/api.md#removing-a-member): every row of the envelope moves from the old owner's partition of
 * `envelopes` to the new owner's, and `envelope.owner_changed` records it in the trail.
 *
 * No transaction spans two partitions, so the move is a sequence of steps, each idempotent, with one
 * moment that decides it (`EnvelopeRepository.forward`, conditional on the envelope's ETag): before
 * it the envelope is the old owner's, after it the new owner's; a process that dies anywhere leaves
 * one or the other, and calling {@link moveEnvelope} again (or any read of the envelope) finishes it.
 *
 * 1. its event and action rows are copied to the new partition (nothing names them yet);
 * 2. the envelope row becomes a forwarding row naming the new owner, with the envelope as it will be
 *    and its `envelope.owner_changed` event, chained to the trail's head (a concurrent change wins:
 *    back to 1);
 * 3. the new partition gets the envelope, its status row and that event (insert-if-absent);
 * 4. the organisation's index, and each recipient's current signing link, name the new owner;
 * 5. the old partition's copies of the event and action rows go; the forwarding row stays, so that
 *    whatever still names the old owner (a due entry, a queued outbox message, a link recorded later,
 *    another instance's memory of the index) reaches the envelope.
 */
import { retryOnConflict } from '../retryOnConflict.js';
import type { Services } from '../services.js';
import { EnvelopeChangedError } from '../storage/envelopeRepository.js';
import { auditChainHead } from './auditChain.js';
import { chainEvents } from './auditHash.js';
import type { AuditEvent, EnvelopeRecord, EventActor } from './model.js';

/** A member as an envelope's owner: who it is and how it is shown. */
export interface EnvelopeOwner {
  userId: string;
  email: string;
  name: string | null;
}

export interface MoveEnvelopeOptions {
  services: Services;
  /** The organisation whose index names the envelope's owner. */
  organizationId: string;
  envelopeId: string;
  /** The owner whose partition holds the envelope now (the member being removed). */
  from: EnvelopeOwner;
  /** The member who receives it. */
  to: EnvelopeOwner;
  /** Who removed the member: the actor of `envelope.owner_changed`. */
  actor: EventActor;
  now?: () => Date;
}

/**
 * Moves the envelope `envelopeId` from `from`'s partition to `to`'s (see the module comment), or
 * finishes a move begun before. Idempotent.
 * @returns `true` when the envelope is `to`'s now (moved now or before), `false` when `from` has no
 *   such envelope (never had, or a draft being deleted)
 * @throws Error when concurrent changes of the envelope kept winning (the removal is resumed later)
 */
export async function moveEnvelope(options: MoveEnvelopeOptions): Promise<boolean> {
  const { services, organizationId, envelopeId, from, to, actor } = options;
  const now = options.now ?? (() => new Date());
  const envelopes = services.envelopes;
  const moved = await retryOnConflict(
    async () => {
      const place = await envelopes.placeOf(from.userId, envelopeId);
      if (place.state === 'missing') return false;
      if (place.state === 'here') {
        // The chain's head before the trail is copied: events recorded before the chain get their
        // hashes first (docs/api.md#chained-audit-trail), so the copies carry them.
        const head = await auditChainHead(services, place.stored.record);
        await envelopes.copyTrail(from.userId, to.userId, envelopeId);
        const record = { ...place.stored.record, organizationId: place.stored.record.organizationId ?? organizationId };
        const { next, event } = ownerChanged(record, from, to, actor, now());
        const [chained] = chainEvents([event], record.organizationId, head);
        await envelopes.forward(place.stored, { ...next, auditHead: chained!.hash }, chained!);
      }
      return true;
    },
    {
      isConflict: (error) => error instanceof EnvelopeChangedError,
      exhausted: () => {
        throw new Error(`Envelope ${envelopeId} kept changing while it moved from ${from.userId} to ${to.userId}; the removal resumes later`);
      },
    },
  );
  if (!moved) return false;
  await envelopes.materialize(from.userId, envelopeId);
  const current = await envelopes.read(from.userId, envelopeId);
  await services.organizationIndex.add(current?.record.organizationId ?? organizationId, envelopeId, current?.record.ownerId ?? to.userId);
  if (current !== null) {
    await Promise.all(
      current.record.signers.flatMap((signer) =>
        signer.link == null ? [] : [services.signingLinks.ensure({ tokenSha256: signer.link.tokenSha256, ownerId: current.record.ownerId, envelopeId, recipientId: signer.id })],
      ),
    );
  }
  await envelopes.finishMove(from.userId, envelopeId);
  return true;
}

/** The envelope as the new owner's, and the event that records it (one more version and sequence). */
function ownerChanged(record: EnvelopeRecord, from: EnvelopeOwner, to: EnvelopeOwner, actor: EventActor, at: Date): { next: EnvelopeRecord; event: AuditEvent } {
  const sequence = record.auditSequence + 1;
  const next: EnvelopeRecord = {
    ...record,
    ownerId: to.userId,
    ownerEmail: to.email,
    ownerName: to.name,
    version: record.version + 1,
    auditSequence: sequence,
    updatedAt: at.toISOString(),
  };
  const event: AuditEvent = {
    sequence,
    type: 'envelope.owner_changed',
    at: at.toISOString(),
    actorId: actor.id,
    actorEmail: actor.email,
    ip: actor.ip,
    userAgent: actor.userAgent?.slice(0, 1024) ?? null,
    apiKeyId: actor.apiKeyId,
    details: { from: { userId: from.userId, email: from.email }, to: { userId: to.userId, email: to.email } },
  };
  return { next, event };
}
