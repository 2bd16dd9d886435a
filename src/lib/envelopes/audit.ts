/**
 * The audit trail of an envelope (docs/api.md#evidence): `GET /api/envelopes/{id}/audit`.
 */
import type { Services } from '../services.js';
import { readOwnedEnvelope } from './get.js';
import type { AuditEvent } from './model.js';
import { envelopeOrganization } from '../organizations/envelopeOrganization.js';

/** An audit event as `GET /api/envelopes/{id}/audit` shows it: with the envelope's organisation (docs/api.md#evidence). */
export type AuditEventView = AuditEvent & { organizationId: string };

export interface ListAuditEventsOptions {
  services: Services;
  ownerId: string;
  envelopeId: string;
}

/**
 * The caller's envelope's events, oldest first, each with the envelope's organisation (for an
 * envelope made before organisations, its owner's: docs/api.md#what-members-share).
 * @throws AppError 404 for a missing envelope or another owner's, as for the envelope itself
 */
export async function listAuditEvents({ services, ownerId, envelopeId }: ListAuditEventsOptions): Promise<AuditEventView[]> {
  const { record } = await readOwnedEnvelope(services.envelopes, ownerId, envelopeId);
  // The partition the envelope is in now: `ownerId` may name a former owner (docs/api.md#removing-a-member).
  const [events, organizationId] = await Promise.all([services.envelopes.events(record.ownerId, envelopeId), envelopeOrganization(services, record)]);
  // Events recorded before actors' e-mails were: the owner was their only actor.
  return events.map((event) => ({ ...(event.actorEmail === null && event.actorId === record.ownerId && record.ownerEmail !== null ? { ...event, actorEmail: record.ownerEmail } : event), organizationId }));
}
