/**
 * The chained audit trail as stored (docs/api.md#chained-audit-trail): every event carries `prevHash`,
 * the `hash` of the event before it, and `hash` (`auditHash.ts`).
 *
 * Appends never fork: a change's events are hashed from the head kept on the envelope row
 * (`EnvelopeRecord.auditHead`) and written with that row in one transaction conditional on its ETag
 * (`change.ts` `commitChange`), so two changes that read the same head cannot both commit.
 *
 * Events recorded before the chain get their hashes when first read ({@link chainedEvents}): in order,
 * their recorded fields as the audit API showed them, each event row replaced only if it is still as
 * read, so two readers doing it at once agree on one chain (the loser reads the winner's rows).
 */
import { retryOnConflict } from '../retryOnConflict.js';
import type { Services } from '../services.js';
import { EnvelopeChangedError, type EventRow } from '../storage/envelopeRepository.js';
import { envelopeOrganization } from '../organizations/envelopeOrganization.js';
import type { AuditEvent, ChainedAuditEvent, EnvelopeRecord } from './model.js';
import { contended } from './mutate.js';
import { chainEvents, chainStart } from './auditHash.js';

/** Whether an event as stored carries its place in the chain. */
function isChained(event: AuditEvent): event is ChainedAuditEvent {
  return typeof event.hash === 'string' && typeof event.prevHash === 'string' && typeof event.organizationId === 'string';
}

/**
 * The envelope's audit events, oldest first, each with its `prevHash` and `hash`
 * (docs/api.md#chained-audit-trail). Events recorded before the chain get them now, in order, and
 * are stored with them: as the audit API showed them (with the envelope's organisation, and, for
 * events recorded before actors' addresses were, the owner's address for the owner), nothing recorded
 * changed. Each rewritten row is conditional on its ETag: when another reader rewrote one first, the
 * rows are read again and that reader's hashes are used.
 * @throws AppError 409 `envelope-contended` when rows kept changing through every round
 */
export async function chainedEvents(services: Services, record: EnvelopeRecord): Promise<ChainedAuditEvent[]> {
  return await retryOnConflict(
    async () => {
      const rows = await services.envelopes.eventRows(record.ownerId, record.id);
      if (rows.every((row) => row.events.every(isChained))) return rows.flatMap((row) => row.events as ChainedAuditEvent[]);
      const organizationId = await envelopeOrganization(services, record);
      let previous = chainStart(record.id);
      const events: ChainedAuditEvent[] = [];
      const rewritten: EventRow[] = [];
      for (const row of rows) {
        const chained: ChainedAuditEvent[] = [];
        for (const event of row.events) {
          const next = isChained(event) ? event : chainEvents([shownBeforeChain(record, event)], organizationId, previous)[0]!;
          chained.push(next);
          previous = next.hash;
        }
        if (!row.events.every(isChained)) rewritten.push({ ...row, events: chained });
        events.push(...chained);
      }
      await services.envelopes.rewriteEventRows(record.ownerId, record.id, rewritten);
      return events;
    },
    {
      isConflict: (error) => error instanceof EnvelopeChangedError,
      exhausted: () => {
        throw contended();
      },
    },
  );
}

/**
 * An event recorded before the chain as the audit API showed it: events recorded before actors'
 * addresses were had the owner as their only actor, shown with the owner's address.
 */
function shownBeforeChain(record: Pick<EnvelopeRecord, 'ownerId' | 'ownerEmail'>, event: AuditEvent): AuditEvent {
  return event.actorEmail === null && event.actorId === record.ownerId && record.ownerEmail !== null ? { ...event, actorEmail: record.ownerEmail } : event;
}

/**
 * The head of the envelope's chain as `record` was read: the `hash` of its event numbered
 * `auditSequence`, which the next change's first event names as `prevHash`. Kept on the envelope row;
 * for an envelope whose events were recorded before the chain, found (and its events hashed) by
 * {@link chainedEvents}, once.
 */
export async function auditChainHead(services: Services, record: EnvelopeRecord): Promise<string> {
  if (record.auditHead != null) return record.auditHead;
  return headOf(record, await chainedEvents(services, record));
}

/** The `hash` of the event numbered `record.auditSequence` among `events` (else the last; none: {@link chainStart}). */
export function headOf(record: Pick<EnvelopeRecord, 'id' | 'auditSequence' | 'auditHead'>, events: readonly ChainedAuditEvent[]): string {
  if (record.auditHead != null) return record.auditHead;
  return (events.find((event) => event.sequence === record.auditSequence) ?? events.at(-1))?.hash ?? chainStart(record.id);
}
