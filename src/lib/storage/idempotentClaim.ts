/**
 * An idempotency key's claim that rides in the request's own write (docs/api.md#idempotency): for an endpoint
 * whose whole change is one entity-group transaction in the owner's partition of table `envelopes`
 * (GetUploadUrl), the claim row (`idempotencyKeyRepository.ts`, same table, same partition) is added
 * to that transaction instead of being inserted before the work. The key then costs the request no
 * storage round trip of its own, and the claim and the work land together or not at all: a crash
 * before the transaction leaves neither (a retry runs, and nothing was done), a crash after it leaves
 * both (a retry is told the key is in use, then that the outcome is unknown, as for any claim).
 *
 * `idempotency.ts` starts the endpoint inside {@link withPendingClaim}; the repository that writes the
 * transaction takes the claim with {@link pendingClaimFor} and reports the outcome on it. An endpoint
 * whose answer is known before its transaction hands it over first ({@link answerWithClaim}): the
 * transaction then inserts the kept answer itself, and no write follows the request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { KeptAnswer } from './idempotencyKeyRepository.js';

type Entity = Record<string, unknown> & { partitionKey: string; rowKey: string };

/** The claim row waiting for the request's transaction, and what became of it. */
export interface PendingClaim {
  readonly ownerId: string;
  /** The claim row (an entity of table `envelopes`, `state: running`), inserted insert-only with the transaction. */
  readonly entity: Entity;
  /**
   * The kept answer's row (`state: done`) to insert instead of {@link entity}, when the endpoint
   * knew its answer before its transaction ({@link answerWithClaim}): the answer then lands with the work.
   */
  answered?: Entity;
  /** Builds the row of a kept answer for this claim (`IdempotencyKeyRepository.doneRow`, with the claim's request and expiry). */
  readonly answerRow: (answer: KeptAnswer) => Entity;
  /**
   * `pending`: no transaction took it (yet); `committed`: the transaction wrote it, with `etag`;
   * `taken`: the transaction failed because the key's row already exists (nothing was written).
   */
  state: 'pending' | 'committed' | 'taken';
  etag?: string;
}

const current = new AsyncLocalStorage<PendingClaim>();

/** Runs `work` with `claim` waiting for the first transaction in the owner's partition that takes it. */
export async function withPendingClaim<T>(claim: PendingClaim, work: () => Promise<T>): Promise<T> {
  return await current.run(claim, work);
}

/**
 * The claim waiting for a transaction in `ownerId`'s partition, or `undefined` (none, another owner,
 * or already taken by an earlier transaction of the request).
 */
export function pendingClaimFor(ownerId: string): PendingClaim | undefined {
  const claim = current.getStore();
  return claim !== undefined && claim.state === 'pending' && claim.ownerId === ownerId ? claim : undefined;
}

/** The row a transaction in `ownerId`'s partition inserts for the waiting claim: the kept answer when there is one, else the claim. */
export function claimRowFor(claim: PendingClaim): Entity {
  return claim.answered ?? claim.entity;
}

/**
 * For an endpoint that knows its answer before its transaction (GetUploadUrl: the new envelope's id
 * and upload URL): gives the request's waiting claim, if any, the row of that answer, so that the
 * transaction inserts the kept answer instead of a bare claim. Nothing happens without a waiting claim.
 */
export function answerWithClaim(answer: KeptAnswer): void {
  const claim = current.getStore();
  if (claim !== undefined && claim.state === 'pending') claim.answered = claim.answerRow(answer);
}
