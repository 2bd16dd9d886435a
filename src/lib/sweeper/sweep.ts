/**
 * The sweeper (docs/api.md#the-sweeper): one timer-triggered function (`Sweep`, on `SWEEP_SCHEDULE`) that runs
 * a list of steps, each doing the work that has fallen due, read from the due index (one table per
 * kind of work, `storage/dueIndex.ts`), never by scanning envelopes: a sweep costs what is due, not what
 * exists. Steps run one after another, in order (an envelope expired by one step is no longer
 * reminded by the next), and are independent: one that fails is logged and the others still run;
 * the sweep then fails so the host records it. Each step handles at most {@link SWEEP_STEP_LIMIT}
 * items per sweep and leaves the rest for the next one.
 *
 * Sweeps on several instances at once are safe: every step's work is idempotent (a batch dispatched
 * twice sends each e-mail once, see `notifications/sendEmail.ts`).
 *
 * Steps: {@link moveLegacyDueEntries} (a no-op once a process found nothing to move),
 * {@link redispatchDueOutbox}, {@link expireDueEnvelopes}, {@link sendDueReminders},
 * {@link retryDueCompletions}, {@link appendDueLogEntries}, {@link makeDueTreeHead},
 * {@link forgetExpiredIdempotencyKeys}, {@link finishRemovals},
 * {@link purgeRetainedEnvelopes} (from the index of finished envelopes, `storage/retentionRepository.ts`). The envelope steps call the domain's own operations, which act as the
 * `system` actor and change an envelope only if it is still as they read it (ETag), so two sweeps
 * that find the same entry change the envelope once.
 */
import { forEachConcurrently } from '../concurrency.js';
import { COMPLETION_DUE_KIND, retryCompletion } from '../envelopes/complete.js';
import { expireEnvelope } from '../envelopes/expire.js';
import { remindRecipients } from '../recipients/remind.js';
import { EXPIRY_DUE_KIND, REMINDER_DUE_KIND } from '../envelopes/routing.js';
import type { Services } from '../services.js';
import type { DueEntry } from '../storage/dueIndex.js';
import { IDEMPOTENCY_KEY_DUE_KIND } from '../storage/idempotencyKeyRepository.js';
import { recordEmailOutcome } from '../recipients/lastEmail.js';
import { recordSmsOutcome } from '../recipients/lastSms.js';
import { QUEUES } from '../storage/queues.js';
import { finishDueRemovals } from '../removal/removeMember.js';
import { purgeDueEnvelopes } from '../envelopes/retention.js';
import { encodePointer, OUTBOX_DUE_KIND, OUTBOX_MAX_REDISPATCHES, type StoredOutboxBatch } from '../notifications/outboxRepository.js';
import { inSpan, outboxAge } from '../telemetry/index.js';
import { completionLeaves, LOG_DUE_KIND, makeHeadIfDue } from '../transparency/publicLog.js';

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

/** Seconds between two looks of the sweeper at a batch some of whose messages are still on their way. */
export const OUTBOX_WATCH_SECONDS = 60;
/**
 * Seconds after its dispatch (or re-dispatch) when a message that is neither final nor claimed is
 * queued again, by the first sweep at or after that time (docs/api.md#configuration, "When a process
 * dies mid-message"): longer than its queue's normal retries leave it unclaimed (the visibility
 * timeout, a minute, plus the polling interval, at a time), so only a message whose process died
 * between receiving it and claiming it, with the work's own lease not yet written
 * (`triggers/register.ts`), comes back this way.
 */
export const OUTBOX_UNCLAIMED_SECONDS = 150;
/** Seconds after its change when the sweeper stops looking at a batch whose unclaimed messages never arrived. */
export const OUTBOX_WATCH_LIMIT_SECONDS = 86_400;

/**
 * Makes sure every outbox message arrives (docs/api.md#e-mail). Each batch keeps its due `outbox` entry
 * until every message has a final state; when the entry falls due (one minute after the change, then
 * every {@link OUTBOX_WATCH_SECONDS}, or sooner when an unclaimed message's {@link OUTBOX_UNCLAIMED_SECONDS}
 * are up, or later when the running claims end):
 * - a batch that does not exist (its change failed) loses its entry;
 * - a batch never dispatched (its process died first) is dispatched;
 * - each message stuck in `sending` past its claim (its sender died, or the message reached the
 *   poison queue before its state could be written), and each still unclaimed
 *   {@link OUTBOX_UNCLAIMED_SECONDS} after its dispatch, is re-dispatched, at most
 *   {@link OUTBOX_MAX_REDISPATCHES} times; after that it is marked `failed` and its pointer put on
 *   `<queue>-poison`, where an operator finds it (`npm run outbox -- list`);
 * - a recipient whose `lastEmail` still says `queued` for an e-mail of the batch that has a final
 *   state gets that state (its sender died between the two writes);
 * - the entry goes once every message has a final state (or a day after the change), else moves on.
 * Messages that are neither final nor claimed are on their queue (new, or waiting for the queue's
 * next try), and left to it.
 */
