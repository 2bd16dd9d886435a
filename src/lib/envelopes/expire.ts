/**
 * Expiry (docs/api.md#lifecycle, docs/api.md#the-sweeper): a `sent` envelope whose `expiresAt` has passed becomes `expired`, as the
 * `system` actor; the owner gets the `expired` e-mail and its webhooks `envelope.expired`. For the
 * sweeper, which finds envelopes due from the due index (kind `expiry`, written at send).
 */
import type { Services } from '../services.js';
import { EnvelopeChangedError } from '../storage/envelopeRepository.js';
import { Change, commitChange } from './change.js';
import { SYSTEM_ACTOR } from './model.js';
import { backoff } from './update.js';

const MAX_ATTEMPTS = 30;

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
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const stored = await services.envelopes.read(ownerId, envelopeId);
    const at = now();
    if (stored === null || stored.record.status !== 'sent' || stored.record.expiresAt === null || Date.parse(stored.record.expiresAt) > at.getTime()) return false;
    const change = new Change(stored.record, at);
    change.record.status = 'expired';
    change.record.closedAt = change.at;
    change.event('envelope.expired', SYSTEM_ACTOR, {});
    change.webhook('envelope.expired');
    change.email('expired', null);
    try {
      await commitChange(services, stored, change, log === undefined ? {} : { log });
      return true;
    } catch (error) {
      if (!(error instanceof EnvelopeChangedError)) throw error;
      await backoff(attempt);
    }
  }
  return false;
}
