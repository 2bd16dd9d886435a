/**
 * The evidence nobody can quietly rewrite (bench/README.md): what the chained audit trail and the
 * public log cost, in an Azurite of the suite's own (in memory), timed in this process.
 *
 * - **Audit append.** One audit event appended to an envelope as a change writes it (the envelope row
 *   replaced conditional on its ETag, with the event's row, in one entity-group transaction:
 *   `EnvelopeRepository.replace`), with its hash (the event chained: RFC 8785 canonical JSON, SHA-256,
 *   `prevHash` and `hash` stored, the envelope's `auditHead` moved on: `chainEvents`) and without.
 *   Each side has an envelope (and owner partition) of its own; rounds alternate which goes first.
 * - **Log append.** One envelope's two leaves appended to the public log (`PublicLogStore.append`:
 *   the state read, the exactly-once check, the conditional commit, the new nodes and leaf index rows,
 *   the state cleared) to a tree of 1,000 leaves and to one of 100,000, each in tables of its own,
 *   filled at storage level first (`PublicLogStore.fill`: the rows appends write, in entity-group
 *   transactions; setup, not measured). Rounds alternate which tree goes first.
 */
import { createHash, randomUUID } from 'node:crypto';
import { TableClient } from '@azure/data-tables';
import { chainEvents, chainStart } from '../../src/lib/envelopes/auditHash.js';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import type { Actor, AuditEvent } from '../../src/lib/envelopes/model.js';
import { EnvelopeRepository } from '../../src/lib/storage/envelopeRepository.js';
import { PublicLogStore, type LogEntry } from '../../src/lib/transparency/logStore.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { progress } from '../lib/progress.js';
import { median, pairedRatio, percentile, summarize, type Summary } from '../lib/stats.js';

export interface PublicLogFigures {
  auditAppend: { appendsPerRound: number; withHashMs: Summary; withoutHashMs: Summary; ratio: Summary };
  logAppend: { appendsPerRound: number; smallLeaves: number; largeLeaves: number; smallP50Ms: Summary; largeP50Ms: Summary; ratio: Summary; fillSeconds: number };
}

const OWNER: Actor = { userId: '', email: 'bench@example.com', emailVerified: true, ip: '203.0.113.7', userAgent: 'bench', apiKeyId: null, organizationId: '', role: 'owner' };

/** An envelope's leaves as a completion makes them: two SHA-256 values. */
function logEntry(): LogEntry {
  const envelopeId = randomUUID();
  return { envelopeId, leaves: [0, 1].map((index) => new Uint8Array(createHash('sha256').update(`${envelopeId}/${index}`).digest())) };
}

/** A fresh draft envelope of a fresh owner, for one side of the audit rows. */
async function draftOf(envelopes: EnvelopeRepository): Promise<{ ownerId: string; id: string }> {
  const userId = randomUUID();
  const { record, event } = newDraftEnvelope({ actor: { ...OWNER, userId, organizationId: userId }, documentName: 'bench.pdf', now: new Date() });
  await envelopes.create(record, event);
  return { ownerId: userId, id: record.id };
}

/**
 * Appends one event to the envelope as a change does (not timed: the read of the envelope before it).
 * @returns milliseconds from building the event to the end of the write
 */
async function appendEvent(envelopes: EnvelopeRepository, envelope: { ownerId: string; id: string }, withHash: boolean): Promise<number> {
  const stored = (await envelopes.read(envelope.ownerId, envelope.id))!;
  const started = performance.now();
  const record = stored.record;
  const at = new Date().toISOString();
  const event: AuditEvent = { sequence: record.auditSequence + 1, type: 'envelope.settings_changed', at, actorId: envelope.ownerId, actorEmail: OWNER.email, ip: OWNER.ip, userAgent: OWNER.userAgent, apiKeyId: null, details: { reminders: { remindEveryDays: 2 } } };
  const events = withHash ? chainEvents([event], envelope.ownerId, record.auditHead ?? chainStart(record.id)) : [event];
  const next = { ...record, version: record.version + 1, auditSequence: event.sequence, updatedAt: at, ...(withHash ? { auditHead: events[0]!.hash! } : {}) };
  await envelopes.replace(stored, next, events);
  return performance.now() - started;
}

