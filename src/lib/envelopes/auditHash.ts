/**
 * The hashes of the chained audit trail (docs/api.md#chained-audit-trail): an event's `hash` is the
 * lower-case hex SHA-256 of its RFC 8785 canonical JSON as `GET /api/envelopes/{id}/audit` shows it,
 * less `hash`; its `prevHash` is the `hash` of the event before it, and the first event's the SHA-256
 * of the envelope id's UTF-8 text. Pure: `auditChain.ts` reads and stores chains.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditEvent, ChainedAuditEvent } from './model.js';

/** Most characters of a user agent an event records (longer ones are cut: docs/api.md#evidence). */
const MAX_EVENT_USER_AGENT = 1024;

/** Lower-case hex SHA-256 of `text`'s UTF-8 bytes. */
function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The first event's `prevHash` (docs/api.md#chained-audit-trail): SHA-256 of the envelope id's UTF-8 text, lower-case hex. */
export function chainStart(envelopeId: string): string {
  return sha256Hex(envelopeId);
}

/**
 * An event's `hash` (docs/api.md#chained-audit-trail): SHA-256 of the RFC 8785 canonical JSON of the
 * event as the audit API shows it, less `hash` (which `event` must not have).
 * @throws Error when the event holds a value JSON cannot carry (a lone surrogate, NaN, infinity)
 */
export function auditEventHash(event: Omit<ChainedAuditEvent, 'hash'>): string {
  const canonical = canonicalize(event);
  if (canonical === undefined) throw new Error(`Audit event ${event.sequence} has no JSON form`);
  return sha256Hex(canonical);
}

/**
 * Chains events after `prevHash`: each becomes the object the audit API shows (its recorded fields as
 * JSON keeps them, the user agent cut to 1024 characters, `organizationId` when it records none, and
 * `prevHash`), then gets its `hash`. What is hashed is exactly what is stored and shown.
 * @param events in order, none hashed yet
 * @param organizationId the envelope's organisation, for events that record none
 * @param prevHash the `hash` of the event before the first, or {@link chainStart} for an envelope's first
 */
export function chainEvents(events: readonly AuditEvent[], organizationId: string, prevHash: string): ChainedAuditEvent[] {
  const chained: ChainedAuditEvent[] = [];
  let previous = prevHash;
  for (const { hash: _hash, ...event } of events) {
    const shown = JSON.parse(
      JSON.stringify({ ...event, userAgent: event.userAgent?.slice(0, MAX_EVENT_USER_AGENT) ?? null, organizationId: event.organizationId ?? organizationId, prevHash: previous }),
    ) as Omit<ChainedAuditEvent, 'hash'>;
    const hash = auditEventHash(shown);
    chained.push({ ...shown, hash });
    previous = hash;
  }
  return chained;
}
