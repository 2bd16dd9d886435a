/**
 * The owner's daily e-mail quota (`docs/api.md#rate-limits-and-quotas`):
 * an owner's envelopes queue at most `EMAIL_DAILY_QUOTA` e-mails per UTC day. Every e-mail the service
 * sends on the owner's behalf counts, one per e-mail (an envelope with 99 `cc` recipients uses 99 of
 * it at completion), when it is queued: invitations, resends, one-time codes, reminders, reassignment
 * invitations, completed, declined, voided and expired e-mails. {@link admitEmails} is where every
 * change of an envelope (`envelopes/change.ts` `commitChange`, the one writer of envelopes' outbox
 * batches) has its e-mails counted before they are queued.
 *
 * Two answers past the quota:
 * - `refuse`: requests that exist to send e-mail (send, resend, a one-time code) are refused whole
 *   with 429 `email-quota`, nothing changed;
 * - `drop`: every other change (a completion, a void, a decline, a reassignment, a signature that
 *   invites the next routing group, the sweeper's reminders and expiries) is never refused: the
 *   e-mails within what is left are queued, the rest are not sent (the change records their
 *   recipients' `lastEmail` as `failed` with `reason: "quota"`, `docs/api.md#lastemail`).
 *
 * The count is one row per owner in the owner's partition of table `envelopes` (RowKey
 * {@link EMAIL_QUOTA_ROW_KEY}: `day` `YYYY-MM-DD`, `count`), written in the same entity-group
 * transaction as the change that queues the e-mails and conditional on the row's ETag (or created, if
 * absent). So the count is exact across instances: of concurrent changes, those whose row was stale
 * fail their transaction and count again, and a refused or failed change uses none of it.
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { storageStatus } from '../storage/keys.js';
import type { EmailMessage, OutboxMessage } from '../notifications/outbox.js';
import { problem } from '../problems.js';

/** RowKey of the quota row in the owner's partition of table `envelopes`. */
export const EMAIL_QUOTA_ROW_KEY = 'quota_email';

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

export interface EmailQuotaChargeOptions {
  ownerId: string;
  /** E-mails the change queues, 1 or more. */
  emails: number;
  /** `EMAIL_DAILY_QUOTA`. */
  quota: number;
  now: Date;
}

/**
 * The transaction action that adds `emails` to the owner's count of the UTC day of `now`: an update
 * conditional on the row's ETag, or a create when there is no row (a concurrent writer makes either
 * fail, and with it the whole transaction).
 * @throws AppError 429 `email-quota`, `Retry-After` = seconds until the next UTC midnight, when the
 *   count would pass `quota`
 */
export async function emailQuotaCharge(envelopes: TableClient, { ownerId, emails, quota, now }: EmailQuotaChargeOptions): Promise<TransactionAction> {
  const row = await readQuota(envelopes, ownerId);
  const used = usedOn(row, now);
  if (used + emails > quota) throw quotaExceeded(emails, quota, used, now);
  return chargeAction(ownerId, row, used + emails, now);
}

export interface AdmitEmailsOptions {
  ownerId: string;
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
  /** The quota row's write, to add to the change's transaction; `null` when nothing is counted. */
  action: TransactionAction | null;
}

/**
 * Counts a change's e-mails toward the owner's quota of the UTC day of `now`, one per e-mail, before
 * they are queued. With `drop`, the first e-mails up to what is left are admitted and the rest
 * dropped; with `refuse`, all or none.
 * @throws AppError 429 `email-quota` (with `refuse` only), `Retry-After` = seconds until the next UTC
 *   midnight, when the e-mails would pass `quota`
 */
export async function admitEmails(envelopes: TableClient, { ownerId, messages, quota, now, pastQuota }: AdmitEmailsOptions): Promise<EmailAdmission> {
  const emails = messages.filter((message): message is EmailMessage => message.kind === 'email').length;
  if (emails === 0) return { messages: [...messages], dropped: [], action: null };
  const row = await readQuota(envelopes, ownerId);
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
  return { messages: kept, dropped, action: admitted === 0 ? null : chargeAction(ownerId, row, used + admitted, now) };
}

/** E-mails the owner's envelopes queued on the UTC day of `now` (tests and operators). */
export async function emailsQueuedToday(envelopes: TableClient, ownerId: string, now: Date = new Date()): Promise<number> {
  return usedOn(await readQuota(envelopes, ownerId), now);
}

function usedOn(row: QuotaEntity | null, now: Date): number {
  return row !== null && row.day === now.toISOString().slice(0, 10) ? row.count : 0;
}

function chargeAction(ownerId: string, row: QuotaEntity | null, count: number, now: Date): TransactionAction {
  const entity: QuotaEntity = { partitionKey: ownerId, rowKey: EMAIL_QUOTA_ROW_KEY, day: now.toISOString().slice(0, 10), count };
  return row === null ? ['create', entity] : ['update', entity, 'Replace', { etag: row.etag! }];
}

function quotaExceeded(emails: number, quota: number, used: number, now: Date): AppError {
  const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return problem('emailQuota', { detail: `This would queue ${emails} e-mail${emails === 1 ? '' : 's'}, and the account has ${Math.max(0, quota - used)} of its ${quota} e-mails left today (UTC).`, retryAfterSeconds: Math.ceil((nextDay - now.getTime()) / 1000) });
}

async function readQuota(envelopes: TableClient, ownerId: string): Promise<QuotaEntity | null> {
  try {
    return await envelopes.getEntity<QuotaEntity>(ownerId, EMAIL_QUOTA_ROW_KEY);
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}
