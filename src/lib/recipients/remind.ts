/**
 * Reminders (docs/api.md#e-mail, docs/api.md#the-sweeper): every `remindEveryDays` days after its invitation, at most 5 times,
 * while the envelope is `sent`, a recipient whose turn it is and who has not acted gets the reminder
 * e-mail (with its link) and the audit trail `recipient.reminded`, as the `system` actor. For the
 * sweeper, which finds envelopes due from the due index (kind `reminder`, written with invitations).
 */
import { Change, commitChange } from '../envelopes/change.js';
import { hasActed, isEmbedded, mustAct, SYSTEM_ACTOR, type Signer } from '../envelopes/model.js';
import { mutateEnvelope } from '../envelopes/mutate.js';
import type { Services } from '../services.js';
import { isTurn, REMINDER_DUE_KIND } from '../envelopes/routing.js';
import { hasExpired } from './recipientView.js';

/** Most reminders per invitation (docs/api.md#e-mail). */
export const MAX_REMINDERS = 5;

export interface RemindRecipientsOptions {
  services: Services;
  ownerId: string;
  envelopeId: string;
  now?: () => Date;
  log?: (message: string) => void;
}

/**
 * Sends the reminders of the envelope that are due, and records in the due index when the next ones
 * fall due. Safe to run on several instances at once: each reminder is sent once.
 * @returns the ids of the recipients reminded by this call
 */
export async function remindRecipients({ services, ownerId, envelopeId, now = () => new Date(), log }: RemindRecipientsOptions): Promise<string[]> {
  const dayMs = services.config.reminderDaySeconds * 1000;
  return await mutateEnvelope<string[]>(services, { ownerId, envelopeId }, async (stored) => {
    const at = now();
    const record = stored.record;
    if (record.status !== 'sent' || record.remindEveryDays === null || hasExpired(record, at)) return [];
    const every = record.remindEveryDays * dayMs;
    const nextDue = (signer: Signer) => Date.parse(signer.invitedAt!) + (signer.remindersSent + 1) * every;
    const eligible = (signer: Signer) => mustAct(signer) && !isEmbedded(signer) && !hasActed(signer) && signer.invitedAt !== null && signer.link !== null && signer.remindersSent < MAX_REMINDERS && isTurn(record, signer);
    const due = record.signers.filter((signer) => eligible(signer) && nextDue(signer) <= at.getTime());
    if (due.length === 0) return [];

    const change = new Change(record, at);
    for (const { id } of due) {
      const signer = change.signer(id);
      signer.remindersSent += 1;
      change.event('recipient.reminded', SYSTEM_ACTOR, { recipientId: signer.id, email: signer.email });
      change.email('reminder', signer, { withLink: true });
      if (signer.remindersSent < MAX_REMINDERS) {
        const dueAt = new Date(nextDue(signer)).toISOString();
        if (!change.due.some((entry) => entry.dueAt === dueAt)) change.due.push({ kind: REMINDER_DUE_KIND, dueAt, ownerId: record.ownerId, id: envelopeId });
      }
    }
    await commitChange(services, stored, change, log === undefined ? {} : { log });
    return due.map((signer) => signer.id);
  }, { missing: () => [], exhausted: () => [] });
}
