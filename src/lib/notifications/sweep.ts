/**
 * The sweeper (CONTRACT §12.3): one timer-triggered function (`Sweep`, on `SWEEP_SCHEDULE`) that runs
 * a list of steps, each doing the work that has fallen due, read from the due index (one table per
 * kind of work, `dueIndex.ts`), never by scanning envelopes: a sweep costs what is due, not what
 * exists. Steps run one after another, in order (an envelope expired by one step is no longer
 * reminded by the next), and are independent: one that fails is logged and the others still run;
 * the sweep then fails so the host records it. Each step handles at most {@link SWEEP_STEP_LIMIT}
 * items per sweep and leaves the rest for the next one.
 *
 * Sweeps on several instances at once are safe: every step's work is idempotent (a batch dispatched
 * twice sends each e-mail once, see `sendEmail.ts`).
 *
 * Steps: {@link moveLegacyDueEntries} (a no-op once a process found nothing to move),
 * {@link redispatchDueOutbox}, {@link expireDueEnvelopes}, {@link sendDueReminders},
 * {@link retryDueCompletions}, {@link forgetExpiredIdempotencyKeys}. The envelope steps call the domain's own operations, which act as the
 * `system` actor and change an envelope only if it is still as they read it (ETag), so two sweeps
 * that find the same entry change the envelope once.
 */
import { forEachConcurrently } from '../concurrency.js';
import { COMPLETION_DUE_KIND, retryCompletion } from '../envelopes/complete.js';
import { expireEnvelope } from '../envelopes/expire.js';
import { remindRecipients } from '../recipients/remind.js';
import { EXPIRY_DUE_KIND, REMINDER_DUE_KIND } from '../recipients/routing.js';
import type { Services } from '../services.js';
import type { DueEntry } from '../storage/dueIndex.js';
import { IDEMPOTENCY_KEY_DUE_KIND } from '../storage/idempotencyKeyRepository.js';
import { OUTBOX_DUE_KIND } from './outboxRepository.js';

/** Most items one step handles in one sweep. */
export const SWEEP_STEP_LIMIT = 500;

/** Items a step works on at once. */
const CONCURRENCY = 16;

export interface SweepStepContext {
  services: Services;
  /** The sweep's clock: work due at or before it is done. */
  now: Date;
  log: (message: string) => void;
}

export interface SweepStep {
  name: string;
  /** Does what is due; resolves to the number of due items it handled. */
  run(context: SweepStepContext): Promise<number>;
}

/**
 * Moves the entries an earlier version left in its single due-index table (`dueIndex`) into the
 * tables of their kinds (`DueIndex.moveLegacyEntries`), before the steps that read those: an
 * upgraded deployment loses none. Once a process found that table empty or missing, it does nothing.
 */
export const moveLegacyDueEntries: SweepStep = {
  name: 'legacyDueIndex',
  async run({ services, log }) {
    const moved = await services.dueIndex.moveLegacyEntries();
    if (moved > 0) log(`Sweep: ${moved} due entries moved from the legacy table dueIndex to the table of their kind.`);
    return moved;
  },
};

/**
 * Re-dispatches outbox batches still undispatched one minute after their change (CONTRACT §12.1):
 * for each due `outbox` entry, a batch that does not exist (its change failed) or was dispatched
 * already only loses its entry; any other is dispatched again (`OutboxStore.dispatch`, which removes
 * the entry once every message is on its queue, and leaves it for the next sweep otherwise).
 */
export const redispatchDueOutbox: SweepStep = {
  name: 'outbox',
  async run({ services, now, log }) {
    const due = await services.dueIndex.due(OUTBOX_DUE_KIND, now.toISOString(), SWEEP_STEP_LIMIT);
    await forEachConcurrently(due, CONCURRENCY, async (entry: DueEntry) => {
      const batch = await services.outbox.read(entry.ownerId, entry.id);
      if (batch === null || batch.dispatchedAt !== null) {
        await services.dueIndex.remove(entry);
        return;
      }
      if (await services.outbox.dispatch(batch, log)) {
        await services.dueIndex.remove(entry);
        log(`Sweep: outbox batch ${batch.id} of envelope ${batch.envelopeId} dispatched again.`);
      }
    });
    return due.length;
  },
};

/**
 * Expires `sent` envelopes whose `expiresAt` has passed (CONTRACT §5, §12.3): the entry (kind
 * `expiry`, written at send) goes once the envelope is no longer `sent` (expired now, or completed,
 * declined or voided before); an envelope still `sent` keeps it for the next sweep.
 */
