/**
 * Signing order (docs/api.md#sending-and-signing-order): who is invited at send, whose turn it is, and who is invited when a
 * routing group has finished. `parallel`: every recipient who must act at once. `sequential`: by
 * ascending `routingOrder`, recipients with the same number together, the next group only when every
 * recipient of the previous one has acted.
 */
import type { Config } from '../config.js';
import type { Change } from './change.js';
import { hasActed, isEmbedded, mustAct, type EnvelopeRecord, type EventActor, type Signer } from './model.js';
import type { DueKind } from '../storage/dueIndex.js';

/** Due-index kind of reminders (docs/api.md#the-sweeper): one entry per envelope and invitation time; id = envelope id. */
export const REMINDER_DUE_KIND: DueKind = 'reminder';
/** Due-index kind of expiries (docs/api.md#the-sweeper): dueAt = `expiresAt`; id = envelope id. */
export const EXPIRY_DUE_KIND: DueKind = 'expiry';

/** Recipients who must act (signer, approver, viewer) and have not acted yet. */
export function pendingRecipients(record: Pick<EnvelopeRecord, 'signers'>): Signer[] {
  return record.signers.filter((signer) => mustAct(signer) && !hasActed(signer));
}

/** Whether every recipient who must act has acted: the envelope can complete (docs/api.md#lifecycle). */
export function allActed(record: Pick<EnvelopeRecord, 'signers'>): boolean {
  return pendingRecipients(record).length === 0;
}

/** The routing order whose turn it is in `sequential` order, `null` when nobody is pending. */
function currentRoutingOrder(record: Pick<EnvelopeRecord, 'signers'>): number | null {
  const pending = pendingRecipients(record);
  return pending.length === 0 ? null : Math.min(...pending.map((signer) => signer.routingOrder));
}

/** Whether it is the recipient's turn: always in `parallel` order; in `sequential` when no earlier group is pending. */
export function isTurn(record: Pick<EnvelopeRecord, 'signers' | 'signingOrder'>, signer: Signer): boolean {
  if (record.signingOrder === 'parallel') return true;
  const current = currentRoutingOrder(record);
  return current === null || signer.routingOrder <= current;
}

/** Names and roles of those whose turn comes before the recipient's (docs/api.md#the-recipients-api `waitingFor`), `[]` otherwise. */
export function waitingFor(record: Pick<EnvelopeRecord, 'signers' | 'signingOrder'>, signer: Signer): { name: string; role: Signer['role'] }[] {
  if (record.signingOrder === 'parallel' || !mustAct(signer) || hasActed(signer)) return [];
  return pendingRecipients(record)
    .filter((other) => other.routingOrder < signer.routingOrder)
    .map(({ name, role }) => ({ name, role }));
}

export interface InviteOptions {
  config: Pick<Config, 'jwt' | 'reminderDaySeconds'>;
  /** Who the `recipient.invited` event names: the owner at send and resend, the recipient whose action finished a group. */
  actor: EventActor;
  /** True for the owner's resend (docs/api.md#resend-an-invitation). */
  resend: boolean;
}

/**
 * Invites one recipient: a new signing link, status `sent` (an `opened` recipient stays `opened` on
 * resend), `recipient.invited` event, invitation e-mail carrying the link's salt, and a reminder entry
 * in the due index when the envelope has `remindEveryDays`; for an embedded recipient
 * (docs/api.md#embedded-signing) neither the e-mail nor the reminder.
 */
export function inviteRecipient(change: Change, signer: Signer, { config, actor, resend }: InviteOptions): void {
  change.newLink(signer, config.jwt.secret);
  if (signer.status !== 'opened') signer.status = 'sent';
  signer.invitedAt = change.at;
  signer.remindersSent = 0;
  change.event('recipient.invited', actor, { recipientId: signer.id, email: signer.email, resend });
  // An embedded recipient (docs/api.md#embedded-signing) is `sent` with no e-mail and no reminders: the owner's application opens its views.
  const embedded = isEmbedded(signer);
  change.email('invitation', signer, { withLink: true });
  const { remindEveryDays } = change.record;
  if (remindEveryDays !== null && !embedded) {
    const dueAt = new Date(change.now.getTime() + remindEveryDays * config.reminderDaySeconds * 1000).toISOString();
    if (!change.due.some((entry) => entry.kind === REMINDER_DUE_KIND && entry.dueAt === dueAt)) {
      change.due.push({ kind: REMINDER_DUE_KIND, dueAt, ownerId: change.record.ownerId, id: change.record.id });
    }
  }
}

/**
 * Routes a send (docs/api.md#recipients, docs/api.md#sending-and-signing-order): `cc` recipients become `sent` (no link, no e-mail); those who
 * must act are invited when it is their turn, the others become `waiting`.
 */
export function routeAtSend(change: Change, options: Omit<InviteOptions, 'resend'>): void {
  const record = change.record;
  const first = currentRoutingOrder(record);
  for (const signer of record.signers) {
    if (!mustAct(signer)) {
      signer.status = 'sent';
    } else if (record.signingOrder === 'parallel' || signer.routingOrder === first) {
      inviteRecipient(change, signer, { ...options, resend: false });
    } else {
      signer.status = 'waiting';
    }
  }
}

/**
 * After an action: invites the recipients whose turn has come (the next routing group once the
 * previous one has acted), with the acting recipient as the events' actor (docs/api.md#evidence).
 */
export function inviteNextGroup(change: Change, options: Omit<InviteOptions, 'resend'>): void {
  const record = change.record;
  const current = currentRoutingOrder(record);
  if (current === null) return;
  for (const signer of pendingRecipients(record)) {
    if (signer.status === 'waiting' && signer.routingOrder === current) inviteRecipient(change, signer, { ...options, resend: false });
  }
}
