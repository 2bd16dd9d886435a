/**
 * The one way an envelope is changed under contention (docs/api.md#lifecycle): read it, let the
 * operation decide and write its change conditional on the ETag it read (`change.ts` `commitChange`,
 * or a repository write that throws {@link EnvelopeChangedError}), and when a concurrent change won,
 * read it again and let the operation decide again, on the generic loop of `../retryOnConflict.ts`.
 * An operation says only what changes; this module owns the re-reading, the `If-Match` answer, the
 * back-off and the 409 `envelope-contended`.
 */
import { isUuid } from '../ids.js';
import type { AppError } from '../errors.js';
import { problem } from '../problems.js';
import { retryOnConflict, type RetryOnConflictOptions } from '../retryOnConflict.js';
import type { Services } from '../services.js';
import { EnvelopeChangedError, type StoredEnvelope } from '../storage/envelopeRepository.js';
import { findMembersEnvelope } from './access.js';
import { envelopeNotFound } from './get.js';
import type { Actor } from './model.js';

/** Which envelope: its owner's id (the Table partition) and its id. */
export interface EnvelopeKey {
  ownerId: string;
  envelopeId: string;
}

export interface MutateEnvelopeOptions<T> {
  /** The envelope as the request already read it: the first round uses it, later rounds read it anew. */
  first?: StoredEnvelope;
  /** The answer when the envelope is not there (missing, deleted, not a UUID); default: throws 404 `envelope-not-found`. */
  missing?: () => T | Promise<T>;
  /**
   * The request's `If-Match` header, or `null`: with one, a concurrent change that wins answers 412
   * `etag-mismatch` ({@link preconditionFailed}) instead of another round (docs/api.md#the-envelope).
   * The operation itself compares it with the version it read.
   */
  ifMatch?: string | null;
  /** The answer once every round lost; default: throws 409 `envelope-contended` ({@link contended}). */
  exhausted?: () => T;
  /** As in `retryOnConflict`: fewer rounds for costly ones, a longer wait after some conflicts. */
  attempts?: number;
  backoffRound?: RetryOnConflictOptions<T>['backoffRound'];
}

/**
 * Runs `mutate` on the envelope as stored (with its ETag) until it returns without a concurrent change
 * winning its write: each time it throws {@link EnvelopeChangedError}, waits a growing random delay,
 * reads the envelope again and runs `mutate` again on that.
 * @param mutate decides on `stored` and writes conditional on `stored.etag`; throws
 *   EnvelopeChangedError when a concurrent change won (nothing it wrote stands), or its own answers
 * @returns what `mutate` returns; `options.missing()` when the envelope is not there
 * @throws AppError 404 `envelope-not-found` (unless `options.missing`), 412 `etag-mismatch` (with
 *   `options.ifMatch`), 409 `envelope-contended` after every round (unless `options.exhausted`);
 *   whatever else `mutate` throws
 */
export async function mutateEnvelope<T>(services: Services, key: EnvelopeKey, mutate: (stored: StoredEnvelope) => Promise<T>, options: MutateEnvelopeOptions<T> = {}): Promise<T> {
  const { first, ifMatch = null, missing = () => { throw envelopeNotFound(); }, exhausted = () => { throw contended(); } } = options;
  return await retryOnConflict(
    async (round) => {
      const stored = round === 0 && first !== undefined ? first : isUuid(key.envelopeId) ? await services.envelopes.read(key.ownerId, key.envelopeId) : null;
      if (stored === null) return await missing();
      try {
        return await mutate(stored);
      } catch (error) {
        if (error instanceof EnvelopeChangedError && ifMatch !== null) throw preconditionFailed();
        throw error;
      }
    },
    {
      isConflict: (error) => error instanceof EnvelopeChangedError,
      exhausted,
      ...(options.attempts === undefined ? {} : { attempts: options.attempts }),
      ...(options.backoffRound === undefined ? {} : { backoffRound: options.backoffRound }),
    },
  );
}

/**
 * {@link mutateEnvelope} of the envelope `envelopeId` as a member changes it: in the partition of its
 * owner when the actor's role reaches the organisation's envelopes (`access.ts`
 * `envelopeOwnerFor`, docs/api.md#what-members-share), else in the actor's own.
 * @throws as {@link mutateEnvelope}: 404 `envelope-not-found` also for another organisation's id;
 *   403 `forbidden-role` for another member's envelope the actor's role may not change
 */
export async function mutateMembersEnvelope<T>(services: Services, actor: Actor, envelopeId: string, mutate: (stored: StoredEnvelope) => Promise<T>, options: Omit<MutateEnvelopeOptions<T>, 'first'> = {}): Promise<T> {
  // The first round works on the envelope as found; a missing one is read again there (and answered `missing`).
  const { ownerId, stored } = await findMembersEnvelope(services, actor, envelopeId, 'change');
  return await mutateEnvelope(services, { ownerId, envelopeId }, mutate, { ...options, ...(stored === null ? {} : { first: stored }) });
}

/** 412 `etag-mismatch`: the envelope changed since the ETag the request sent in `If-Match` (RFC 9110 §13.1.1). */
export function preconditionFailed(): AppError {
  return problem('etagMismatch', { detail: 'The envelope has changed since the ETag in If-Match; read it again.' });
}

/** 409 `envelope-contended`: concurrent changes won every round (docs/api.md#the-envelope). */
export function contended(): AppError {
  return problem('envelopeContended');
}
