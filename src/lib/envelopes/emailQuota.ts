/**
 * The organisation's daily e-mail quota (`docs/api.md#rate-limits-and-quotas`): the envelopes of an
 * organisation's members together queue at most `EMAIL_DAILY_QUOTA` e-mails per UTC day. Every e-mail
 * the service sends on a member's behalf counts, one per e-mail (an envelope with 99 `cc` recipients
 * uses 99 of it at completion), when it is queued: invitations, resends, one-time codes, reminders,
 * reassignment invitations, completed, declined, voided and expired e-mails. {@link admitEmails} is
 * where every change of an envelope (`envelopes/change.ts` `commitChange`, the one writer of
 * envelopes' outbox batches) has its e-mails counted before they are queued.
 *
 * Two answers past the quota:
 * - `refuse`: requests that exist to send e-mail (send, resend, a one-time code) are refused whole
 *   with 429 `email-quota`, nothing changed;
 * - `drop`: every other change (a completion, a void, a decline, a reassignment, a signature that
 *   invites the next routing group, the sweeper's reminders and expiries) is never refused: the
 *   e-mails within what is left are queued, the rest are not sent (the change records their
 *   recipients' `lastEmail` as `failed` with `reason: "quota"`, `docs/api.md#lastemail`).
 *
 * The count is one row per organisation in table `envelopes` (PartitionKey `orgquota_<organizationId>`,
 * RowKey {@link EMAIL_QUOTA_ROW_KEY}: `day` `YYYY-MM-DD`, `count`). The members' envelopes live in
 * their owners' partitions, so the count cannot share a change's transaction: a change reserves its
 * e-mails first ({@link reserveEmails}, conditional on the row's ETag, or created if absent), then
 * commits, and gives them back ({@link refundEmails}) when its commit fails. So no two changes ever
 * count against the same stale row, and the count never falls short: a process that dies between a
 * reservation and a failed commit leaves e-mails counted that were not sent, never the other way round.
 */
import type { TableClient } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { storageStatus } from '../storage/keys.js';
import type { EmailMessage, OutboxMessage } from '../notifications/outbox.js';
import { problem } from '../problems.js';

/** RowKey of the quota row in the organisation's partition of table `envelopes`. */
export const EMAIL_QUOTA_ROW_KEY = 'quota_email';

/** PartitionKey of an organisation's quota row in table `envelopes`. */
const quotaPartition = (organizationId: string): string => `orgquota_${organizationId}`;

// A type alias, not an interface: Table entities are records, which an interface is not.
type QuotaEntity = {
  partitionKey: string;
  rowKey: string;
  /** The UTC day counted, `YYYY-MM-DD`. */
  day: string;
  count: number;
  etag?: string;
};

/** What a change does with its e-mails past the quota (see the module comment). */
export type PastQuota = 'refuse' | 'drop';

export interface EmailsLeftOptions {
  organizationId: string;
  /** E-mails the change queues, 1 or more. */
  emails: number;
  /** `EMAIL_DAILY_QUOTA`. */
  quota: number;
  now: Date;
}

/**
 * Refuses a request that exists to send e-mail before it does any work, when the organisation has
 * fewer than `emails` left of its count of the UTC day of `now` ({@link admitEmails} counts exactly).
 * @throws AppError 429 `email-quota`, `Retry-After` = seconds until the next UTC midnight, when the
 *   count would pass `quota`
 */
export async function assertEmailsLeft(envelopes: TableClient, { organizationId, emails, quota, now }: EmailsLeftOptions): Promise<void> {
  const used = usedOn(await readQuota(envelopes, organizationId), now);
  if (used + emails > quota) throw quotaExceeded(emails, quota, used, now);
}

export interface AdmitEmailsOptions {
  organizationId: string;
  /** The messages of the outbox batch a change is about to queue (its webhook events pass untouched). */
  messages: readonly OutboxMessage[];
  /** `EMAIL_DAILY_QUOTA`. */
  quota: number;
  now: Date;
  pastQuota: PastQuota;
}

export interface EmailAdmission {
  /** The messages to queue: every webhook event, and the e-mails within the quota, in their order. */
  messages: OutboxMessage[];
  /** The e-mails past the quota, in their order: not queued, never sent. */
  dropped: EmailMessage[];
  /** What {@link reserveEmails} writes before the change commits; `null` when nothing is counted. */
  charge: EmailCharge | null;
}

/** The e-mails a change counts, and the quota row as read (its ETag is the reservation's condition). */
export interface EmailCharge {
  organizationId: string;
  emails: number;
  row: QuotaEntity | null;
  now: Date;
}

