/**
 * The audit trail of an envelope (docs/api.md#evidence): `GET /api/envelopes/{id}/audit`.
 */
import type { Services } from '../services.js';
import { readOwnedEnvelope } from './get.js';
import type { ChainedAuditEvent } from './model.js';
import { chainedEvents } from './auditChain.js';

/**
 * An audit event as `GET /api/envelopes/{id}/audit` shows it: with the envelope's organisation and its
 * place in the chain (docs/api.md#chained-audit-trail).
 */
export type AuditEventView = ChainedAuditEvent;

export interface ListAuditEventsOptions {
  services: Services;
  ownerId: string;
  envelopeId: string;
}

/**
 * The caller's envelope's events, oldest first, each with the envelope's organisation (for an
 * envelope made before organisations, its owner's: docs/api.md#what-members-share) and its `prevHash`
 * and `hash`. Events recorded before the chain are hashed on this first read and stored so
 * (docs/api.md#chained-audit-trail), as shown here before: nothing they recorded changes.
 * @throws AppError 404 for a missing envelope or another owner's, as for the envelope itself
 */
export async function listAuditEvents({ services, ownerId, envelopeId }: ListAuditEventsOptions): Promise<AuditEventView[]> {
  const { record } = await readOwnedEnvelope(services.envelopes, ownerId, envelopeId);
  return await chainedEvents(services, record);
}
