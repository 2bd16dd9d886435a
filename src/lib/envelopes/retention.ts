/**
 * Retention (docs/api.md#retention): the sweeper's step that purges, with the one purge operation of
 * `delete.ts`, the envelopes each organisation's `retentionDays` no longer keeps.
 *
 * What is due is read from the index of finished envelopes (`storage/retentionRepository.ts`): per
 * organisation that set a period, one range query for the envelopes finished before now minus the
 * period. A sweep reads what has fallen due, never every envelope. The first sweep after an
 * organisation set a period indexes its envelopes finished before the index existed, once
 * ({@link indexFinishedEnvelopes}).
 *
 * Each purge is idempotent and resumable: the index entry goes only once the purge is done, so a sweep
 * that died mid-purge leaves the entry, and the next sweep finishes the purge (its documents, its log
 * row) without recording it twice. A sealed PDF storage refuses to delete (its immutability period,
 * docs/api.md#sealed-pdfs-are-immutable) is reported once, in the purge log and the sweep's log: the
 * entry goes all the same, and no sweep tries it again.
 */
import { forEachConcurrently } from '../concurrency.js';
import type { Services } from '../services.js';
import type { RetentionPolicy } from '../storage/retentionRepository.js';
import { purgeEnvelope } from './delete.js';
import { FINAL_STATUSES } from './model.js';

/** Purges one sweep works on at once. */
const CONCURRENCY = 8;

/** Envelopes read per page while indexing an organisation's older finished envelopes. */
const INDEX_PAGE = 1000;

/**
 * Purges the finished envelopes whose organisation's retention period has passed, at most `limit`
 * (the rest are left for the next sweep).
 * @param now the sweep's clock; a "day" of `retentionDays` lasts `config.retentionDaySeconds`
 * @returns the number of index entries handled
 * @throws the first storage error (entries not handled stay for the next sweep)
 */
export async function purgeDueEnvelopes(services: Services, now: Date, limit: number, log: (message: string) => void): Promise<number> {
  let handled = 0;
  for (const policy of await services.retention.policies()) {
    if (handled >= limit) break;
    if (policy.indexedAt === null) {
      const indexed = await indexFinishedEnvelopes(services, policy.organizationId);
      await services.retention.markIndexed(policy.organizationId, now);
      if (indexed > 0) log(`Sweep: ${indexed} finished envelope(s) of organization ${policy.organizationId} indexed for retention.`);
    }
    const due = await services.retention.finishedBefore(policy.organizationId, cutoffOf(policy, now, services.config.retentionDaySeconds), limit - handled);
    handled += due.length;
    await forEachConcurrently(due, CONCURRENCY, async (entry) => {
      const outcome = await purgeEnvelope({ services, ownerId: entry.ownerId, envelopeId: entry.envelopeId, reason: 'retention', now: () => now, log });
      if (outcome?.committed === true) {
        const kept = outcome.sealedImmutableUntil === null ? '' : `; storage refused to delete its sealed PDF, immutable until ${outcome.sealedImmutableUntil} (recorded in the purge log, not retried)`;
        log(`Sweep: envelope ${entry.envelopeId} purged, ${policy.retentionDays} days after it finished${kept}.`);
      }
      // Purged (now or before), or not finished after all (its change never committed): not due again.
      await services.retention.removeFinished(entry);
    });
  }
  return handled;
}

/** The latest `closedAt` a policy no longer keeps at `now`, ISO 8601. */
function cutoffOf(policy: RetentionPolicy, now: Date, daySeconds: number): string {
  return new Date(now.getTime() - policy.retentionDays * daySeconds * 1000).toISOString();
}

/**
 * Puts the organisation's envelopes that finished before the index existed into it: each member's
 * envelopes of each final status, read by status (one range query per member and status, paged).
 * Idempotent (upserts), so a sweep that dies half-way is completed by the next.
 * @returns the number of envelopes indexed
 */
export async function indexFinishedEnvelopes(services: Services, organizationId: string): Promise<number> {
  let indexed = 0;
  for (const member of await services.organizations.members(organizationId)) {
    for (const status of FINAL_STATUSES) {
      let cursor: string | undefined;
      do {
        const page = await services.envelopes.list(member.userId, { status, limit: INDEX_PAGE, ...(cursor === undefined ? {} : { cursor }) });
        const finished = page.records.filter((record) => record.purgedAt === null && (record.organizationId ?? organizationId) === organizationId);
        await forEachConcurrently(finished, CONCURRENCY, async (record) => {
          await services.retention.addFinished({ organizationId, ownerId: record.ownerId, envelopeId: record.id, closedAt: record.closedAt ?? record.completedAt ?? record.updatedAt });
        });
        indexed += finished.length;
        cursor = page.nextCursor;
      } while (cursor !== undefined);
    }
  }
  return indexed;
}
