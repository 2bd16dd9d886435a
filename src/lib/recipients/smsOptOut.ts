/**
 * Numbers that opted out of text messages (docs/api.md#opting-out-of-text-messages), and what
 * Communication Services tells the service about texts (docs/api.md#events-from-communication-services):
 *
 * - A reply whose whole text (trimmed, any case) is one of {@link OPT_OUT_KEYWORDS} opts its number
 *   out; one of {@link OPT_IN_KEYWORDS} opts it back in (`envelopes/smsNumbers.ts`). An opt-out is
 *   recorded (`recipient.sms_opted_out`) in the trail of every envelope still waiting on a recipient
 *   texted at that number.
 * - A number that opted out is never texted again: each text to it is checked as it is about to be
 *   sent (`notifications/sendSms.ts`) and, instead, {@link textRefusedForOptOut} records
 *   `recipient.sms_opted_out` in the envelope's trail (once per opt-out and recipient), sets the
 *   recipient's `lastSms` `failed` with reason `opted-out`, and e-mails what the text carried (the
 *   signing link, or the one-time code) unless the recipient gets e-mails of that kind anyway. A
 *   recipient's one-time codes are checked earlier too, when asked for (`authentication.ts`).
 * - A delivery report sets the recipient's `lastSms` (`lastSms.ts`): `delivered`, or `failed` with
 *   the carrier's reason.
 */
import { Change, commitChange } from '../envelopes/change.js';
import { deliversBy, hasActed, mustAct, SYSTEM_ACTOR, type Signer } from '../envelopes/model.js';
import { mutateEnvelope } from '../envelopes/mutate.js';
import type { SmsOptOut } from '../envelopes/smsNumbers.js';
import type { SmsMessage } from '../notifications/outbox.js';
import { maskPhone } from '../phone.js';
import type { Services } from '../services.js';
import { recordSmsOutcome } from './lastSms.js';

/** Replies that opt a number out (docs/api.md#opting-out-of-text-messages), upper case. */
export const OPT_OUT_KEYWORDS: readonly string[] = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'OPT-OUT', 'REVOKE'];
/** Replies that opt a number back in (docs/api.md#opting-out-of-text-messages), upper case. */
export const OPT_IN_KEYWORDS: readonly string[] = ['START', 'UNSTOP', 'YES'];

/** `lastSms.reason` of a text not sent because its number opted out (docs/api.md#lastsms). */
export const OPTED_OUT_REASON = 'opted-out';

/** What a reply asks for: `out`, `in`, or `null` for any other text. */
export function replyKeyword(message: unknown): { wish: 'out' | 'in'; keyword: string } | null {
  if (typeof message !== 'string') return null;
  const keyword = message.trim().toUpperCase();
  if (OPT_OUT_KEYWORDS.includes(keyword)) return { wish: 'out', keyword };
  if (OPT_IN_KEYWORDS.includes(keyword)) return { wish: 'in', keyword };
  return null;
}

/**
 * Records the opt-out in the change's trail for the recipient: `recipient.sms_opted_out`
 * `{recipientId, phone (masked), since}`, the service as actor, once per opt-out and recipient.
 * @returns whether it was recorded now
 */
export function recordOptOut(change: Change, signer: Signer, optOut: SmsOptOut): boolean {
  if (signer.smsOptedOutAt === optOut.since) return false;
  signer.smsOptedOutAt = optOut.since;
  change.event('recipient.sms_opted_out', SYSTEM_ACTOR, { recipientId: signer.id, phone: maskPhone(optOut.number), since: optOut.since });
  return true;
}

/** Whether the recipient is texted at all: its links by `sms` delivery, or its codes by `sms` authentication. */
export function isTexted(signer: Signer): boolean {
  return signer.phone !== undefined && (deliversBy(signer, 'sms') || signer.authentication?.method === 'sms');
}

export interface TextRefusal {
  ownerId: string;
  batchId: string;
  message: SmsMessage;
  optOut: SmsOptOut;
  now: Date;
  log?: (message: string) => void;
}

/**
 * A text not sent because its number opted out (see the module comment). Does nothing when the text
 * is no longer the recipient's newest, or was already handled so (a second delivery of the same
 * queue message). The fallback e-mail goes only to a recipient still asked to act, for the link it
 * still has, or the one-time code still pending.
 */
