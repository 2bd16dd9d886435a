/**
 * The audit trail of an envelope (docs/api.md#evidence): `GET /api/envelopes/{id}/audit`.
 */
import type { Services } from '../services.js';
import { readOwnedEnvelope } from './get.js';
import type { AuditEvent } from './model.js';

export interface ListAuditEventsOptions {
  services: Services;
  ownerId: string;
  envelopeId: string;
}

/**
 * The caller's envelope's events, oldest first.
 * @throws AppError 404 for a missing envelope or another owner's, as for the envelope itself
 */
export async function listAuditEvents({ services, ownerId, envelopeId }: ListAuditEventsOptions): Promise<AuditEvent[]> {
  const { record } = await readOwnedEnvelope(services.envelopes, ownerId, envelopeId);
  const events = await services.envelopes.events(ownerId, envelopeId);
  // Events recorded before actors' e-mails were: the owner was their only actor.
  return events.map((event) => (event.actorEmail === null && event.actorId === ownerId && record.ownerEmail !== null ? { ...event, actorEmail: record.ownerEmail } : event));
}
