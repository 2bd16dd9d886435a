/**
 * Resend (CONTRACT §11.5): `POST /api/envelopes/{id}/recipients/{recipientId}/resend`. A recipient
 * whose turn it is and who has not acted, of a `sent` envelope, gets a new signing link (the old one
 * is refused from then on, for reading and acting) and a new invitation e-mail.
 */
import { Change, commitChange } from '../envelopes/change.js';
import { readOwnedEnvelope } from '../envelopes/get.js';
import { hasActed, mustAct, ownerActor, type Actor, type EnvelopeRecord, type Signer } from '../envelopes/model.js';
import { backoff } from '../envelopes/update.js';
import { AppError } from '../errors.js';
import type { Services } from '../services.js';
import { EnvelopeChangedError } from '../storage/envelopeRepository.js';
import { inviteRecipient, isTurn } from './routing.js';
import { hasExpired } from './view.js';

const MAX_ATTEMPTS = 30;

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
 *   `not-your-turn`, `already-acted`)
 */
export async function resendInvitation({ services, actor, envelopeId, recipientId, now = () => new Date(), log }: ResendInvitationOptions): Promise<{ record: EnvelopeRecord; recipient: Signer }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const stored = await readOwnedEnvelope(services.envelopes, actor.userId, envelopeId);
    const record = stored.record;
    const recipient = record.signers.find((signer) => signer.id === recipientId);
    if (recipient === undefined) throw new AppError('not_found', 'This envelope has no recipient with this id.', { type: 'recipient-not-found' });
    const at = now();
    assertResendable(record, recipient, at);

    const change = new Change(record, at);
    change.recordOwner(actor);
    inviteRecipient(change, change.signer(recipientId), { config: services.config, actor: ownerActor(actor), resend: true });
    try {
      const next = await commitChange(services, stored, change, log === undefined ? {} : { log });
      return { record: next, recipient: next.signers.find((signer) => signer.id === recipientId)! };
    } catch (error) {
      if (!(error instanceof EnvelopeChangedError)) throw error;
      await backoff(attempt);
    }
  }
  throw new AppError('conflict', 'The envelope is being changed by other requests at the same time; retry.', { type: 'envelope-contended' });
}

function assertResendable(record: EnvelopeRecord, recipient: Signer, now: Date): void {
  if (record.status === 'draft') {
    throw new AppError('conflict', 'The envelope is a draft: nobody has been invited yet. Send it first.', { type: 'envelope-not-sent' });
  }
  if (record.status !== 'sent') throw new AppError('conflict', `The envelope is ${record.status}; nobody can be invited any more.`, { type: 'envelope-closed' });
  if (hasExpired(record, now)) throw new AppError('conflict', `The envelope is expired (it expired at ${record.expiresAt}); nobody can be invited any more.`, { type: 'envelope-closed' });
  if (!mustAct(recipient)) {
    throw new AppError('conflict', 'This recipient receives a copy (role cc): it gets no invitation, only the completed document.', { type: 'recipient-is-cc' });
  }
  if (hasActed(recipient)) throw new AppError('conflict', `This recipient has already acted (${recipient.status}).`, { type: 'already-acted' });
  if (recipient.status === 'waiting' || !isTurn(record, recipient)) {
    throw new AppError('conflict', 'It is not this recipient\'s turn yet: it is invited when the recipients before it have acted.', { type: 'not-your-turn' });
  }
}