export async function textRefusedForOptOut(services: Services, refusal: TextRefusal): Promise<void> {
  const { ownerId, batchId, message, optOut, now } = refusal;
  await mutateEnvelope(services, { ownerId, envelopeId: message.envelopeId }, async (stored) => {
    const current = stored.record.signers.find((candidate) => candidate.id === message.recipientId);
    if (current === undefined || current.smsBatchId !== batchId) return;
    if (current.lastSms?.batchId === batchId && current.lastSms.reason === OPTED_OUT_REASON) return;
    const change = new Change(stored.record, now);
    const signer = change.signer(current.id);
    recordOptOut(change, signer, optOut);
    signer.lastSms = { status: 'failed', at: change.at, reason: OPTED_OUT_REASON, batchId };
    change.touch();
    const waiting = stored.record.status === 'sent' && mustAct(signer) && !hasActed(signer);
    if (waiting && message.type === 'otp') {
      const state = signer.authentication;
      if (state !== undefined && message.otpSalt !== undefined && state.otpSalt === message.otpSalt) {
        change.email('otp', signer, { otpSalt: message.otpSalt });
        signer.authentication = { ...state, otpChannel: 'email' };
      }
    } else if (waiting && message.type !== 'otp' && !deliversBy(signer, 'email') && signer.link !== null && signer.link.salt === message.linkSalt) {
      change.email(message.type, signer, { withLink: true, insteadOfText: true });
    }
    await commitChange(services, stored, change, refusal.log === undefined ? {} : { log: refusal.log });
  }, { missing: () => undefined, exhausted: () => { throw new Error(`the opt-out of a text to recipient ${message.recipientId} was not recorded: envelope ${message.envelopeId} stayed contended`); } });
}

/**
 * Records a new opt-out in the trail of every envelope still waiting on a recipient texted at its
 * number (`recipient.sms_opted_out`, once per opt-out and recipient). Envelopes that are no longer
 * `sent`, and recipients who acted or are no longer texted at that number, are left alone.
 * @returns how many trails recorded it
 */
export async function recordOptOutInTrails(services: Services, optOut: SmsOptOut, now: Date, log?: (message: string) => void): Promise<number> {
  let recorded = 0;
  for (const texted of await services.smsNumbers.textedAt(optOut.number)) {
    const changed = await mutateEnvelope(services, { ownerId: texted.ownerId, envelopeId: texted.envelopeId }, async (stored) => {
      if (stored.record.status !== 'sent') return false;
      const current = stored.record.signers.find((candidate) => candidate.id === texted.recipientId);
      if (current === undefined || current.phone !== optOut.number || !isTexted(current) || !mustAct(current) || hasActed(current)) return false;
      const change = new Change(stored.record, now);
      if (!recordOptOut(change, change.signer(current.id), optOut)) return false;
      await commitChange(services, stored, change, log === undefined ? {} : { log });
      return true;
    }, { missing: () => false, exhausted: () => false });
    if (changed) recorded++;
  }
  return recorded;
}

/** A delivery report's status (Communication Services' `deliveryStatus`) as `lastSms` says it. */
export function deliveryStatus(value: unknown): 'delivered' | 'failed' | null {
  if (typeof value !== 'string') return null;
  if (value.toLowerCase() === 'delivered') return 'delivered';
  // `Failed`, `Expired`, `Undeliverable`, ...: the carrier gave up. Anything that is not final is ignored.
  return ['failed', 'expired', 'undeliverable', 'rejected', 'blocked'].includes(value.toLowerCase()) ? 'failed' : null;
}

export interface DeliveryReport {
  messageId: string;
  status: 'delivered' | 'failed';
  /** The carrier's words (`deliveryStatusDetails`), for a failure. */
  details?: string;
  /** When the carrier reported it (ISO 8601). */
  at: string;
}

/**
 * Sets the recipient's `lastSms` from a delivery report (docs/api.md#lastsms), when the text is still
 * its newest. A report for a text the service does not know is ignored.
 * @returns whether a `lastSms` changed
 */
export async function recordDeliveryReport(services: Services, report: DeliveryReport): Promise<boolean> {
  const recipient = await services.smsNumbers.recipientOf(report.messageId);
  if (recipient === null) return false;
  return await recordSmsOutcome(services, {
    ownerId: recipient.ownerId,
    envelopeId: recipient.envelopeId,
    recipientId: recipient.recipientId,
    batchId: recipient.batchId,
    status: report.status,
    at: report.at,
    ...(report.status === 'failed' ? { reason: report.details === undefined || report.details === '' ? 'the carrier reported it undelivered' : report.details } : {}),
  });
}
