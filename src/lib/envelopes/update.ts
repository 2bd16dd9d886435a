/**
 * Update Envelope, `PUT` and `PATCH` alike (spec §4, CONTRACT §3, §5): signers and status, with
 * If-Match and, without it, read-modify-write that never loses a concurrent update.
 */
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { EnvelopeChangedError } from '../storage/envelopeRepository.js';
import { checkDocument } from './document.js';
import { readOwnedEnvelope } from './get.js';
import { ifMatchSatisfied, planUpdate } from './lifecycle.js';
import { envelopeETag, type Actor, type EnvelopeRecord } from './model.js';
import type { UpdateEnvelopeRequest } from './schemas.js';

/** Attempts of the read-modify-write loop before giving up with 409. */
export const MAX_UPDATE_ATTEMPTS = 30;

export interface UpdateEnvelopeOptions {
  services: Services;
  envelopeId: string;
  request: UpdateEnvelopeRequest;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
  now?: () => Date;
}

/**
 * Applies `request` to the caller's envelope and returns it as stored afterwards.
 * @throws AppError 404 (missing or another owner's), 412 (If-Match stale), 409 (lifecycle refuses;
 *   document not uploaded; still contended after {@link MAX_UPDATE_ATTEMPTS}), 413/415/422 (document
 *   unusable, when sending)
 */
export async function updateEnvelope({ services, envelopeId, request, actor, ifMatch, now = () => new Date() }: UpdateEnvelopeOptions): Promise<EnvelopeRecord> {
  for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
    const stored = await readOwnedEnvelope(services.envelopes, actor.userId, envelopeId);
    if (!ifMatchSatisfied(ifMatch, envelopeETag(stored.record))) throw preconditionFailed();
    const plan = planUpdate(stored.record, request, actor, now());
    if (plan === null) return stored.record;
    if (plan.sends) await checkDocument({ services, record: stored.record });
    try {
      await services.envelopes.replace(stored, plan.next, plan.events);
      return plan.next;
    } catch (error) {
      if (!(error instanceof EnvelopeChangedError)) throw error;
      if (ifMatch !== null) throw preconditionFailed();
      await backoff(attempt);
    }
  }
  throw new AppError('conflict', 'The envelope is being changed by other requests at the same time; retry.', { type: 'envelope-contended' });
}

export function preconditionFailed(): AppError {
  return new AppError('precondition_failed', 'The envelope has changed since the ETag in If-Match; read it again.', { type: 'etag-mismatch' });
}

/** Random delay growing with the attempt, milliseconds: spreads retries of contending writers. */
export async function backoff(attempt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(200, 10 * (attempt + 1))));
}