/**
 * Counts a change's e-mails toward the organisation's quota of the UTC day of `now`, one per e-mail, before
 * they are queued. With `drop`, the first e-mails up to what is left are admitted and the rest
 * dropped; with `refuse`, all or none.
 * @throws AppError 429 `email-quota` (with `refuse` only), `Retry-After` = seconds until the next UTC
 *   midnight, when the e-mails would pass `quota`
 */
export async function admitEmails(envelopes: TableClient, { organizationId, messages, quota, now, pastQuota }: AdmitEmailsOptions): Promise<EmailAdmission> {
  const emails = messages.filter((message): message is EmailMessage => message.kind === 'email').length;
  if (emails === 0) return { messages: [...messages], dropped: [], charge: null };
  const row = await readQuota(envelopes, organizationId);
  const used = usedOn(row, now);
  const left = Math.max(0, quota - used);
  if (pastQuota === 'refuse' && emails > left) throw quotaExceeded(emails, quota, used, now);
  const admitted = Math.min(emails, left);
  const kept: OutboxMessage[] = [];
  const dropped: EmailMessage[] = [];
  let seen = 0;
  for (const message of messages) {
    if (message.kind !== 'email' || seen++ < admitted) kept.push(message);
    else dropped.push(message);
  }
  return { messages: kept, dropped, charge: admitted === 0 ? null : { organizationId, emails: admitted, row, now } };
}

/**
 * Writes a charge's e-mails into the organisation's count, conditional on the row being as
 * {@link admitEmails} read it (or still absent).
 * @returns `false` when a concurrent change wrote the row first (nothing written: count again)
 */
export async function reserveEmails(envelopes: TableClient, charge: EmailCharge): Promise<boolean> {
  const count = usedOn(charge.row, charge.now) + charge.emails;
  const entity: QuotaEntity = { partitionKey: quotaPartition(charge.organizationId), rowKey: EMAIL_QUOTA_ROW_KEY, day: dayOf(charge.now), count };
  try {
    if (charge.row === null) await envelopes.createEntity(entity);
    else await envelopes.updateEntity(entity, 'Replace', { etag: charge.row.etag! });
    return true;
  } catch (error) {
    const status = storageStatus(error);
    if (status === 409 || status === 412) return false;
    throw error;
  }
}

/**
 * Gives back the e-mails of a reservation whose change was not committed (on the same UTC day only:
 * a new day's count starts from nothing anyway). A failure is logged: the count then stays higher
 * than what was sent, never lower.
 */
export async function refundEmails(envelopes: TableClient, charge: EmailCharge, log: (message: string) => void): Promise<void> {
  try {
    for (let round = 0; round < 10; round++) {
      const row = await readQuota(envelopes, charge.organizationId);
      if (row === null || row.day !== dayOf(charge.now)) return;
      const entity: QuotaEntity = { partitionKey: row.partitionKey, rowKey: EMAIL_QUOTA_ROW_KEY, day: row.day, count: Math.max(0, row.count - charge.emails) };
      try {
        await envelopes.updateEntity(entity, 'Replace', { etag: row.etag! });
        return;
      } catch (error) {
        if (storageStatus(error) !== 412) throw error;
      }
    }
    throw new Error('the row kept changing');
  } catch (error) {
    log(`${charge.emails} e-mail(s) of organization ${charge.organizationId} stay counted though not sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** E-mails the organisation's envelopes queued on the UTC day of `now` (tests and operators). */
export async function emailsQueuedToday(envelopes: TableClient, organizationId: string, now: Date = new Date()): Promise<number> {
  return usedOn(await readQuota(envelopes, organizationId), now);
}

function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function usedOn(row: QuotaEntity | null, now: Date): number {
  return row !== null && row.day === dayOf(now) ? row.count : 0;
}

function quotaExceeded(emails: number, quota: number, used: number, now: Date): AppError {
  const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return problem('emailQuota', { detail: `This would queue ${emails} e-mail${emails === 1 ? '' : 's'}, and your organization has ${Math.max(0, quota - used)} of its ${quota} e-mails left today (UTC).`, retryAfterSeconds: Math.ceil((nextDay - now.getTime()) / 1000) });
}

async function readQuota(envelopes: TableClient, organizationId: string): Promise<QuotaEntity | null> {
  try {
    return await envelopes.getEntity<QuotaEntity>(quotaPartition(organizationId), EMAIL_QUOTA_ROW_KEY);
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}