export const redispatchDueOutbox: SweepStep = {
  name: 'outbox',
  async run({ services, now, log }) {
    const due = await services.dueIndex.due(OUTBOX_DUE_KIND, now.toISOString(), SWEEP_STEP_LIMIT);
    await forEachConcurrently(due, CONCURRENCY, async (entry: DueEntry) => {
      const batch = await services.outbox.read(entry.ownerId, entry.id);
      if (batch === null) {
        outboxAge.settled(entry.id);
        await services.dueIndex.remove(entry);
        return;
      }
      let nextLook = now.getTime() + OUTBOX_WATCH_SECONDS * 1000;
      let firstUnclaimedDue = Number.POSITIVE_INFINITY;
      if (batch.dispatchedAt === null) {
        if (await services.outbox.dispatch(batch, log)) log(`Sweep: outbox batch ${batch.id} of envelope ${batch.envelopeId} dispatched again.`);
      } else {
        for (const [index, claim] of batch.claims.entries()) {
          if (batch.states[index] !== null) continue;
          if (claim === null) {
            // On its queue, unless its process died between receiving it and leaving any trace.
            const since = Date.parse(batch.redispatchedAt[index] ?? batch.dispatchedAt);
            const unclaimedUntil = since + OUTBOX_UNCLAIMED_SECONDS * 1000;
            if (now.getTime() < unclaimedUntil) {
              firstUnclaimedDue = Math.min(firstUnclaimedDue, unclaimedUntil);
              continue;
            }
          } else if (Date.parse(claim.until) > now.getTime()) {
            nextLook = Math.max(nextLook, Date.parse(claim.until) + 1000);
            continue;
          }
          const pointer = { ownerId: batch.ownerId, batchId: batch.id, index };
          if (batch.redispatches[index]! >= OUTBOX_MAX_REDISPATCHES) {
            const { kind } = batch.messages[index]!;
            const queue = kind === 'email' ? QUEUES.email : kind === 'sms' ? QUEUES.sms : QUEUES.events;
            const poison = services.storage.queueService.getQueueClient(`${queue}-poison`);
            await poison.createIfNotExists();
            await poison.sendMessage(encodePointer(pointer));
            await services.outbox.setState(pointer, 'failed');
            batch.states[index] = 'failed';
            log(`Sweep: outbox message ${batch.id}.${index} stuck after ${batch.redispatches[index]} re-dispatches; marked failed and put on ${queue}-poison.`);
          } else {
            await services.outbox.redispatch(batch, index, now);
            const why = claim === null ? `unclaimed ${OUTBOX_UNCLAIMED_SECONDS} s after its dispatch` : `stuck in sending since its claim ran out (${claim.until})`;
            log(`Sweep: outbox message ${batch.id}.${index} ${why}; dispatched again.`);
          }
        }
      }
      await settleLastEmails(services, batch);
      if (batch.states.every((state) => state !== null)) {
        outboxAge.settled(batch.id);
        await services.dueIndex.remove(entry);
        return;
      }
      if (now.getTime() - Date.parse(batch.createdAt) > OUTBOX_WATCH_LIMIT_SECONDS * 1000) {
        // Only unclaimed messages are left, whose queue messages an operator finds in the poison queues.
        log(`Sweep: outbox batch ${batch.id} no longer watched, ${OUTBOX_WATCH_LIMIT_SECONDS} s after its change.`);
        outboxAge.settled(batch.id);
        await services.dueIndex.remove(entry);
        return;
      }
      // Still on its way: `outbox.oldest_age` (docs/api.md#telemetry) counts from the batch's change.
      outboxAge.pending(batch.id, batch.createdAt);
      // An unclaimed message is looked at again exactly when its time is up, not up to a watch interval later
      // (a message still claimed is skipped then, as now).
      const next = { ...entry, dueAt: new Date(Math.min(nextLook, firstUnclaimedDue)).toISOString() };
      await services.dueIndex.put(next);
      await services.dueIndex.remove(entry);
    });
    outboxAge.swept(now);
    return due.length;
  },
};

/**
 * Gives each recipient whose `lastEmail` is an e-mail of this batch still `queued` the final state
 * that e-mail has (`recordEmailOutcome`, which leaves newer e-mails alone), and each recipient whose
 * newest text message is of this batch with no outcome recorded its `lastSms` (`recordSmsOutcome`).
 * One envelope read when the batch has e-mails or texts to recipients with a final state; none otherwise.
 */
async function settleLastEmails(services: Services, batch: StoredOutboxBatch): Promise<void> {
  const finals = batch.messages.flatMap((message, index) => {
    const state = batch.states[index];
    return (message.kind === 'email' || message.kind === 'sms') && message.recipientId !== null && state !== null ? [{ kind: message.kind, recipientId: message.recipientId, state: state! }] : [];
  });
  if (finals.length === 0) return;
  const stored = await services.envelopes.read(batch.ownerId, batch.envelopeId);
  if (stored === null) return;
  for (const { kind, recipientId, state } of finals) {
    const signer = stored.record.signers.find((candidate) => candidate.id === recipientId);
    const outcome = { ownerId: batch.ownerId, envelopeId: batch.envelopeId, recipientId, batchId: batch.id, status: state, at: new Date().toISOString() };
    if (kind === 'sms') {
      // docs/api.md#lastsms: a text of this batch that is still the newest and whose outcome is not recorded.
      if (signer?.smsBatchId === batch.id && signer.lastSms?.batchId !== batch.id) await recordSmsOutcome(services, outcome);
      continue;
    }
    const last = signer?.lastEmail;
    if (last?.batchId !== batch.id || last.status !== 'queued') continue;
    await recordEmailOutcome(services, outcome);
  }
}

