/**
 * Expiry (docs/api.md#lifecycle, docs/api.md#the-sweeper): a `sent` envelope whose `expiresAt` has passed becomes `expired`, as the
 * `system` actor; the owner gets the `expired` e-mail and its webhooks `envelope.expired`. For the
 * sweeper, which finds envelopes due from the due index (kind `expiry`, written at send).
 */
import type { Services } from '../services.js';
import { Change, commitChange } from './change.js';
import { SYSTEM_ACTOR } from './model.js';
import { mutateEnvelope } from './mutate.js';

export interface ExpireEnvelopeOptions {
  services: Services;
  ownerId: string;
  envelopeId: string;
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * Expires the envelope if it is `sent` and its `expiresAt` has passed; does nothing otherwise (missing,
 * not sent, not due yet). Safe to run on several instances at once: one of them changes it.
 * @returns whether this call expired it
 */
export async function expireEnvelope({ services, ownerId, envelopeId, now = () => new Date(), log }: ExpireEnvelopeOptions): Promise<boolean> {
  return await mutateEnvelope(services, { ownerId, envelopeId }, async (stored) => {
    const at = now();
    if (stored.record.status !== 'sent' || stored.record.expiresAt === null || Date.parse(stored.record.expiresAt) > at.getTime()) return false;
    const change = new Change(stored.record, at);
    change.record.status = 'expired';
    change.record.closedAt = change.at;
    change.event('envelope.expired', SYSTEM_ACTOR, {});
    change.webhook('envelope.expired');
    change.email('expired', null);
    await commitChange(services, stored, change, log === undefined ? {} : { log });
    return true;
  }, { missing: () => false, exhausted: () => false });
}
