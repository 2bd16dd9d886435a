/**
 * The owner's daily e-mail quota (CONTRACT §14.3): an owner's envelopes queue at most
 * `EMAIL_DAILY_QUOTA` e-mails per UTC day through the owner's own requests. What counts: every e-mail
 * a send (the invitations of the first recipients) or a resend (one invitation) queues. What does not:
 * the e-mails that follow from recipients' actions and the sweeper (invitations of the next routing
 * group, reminders, completed, declined, voided, expired): they are bounded by the envelope itself
 * (its recipients, 5 reminders each) and refusing them would stall envelopes already under way.
 *
 * The count is one row per owner in the owner's partition of table `envelopes` (RowKey
 * {@link EMAIL_QUOTA_ROW_KEY}: `day` `YYYY-MM-DD`, `count`), written in the same entity-group
 * transaction as the change that queues the e-mails and conditional on the row's ETag (or created, if
 * absent). So the count is exact across instances: of concurrent sends, those that would pass the
 * quota fail their transaction and are refused, and a refused or failed change uses none of it.
 */
import type { TableClient, TransactionAction } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { storageStatus } from '../storage/keys.js';

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
  const day = now.toISOString().slice(0, 10);
  const row = await readQuota(envelopes, ownerId);
  const used = row !== null && row.day === day ? row.count : 0;
  if (used + emails > quota) {
    const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
    throw new AppError(
      'too_many_requests',
      `This would queue ${emails} e-mail${emails === 1 ? '' : 's'}, and the account has ${Math.max(0, quota - used)} of its ${quota} e-mails left today (UTC).`,
      { type: 'email-quota', retryAfterSeconds: Math.ceil((nextDay - now.getTime()) / 1000) },
    );
  }
  const entity: QuotaEntity = { partitionKey: ownerId, rowKey: EMAIL_QUOTA_ROW_KEY, day, count: used + emails };
  return row === null ? ['create', entity] : ['update', entity, 'Replace', { etag: row.etag! }];
}

/** E-mails the owner's changes queued on the UTC day of `now` (tests and operators). */
export async function emailsQueuedToday(envelopes: TableClient, ownerId: string, now: Date = new Date()): Promise<number> {
  const row = await readQuota(envelopes, ownerId);
  return row !== null && row.day === now.toISOString().slice(0, 10) ? row.count : 0;
}

async function readQuota(envelopes: TableClient, ownerId: string): Promise<QuotaEntity | null> {
  try {
    return await envelopes.getEntity<QuotaEntity>(ownerId, EMAIL_QUOTA_ROW_KEY);
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}