/**
 * Expires `sent` envelopes whose `expiresAt` has passed (docs/api.md#lifecycle, docs/api.md#the-sweeper): the entry (kind
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
 * Sends due reminders (docs/api.md#e-mail): `remindRecipients` reminds every recipient whose reminder is
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
 * Retries completions that failed after every recipient had acted (docs/api.md#the-recipients-api, docs/api.md#the-sweeper), for
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
 * Appends to the public log the completed envelopes whose completion did not (docs/api.md#public-log):
 * its process died between the commit and the append, or the append failed. Each `log` entry was
 * written before its completion's commit; an envelope that is not completed (that commit failed) or
 * no longer exists loses its entry, and one completed is appended (once: an envelope already in the
 * log keeps its place) from its `envelope.completed` event, then loses it.
 */
export const appendDueLogEntries: SweepStep = {
  name: 'logAppends',
  async run({ services, now, log }) {
    const due = await services.dueIndex.due(LOG_DUE_KIND, now.toISOString(), SWEEP_STEP_LIMIT);
    await forEachConcurrently(due, CONCURRENCY, async (entry) => {
      const stored = await services.envelopes.read(entry.ownerId, entry.id);
      if (stored !== null && stored.record.status === 'completed') {
        const completed = (await services.envelopes.events(stored.record.ownerId, entry.id)).findLast((event) => event.type === 'envelope.completed');
        const leaves = completed === undefined ? null : completionLeaves(completed.details);
        if (leaves === null) {
          log(`Sweep: envelope ${entry.id} is completed without a sealed hash and an audit trail head to append to the public log.`);
        } else {
          const index = await services.publicLog.append({ envelopeId: entry.id, leaves });
          log(`Sweep: envelope ${entry.id} is in the public log from leaf ${index}.`);
        }
      }
      await services.dueIndex.remove(entry);
    });
    return due.length;
  },
};

/**
 * Makes a signed tree head of the public log when one is due (docs/api.md#signed-tree-heads): the tree
 * grew and the newest head is `LOG_STH_INTERVAL_SECONDS` old, so every completion is covered by a head
 * within that interval (and the sweep's schedule). An empty log's head is left to `GET /api/log/sth`.
 */
export const makeDueTreeHead: SweepStep = {
  name: 'logHead',
  async run({ services, now, log }) {
    const head = await makeHeadIfDue(services, now, { emptyTree: false });
    if (head === null) return 0;
    log(`Sweep: signed tree head of ${head.treeSize} leaves made.`);
    return 1;
  },
};

/**
 * Deletes the idempotency keys whose 24 hours are over (docs/api.md#idempotency), owner by owner, as their
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

/**
 * Finishes removals of members (docs/api.md#removing-a-member) whose due entry fell due: a request that
 * died half-way, or the last pass once no instance can still accept the removed account's credentials
 * (`removal/removeMember.ts`).
 */
export const finishRemovals: SweepStep = {
  name: 'removals',
  async run({ services, now, log }) {
    return await finishDueRemovals(services, now, SWEEP_STEP_LIMIT, log);
  },
};

/**
 * Purges the finished envelopes their organisation's `retentionDays` no longer keeps
 * (docs/api.md#retention), read from the index of finished envelopes, with the purge `DELETE` does
 * (`envelopes/retention.ts`). After the expiry step: an envelope expired by this sweep is not due yet.
 */
export const purgeRetainedEnvelopes: SweepStep = {
  name: 'retention',
  async run({ services, now, log }) {
    return await purgeDueEnvelopes(services, now, SWEEP_STEP_LIMIT, log);
  },
};

/** Every step of a sweep, in order. */
export const SWEEP_STEPS: readonly SweepStep[] = [
  moveLegacyDueEntries,
  redispatchDueOutbox,
  expireDueEnvelopes,
  sendDueReminders,
  retryDueCompletions,
  appendDueLogEntries,
  makeDueTreeHead,
  forgetExpiredIdempotencyKeys,
  finishRemovals,
  purgeRetainedEnvelopes,
];

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
      // One span per step (docs/api.md#telemetry), with the count of what it handled.
      report[step.name] = await inSpan(`sweep.${step.name}`, {}, async (notes) => {
        const handled = await step.run({ services, now, log });
        notes.set('sweep.handled', handled);
        return handled;
      });
    } catch (error) {
      errors.push(error);
      log(`Sweep step ${step.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (errors.length > 0) throw new AggregateError(errors, `Sweep: ${errors.length} step(s) failed`);
  return report;
}