export async function benchPublicLog(context: BenchContext): Promise<SuiteResult<PublicLogFigures>> {
  const plan = context.plan.publicLog;
  let azurite: RunningAzurite | undefined;
  try {
    azurite = await startAzurite();
    const table = (name: string): TableClient => TableClient.fromConnectionString(azurite!.connectionString, name, { allowInsecureConnection: true });

    // The audit rows.
    const envelopesTable = table('envelopes');
    await envelopesTable.createTable();
    const envelopes = new EnvelopeRepository(envelopesTable);
    const sides = { with: await draftOf(envelopes), without: await draftOf(envelopes) };
    for (let warm = 0; warm < 5; warm++) {
      await appendEvent(envelopes, sides.with, true);
      await appendEvent(envelopes, sides.without, false);
    }
    const withMs: number[] = [];
    const withoutMs: number[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      const times = { with: [] as number[], without: [] as number[] };
      for (let append = 0; append < plan.appendsPerRound; append++) {
        for (const side of round % 2 === 0 ? (['with', 'without'] as const) : (['without', 'with'] as const)) times[side].push(await appendEvent(envelopes, sides[side], side === 'with'));
      }
      withMs.push(median(times.with));
      withoutMs.push(median(times.without));
      progress(`publicLog, audit append round ${round + 1}/${plan.rounds}: with its hash ${withMs.at(-1)!.toFixed(2)} ms, without ${withoutMs.at(-1)!.toFixed(2)} ms`);
    }

    // The log rows.
    const stores = {
      small: new PublicLogStore(table('benchLogSmall'), table('benchLogSmallState')),
      large: new PublicLogStore(table('benchLogLarge'), table('benchLogLargeState')),
    };
    await Promise.all(['benchLogSmall', 'benchLogSmallState', 'benchLogLarge', 'benchLogLargeState'].map(async (name) => await table(name).createTable()));
    progress(`publicLog: filling trees of ${plan.smallLeaves.toLocaleString('en')} and ${plan.largeLeaves.toLocaleString('en')} leaves at storage level`);
    const fillStarted = performance.now();
    await stores.small.fill(Array.from({ length: plan.smallLeaves / 2 }, logEntry));
    await stores.large.fill(Array.from({ length: plan.largeLeaves / 2 }, logEntry));
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    progress(`publicLog: filled in ${Math.round(fillSeconds)} s`);
    const timeAppend = async (store: PublicLogStore): Promise<number> => {
      const started = performance.now();
      await store.append(logEntry());
      return performance.now() - started;
    };
    for (let warm = 0; warm < 5; warm++) {
      await timeAppend(stores.small);
      await timeAppend(stores.large);
    }
    const smallP50: number[] = [];
    const largeP50: number[] = [];
    for (let round = 0; round < plan.rounds; round++) {
      const times = { small: [] as number[], large: [] as number[] };
      for (let append = 0; append < plan.appendsPerRound; append++) {
        for (const side of round % 2 === 0 ? (['small', 'large'] as const) : (['large', 'small'] as const)) times[side].push(await timeAppend(stores[side]));
      }
      smallP50.push(percentile(times.small, 50));
      largeP50.push(percentile(times.large, 50));
      progress(`publicLog, log append round ${round + 1}/${plan.rounds}: p50 at ${plan.largeLeaves.toLocaleString('en')} leaves ${largeP50.at(-1)!.toFixed(2)} ms, at ${plan.smallLeaves.toLocaleString('en')} ${smallP50.at(-1)!.toFixed(2)} ms`);
    }

    const figures: PublicLogFigures = {
      auditAppend: { appendsPerRound: plan.appendsPerRound, withHashMs: summarize(withMs), withoutHashMs: summarize(withoutMs), ratio: pairedRatio(withMs, withoutMs) },
      logAppend: {
        appendsPerRound: plan.appendsPerRound,
        smallLeaves: plan.smallLeaves,
        largeLeaves: plan.largeLeaves,
        smallP50Ms: summarize(smallP50),
        largeP50Ms: summarize(largeP50),
        ratio: pairedRatio(largeP50, smallP50),
        fillSeconds: Math.round(fillSeconds),
      },
    };
    return {
      figures,
      targets: [
        check('publicLog.auditAppend', 'An audit event\'s append with its hash (chained, RFC 8785 and SHA-256) at most 1.1 times the same append without it', figures.auditAppend.ratio.median, '<=', 1.1),
        check(
          'publicLog.logAppend',
          `A public log append (two leaves) at ${plan.largeLeaves.toLocaleString('en')} leaves: p50 at most 1.5 times at ${plan.smallLeaves.toLocaleString('en')} leaves`,
          figures.logAppend.ratio.median,
          '<=',
          1.5,
        ),
      ],
    };
  } finally {
    await azurite?.stop().catch(() => undefined);
  }
}
