/**
 * Resend (docs/api.md#resend-an-invitation): `POST /api/envelopes/{id}/recipients/{recipientId}/resend`. A recipient
 * whose turn it is and who has not acted, of a `sent` envelope, gets a new signing link (the old one
 * is refused from then on, for reading and acting) and a new invitation e-mail.
 *
 * E-mail is not a free relay (docs/api.md#rate-limits-and-quotas): a resend comes at least {@link RESEND_COOLDOWN_SECONDS}
 * after the previous resend to the same recipient (the first is never held back), a recipient is
 * re-sent at most {@link MAX_RESENDS} times per envelope, and the invitation counts toward the organisation's
 * daily e-mail quota, and its text (a recipient whose delivery includes `sms`) toward the daily text
 * quota (`envelopes/dailyQuota.ts`). The count and the time of the last resend are
 * kept in the recipient's record, written with the envelope under its ETag, so they hold across
 * instances; a refused resend changes nothing.
 */
import { Change, commitChange } from '../envelopes/change.js';
import { hasActed, mustAct, ownerActor, type Actor, type EnvelopeRecord, type Signer } from '../envelopes/model.js';
import { mutateMembersEnvelope } from '../envelopes/mutate.js';
import type { Services } from '../services.js';
import { resetAuthentication } from '../envelopes/authenticationSettings.js';
import { inviteRecipient, isTurn } from '../envelopes/routing.js';
import { hasExpired } from './recipientView.js';
import { problem } from '../problems.js';

/** Least time between two resends to one recipient, seconds. */
export const RESEND_COOLDOWN_SECONDS = 60;
/** Most resends to one recipient of an envelope. */
export const MAX_RESENDS = 5;

export interface ResendInvitationOptions {
  services: Services;
  actor: Actor;
  envelopeId: string;
  recipientId: string;
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * @returns the envelope and the recipient after the resend
 * @throws AppError 404 (`envelope-not-found`: missing or another owner's; `recipient-not-found`),
 *   409 (`envelope-not-sent` for a draft, `envelope-closed` naming the status, `recipient-is-cc`,
 *   `not-your-turn`, `already-acted`), 429 (`resend-limit`; `resend-too-soon` with the seconds to wait;
 *   `email-quota`, `sms-quota`)
 */
export async function resendInvitation({ services, actor, envelopeId, recipientId, now = () => new Date(), log }: ResendInvitationOptions): Promise<{ record: EnvelopeRecord; recipient: Signer }> {
  return await mutateMembersEnvelope(services, actor, envelopeId, async (stored) => {
    const record = stored.record;
    const recipient = record.signers.find((signer) => signer.id === recipientId);
    if (recipient === undefined) throw problem('recipientNotFound');
    const at = now();
    assertResendable(record, recipient, at);

    const change = new Change(record, at);
    change.recordOwner(actor);
    const signer = change.signer(recipientId);
    inviteRecipient(change, signer, { config: services.config, actor: ownerActor(actor), resend: true });
    signer.resends = (signer.resends ?? 0) + 1;
    signer.lastResendAt = change.at;
    // A new link starts its authentication over (docs/api.md#signer-authentication): unlocked, 5 attempts, codes anew.
    resetAuthentication(signer);
    change.chargeQuota();
    const next = await commitChange(services, stored, change, log === undefined ? {} : { log });
    return { record: next, recipient: next.signers.find((signer) => signer.id === recipientId)! };
  });
}

function assertResendable(record: EnvelopeRecord, recipient: Signer, now: Date): void {
  if (record.status === 'draft') {
    throw problem('envelopeNotSent', { detail: 'The envelope is a draft: nobody has been invited yet. Send it first.' });
  }
  if (record.status !== 'sent') throw problem('envelopeClosed', { detail: `The envelope is ${record.status}; nobody can be invited any more.` });
  if (hasExpired(record, now)) throw problem('envelopeClosed', { detail: `The envelope is expired (it expired at ${record.expiresAt}); nobody can be invited any more.` });
  if (!mustAct(recipient)) {
    throw problem('recipientIsCc');
  }
  if (hasActed(recipient)) throw problem('alreadyActed', { detail: `This recipient has already acted (${recipient.status}).` });
  if (recipient.status === 'waiting' || !isTurn(record, recipient)) {
    throw problem('notYourTurn');
  }
  if ((recipient.resends ?? 0) >= MAX_RESENDS) {
    throw problem('resendLimit', { detail: `This recipient has been re-sent the invitation ${MAX_RESENDS} times, the most an envelope allows.` });
  }
  const waitMs = recipient.lastResendAt == null ? 0 : Date.parse(recipient.lastResendAt) + RESEND_COOLDOWN_SECONDS * 1000 - now.getTime();
  if (waitMs > 0) {
    throw problem('resendTooSoon', { detail: `The previous resend to this recipient was less than ${RESEND_COOLDOWN_SECONDS} seconds ago; retry after the time in Retry-After.`, retryAfterSeconds: Math.ceil(waitMs / 1000) });
  }
}
