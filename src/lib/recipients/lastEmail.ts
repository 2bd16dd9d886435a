/**
 * A recipient's `lastEmail` (docs/api.md#recipients) follows the newest e-mail to it: `queued` when the
 * change that wrote it committed (set by the domain in that change), then `sent` or `failed` as the
 * queue-triggered sender reports. An outcome for an older e-mail than the newest is ignored. An e-mail
 * past the owner's daily quota is never queued: the change records it `failed` with `reason: "quota"`
 * at once (`envelopes/dailyQuota.ts`), and nothing changes that afterwards.
 */
import type { Services } from '../services.js';
import { mutateEnvelope } from '../envelopes/mutate.js';

export interface EmailOutcome {
  ownerId: string;
  envelopeId: string;
  recipientId: string;
  /** The outbox batch of the e-mail. */
  batchId: string;
  status: 'sent' | 'failed';
  /** ISO 8601 UTC with milliseconds. */
  at: string;
}

/**
 * Records the outcome of an e-mail on its recipient, when that e-mail is still the recipient's newest.
 * Read-modify-write with the envelope's ETag, retried on contention (`envelopes/mutate.ts`); records
 * no audit event (an e-mail's delivery is not a change of the envelope).
 * @returns whether the recipient's `lastEmail` changed
 * @throws Error when concurrent changes won every round
 */
export async function recordEmailOutcome(services: Services, outcome: EmailOutcome): Promise<boolean> {
  const stayedContended = () => {
    throw new Error(`lastEmail of recipient ${outcome.recipientId} not recorded: envelope ${outcome.envelopeId} stayed contended`);
  };
  return await mutateEnvelope(services, outcome, async (stored) => {
    const signer = stored.record.signers.find((candidate) => candidate.id === outcome.recipientId);
    const last = signer?.lastEmail;
    // An e-mail past the quota (`reason`) was never queued: no outcome of its batch is about it.
    if (signer === undefined || last == null || last.batchId !== outcome.batchId || last.status === outcome.status || last.reason !== undefined) return false;
    const next = {
      ...stored.record,
      signers: stored.record.signers.map((candidate) =>
        candidate.id === outcome.recipientId ? { ...candidate, lastEmail: { ...last, status: outcome.status, at: outcome.at } } : candidate,
      ),
    };
    await services.envelopes.replace(stored, next, []);
    return true;
  }, { missing: () => false, exhausted: stayedContended });
}
