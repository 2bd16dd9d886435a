/**
 * A recipient's `lastSms` (docs/api.md#lastsms) follows the newest text message to it: `sent` once
 * Communication Services accepted it, `failed` (with a `reason`) once the outbox gave up on it. The
 * change that queues a text notes its outbox batch on the recipient (`smsBatchId`); an outcome for an
 * older text than the newest is ignored.
 */
import type { LastSms } from '../envelopes/model.js';
import { mutateEnvelope } from '../envelopes/mutate.js';
import type { Services } from '../services.js';

/** Longest `reason` kept, characters. */
const MAX_REASON = 200;

export interface SmsOutcome {
  ownerId: string;
  envelopeId: string;
  recipientId: string;
  /** The outbox batch of the text. */
  batchId: string;
  status: LastSms['status'];
  /** ISO 8601 UTC with milliseconds. */
  at: string;
  /** Why it failed (shortened to 200 characters). */
  reason?: string;
}

/**
 * Records the outcome of a text on its recipient, when that text is still the recipient's newest.
 * Read-modify-write with the envelope's ETag, retried on contention (`envelopes/mutate.ts`); records
 * no audit event (a text's delivery is not a change of the envelope).
 * @returns whether the recipient's `lastSms` changed
 * @throws Error when concurrent changes won every round
 */
export async function recordSmsOutcome(services: Services, outcome: SmsOutcome): Promise<boolean> {
  const stayedContended = () => {
    throw new Error(`lastSms of recipient ${outcome.recipientId} not recorded: envelope ${outcome.envelopeId} stayed contended`);
  };
  return await mutateEnvelope(services, outcome, async (stored) => {
    const signer = stored.record.signers.find((candidate) => candidate.id === outcome.recipientId);
    if (signer === undefined || signer.smsBatchId !== outcome.batchId) return false;
    // The same text's outcome again, or `sent` after the carrier's later `delivered`: nothing new.
    const last = signer.lastSms;
    if (last?.batchId === outcome.batchId && (last.status === outcome.status || (last.status === 'delivered' && outcome.status === 'sent'))) return false;
    const lastSms: LastSms = {
      status: outcome.status,
      at: outcome.at,
      ...(outcome.reason === undefined ? {} : { reason: outcome.reason.slice(0, MAX_REASON) }),
      batchId: outcome.batchId,
    };
    const next = { ...stored.record, signers: stored.record.signers.map((candidate) => (candidate.id === outcome.recipientId ? { ...candidate, lastSms } : candidate)) };
    await services.envelopes.replace(stored, next, []);
    return true;
  }, { missing: () => false, exhausted: stayedContended });
}