export const expireDueEnvelopes: SweepStep = {
  name: 'expiry',
  async run({ services, now, log }) {
    const due = await services.dueIndex.due(EXPIRY_DUE_KIND, now.toISOString(), SWEEP_STEP_LIMIT);
    await forEachConcurrently(due, CONCURRENCY, async (entry) => {
      const expired = await expireEnvelope({ services, ownerId: entry.ownerId, envelopeId: entry.id, now: () => now, log });
      if (expired) log(`Sweep: envelope ${entry.id} expired.`);
      const current = await services.envelopes.read(entry.ownerId, entry.id);
      if (current === null || current.record.status !== 'sent') await services.dueIndex.remove(entry);
    });
    return due.length;
  },
};

/**
 * Sends due reminders (CONTRACT §12.1): `remindRecipients` reminds every recipient whose reminder is
 * due and records the next entry itself; the entry handled here then goes.
 */
export const sendDueReminders: SweepStep = {
  name: 'reminders',
  async run({ services, now, log }) {
    const due = await services.dueIndex.due(REMINDER_DUE_KIND, now.toISOString(), SWEEP_STEP_LIMIT);
    await forEachConcurrently(due, CONCURRENCY, async (entry) => {
      const reminded = await remindRecipients({ services, ownerId: entry.ownerId, envelopeId: entry.id, now: () => now, log });
      if (reminded.length > 0) log(`Sweep: ${reminded.length} reminder(s) for envelope ${entry.id}.`);
      await services.dueIndex.remove(entry);
    });
    return due.length;
  },
};

/**
 * Retries completions that failed after every recipient had acted (CONTRACT §11.4, §12.3), for
 * instance while the timestamp authority was down. `retryCompletion` removes the entry once the
 * envelope is completed or no longer needs it, and this step removes the entry of an envelope that no
 * longer exists; a seal that fails again leaves it for the next sweep.
 */
export const retryDueCompletions: SweepStep = {
  name: 'completions',
  async run({ services, now, log }) {
    const due = await services.dueIndex.due(COMPLETION_DUE_KIND, now.toISOString(), SWEEP_STEP_LIMIT);
    await forEachConcurrently(due, CONCURRENCY, async (entry) => {
      if (await retryCompletion({ services, ownerId: entry.ownerId, envelopeId: entry.id, now: () => now, log })) {
        log(`Sweep: envelope ${entry.id} completed.`);
      } else if ((await services.envelopes.read(entry.ownerId, entry.id)) === null) {
        // The envelope no longer exists (a deleted draft): nothing will ever complete it.
        await services.dueIndex.remove(entry);
      }
    });
    return due.length;
  },
};

/**
 * Deletes the idempotency keys whose 24 hours are over (CONTRACT §14.2), owner by owner, as their
 * hourly due entries fall due: Table Storage deletes nothing by itself. A key a later request claimed
 * again since keeps its row. An owner with more expired keys than one call deletes keeps the entry
 * for the next sweep.
 */
export const forgetExpiredIdempotencyKeys: SweepStep = {
  name: 'idempotencyKeys',
  async run({ services, now }) {
    const due = await services.dueIndex.due(IDEMPOTENCY_KEY_DUE_KIND, now.toISOString(), SWEEP_STEP_LIMIT);
    await forEachConcurrently(due, CONCURRENCY, async (entry) => {
      if (await services.idempotencyKeys.forgetExpired(entry.ownerId, now)) await services.dueIndex.remove(entry);
    });
    return due.length;
  },
};

/** Every step of a sweep, in order. */
export const SWEEP_STEPS: readonly SweepStep[] = [moveLegacyDueEntries, redispatchDueOutbox, expireDueEnvelopes, sendDueReminders, retryDueCompletions, forgetExpiredIdempotencyKeys];

export interface RunSweepOptions {
  services: Services;
  now?: Date;
  steps?: readonly SweepStep[];
  log?: (message: string) => void;
}

/** What each step handled. */
export type SweepReport = Record<string, number>;

/**
 * Runs every step, one after another (see the module comment).
 * @returns the number of items each step handled
 * @throws AggregateError of the steps' errors when any step failed (after all steps ran)
 */
export async function runSweep({ services, now = new Date(), steps = SWEEP_STEPS, log = () => undefined }: RunSweepOptions): Promise<SweepReport> {
  const report: SweepReport = {};
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      report[step.name] = await step.run({ services, now, log });
    } catch (error) {
      errors.push(error);
      log(`Sweep step ${step.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `Sweep: ${errors.length} step(s) failed`);
  return report;
}
