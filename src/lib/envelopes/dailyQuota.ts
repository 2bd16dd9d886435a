/**
 * The organisation's daily quotas of e-mails and text messages (`docs/api.md#rate-limits-and-quotas`):
 * the envelopes of an organisation's members together queue at most `EMAIL_DAILY_QUOTA` e-mails and
 * `SMS_DAILY_QUOTA` text messages per UTC day, each channel counted on its own. Every message the
 * service sends on a member's behalf counts, one per message (an envelope with 99 `cc` recipients uses
 * 99 e-mails at completion), when it is queued: invitations, resends, one-time codes, reminders,
 * reassignment invitations, completed, declined, voided and expired e-mails, and the invitations,
 * resends and reminders by text. {@link admitMessages} is where every change of an envelope
 * (`envelopes/change.ts` `commitChange`, the one writer of envelopes' outbox batches) has its
 * messages counted, channel by channel, before they are queued.
 *
 * Two answers past a quota:
 * - `refuse`: requests that exist to send (send, resend, a one-time code) are refused whole with
 *   429 `email-quota` or `sms-quota`, nothing changed;
 * - `drop`: every other change (a completion, a void, a decline, a reassignment, a signature that
 *   invites the next routing group, the sweeper's reminders and expiries) is never refused: the
 *   messages within what is left are queued, the rest are not sent (the change records their
 *   recipients' `lastEmail` or `lastSms` as `failed` with `reason: "quota"`, `docs/api.md#lastemail`,
 *   `docs/api.md#lastsms`).
 *
 * The count is one row per organisation and channel in table `envelopes` (PartitionKey
 * `orgquota_<organizationId>`, RowKey {@link QUOTA_ROW_KEYS}: `day` `YYYY-MM-DD`, `count`). The
 * members' envelopes live in their owners' partitions, so the count cannot share a change's
 * transaction: a change reserves its messages first ({@link reserveQuota}, conditional on the row's
 * ETag, or created if absent), then commits, and gives them back ({@link refundQuota}) when its commit
 * fails. So no two changes ever count against the same stale row, and the count never falls short: a
 * process that dies between a reservation and a failed commit leaves messages counted that were not
 * sent, never the other way round.
 */
import type { TableClient } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { storageStatus } from '../storage/keys.js';
import type { OutboxMessage } from '../notifications/outbox.js';
import { problem } from '../problems.js';

/** The channels with a daily quota: outbox messages of kind `email` and `sms`. */
export type QuotaChannel = 'email' | 'sms';

/** An outbox message of the channel. */
export type ChannelMessage<C extends QuotaChannel> = Extract<OutboxMessage, { kind: C }>;

/** RowKey of each channel's quota row in the organisation's partition of table `envelopes`. */
export const QUOTA_ROW_KEYS: Readonly<Record<QuotaChannel, string>> = { email: 'quota_email', sms: 'quota_sms' };

/** How each channel's refusal names what it counts. */
const CHANNELS: Readonly<Record<QuotaChannel, { one: string; many: string }>> = {
  email: { one: 'e-mail', many: 'e-mails' },
  sms: { one: 'text message', many: 'text messages' },
};

/** PartitionKey of an organisation's quota rows in table `envelopes`. */
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

/** What a change does with its messages past a quota (see the module comment). */
export type PastQuota = 'refuse' | 'drop';

export interface QuotaLeftOptions {
  channel: QuotaChannel;
  organizationId: string;
  /** Messages of the channel the change queues, 1 or more. */
  count: number;
  /** The channel's quota: `EMAIL_DAILY_QUOTA` or `SMS_DAILY_QUOTA`. */
  quota: number;
  now: Date;
}

/**
 * Refuses a request that exists to send before it does any work, when the organisation has fewer
 * than `count` messages of the channel left of the UTC day of `now` ({@link admitMessages} counts exactly).
 * @throws AppError 429 `email-quota` or `sms-quota`, `Retry-After` = seconds until the next UTC
 *   midnight, when the count would pass `quota`
 */
export async function assertQuotaLeft(envelopes: TableClient, { channel, organizationId, count, quota, now }: QuotaLeftOptions): Promise<void> {
  const used = usedOn(await readQuota(envelopes, channel, organizationId), now);
  if (used + count > quota) throw quotaExceeded(channel, count, quota, used, now);
}

export interface AdmitMessagesOptions<C extends QuotaChannel> {
  channel: C;
  organizationId: string;
  /** The messages of the outbox batch a change is about to queue (those of other kinds pass untouched). */
  messages: readonly OutboxMessage[];
  /** The channel's quota: `EMAIL_DAILY_QUOTA` or `SMS_DAILY_QUOTA`. */
  quota: number;
  now: Date;
  pastQuota: PastQuota;
  /**
   * The organisation's quota rows read ahead ({@link readQuotaRowsAhead}): the channel's row is taken
   * from them when they hold it. A row changed since is caught by {@link reserveQuota}'s condition (the
   * change then counts again, reading it).
   */
  readAhead?: QuotaRowsRead;
}

/** Quota rows read ahead of a count, by channel: `null` a row that does not exist; a channel left out is read when counted. */
export type QuotaRowsRead = Partial<Record<QuotaChannel, QuotaEntity | null>>;

/**
 * Reads the organisation's quota rows of `channels` ahead of a change that will count messages on them
 * (while it does other work: completion reads the e-mail row while it seals). Never rejects: a read
 * that fails leaves its channel out, and the count reads that row itself.
 */
export async function readQuotaRowsAhead(envelopes: TableClient, organizationId: string, channels: readonly QuotaChannel[]): Promise<QuotaRowsRead> {
  const rows = await Promise.all(channels.map(async (channel) => [channel, await readQuota(envelopes, channel, organizationId).catch(() => undefined)] as const));
  return Object.fromEntries(rows.filter(([, row]) => row !== undefined));
}

export interface Admission<C extends QuotaChannel> {
  /** The messages to queue: every message of another kind, and the channel's within the quota, in their order. */
  messages: OutboxMessage[];
  /** The channel's messages past the quota, in their order: not queued, never sent. */
  dropped: ChannelMessage<C>[];
  /** What {@link reserveQuota} writes before the change commits; `null` when nothing is counted. */
  charge: QuotaCharge | null;
}

/** The messages a change counts on one channel, and the quota row as read (its ETag is the reservation's condition). */
export interface QuotaCharge {
  channel: QuotaChannel;
  organizationId: string;
  count: number;
  row: QuotaEntity | null;
  now: Date;
}

/**
 * Counts a change's messages of one channel toward the organisation's quota of the UTC day of `now`,
 * one per message, before they are queued. With `drop`, the first messages up to what is left are
 * admitted and the rest dropped; with `refuse`, all or none.
 * @throws AppError 429 `email-quota` or `sms-quota` (with `refuse` only), `Retry-After` = seconds until
 *   the next UTC midnight, when the messages would pass `quota`
 */
export async function admitMessages<C extends QuotaChannel>(envelopes: TableClient, { channel, organizationId, messages, quota, now, pastQuota, readAhead }: AdmitMessagesOptions<C>): Promise<Admission<C>> {
  const ofChannel = (message: OutboxMessage): message is ChannelMessage<C> => message.kind === channel;
  const count = messages.filter(ofChannel).length;
  if (count === 0) return { messages: [...messages], dropped: [], charge: null };
  const ahead = readAhead?.[channel];
  const row = ahead !== undefined ? ahead : await readQuota(envelopes, channel, organizationId);
  const used = usedOn(row, now);
  const left = Math.max(0, quota - used);
  if (pastQuota === 'refuse' && count > left) throw quotaExceeded(channel, count, quota, used, now);
  const admitted = Math.min(count, left);
  const kept: OutboxMessage[] = [];
  const dropped: ChannelMessage<C>[] = [];
  let seen = 0;
  for (const message of messages) {
    if (!ofChannel(message) || seen++ < admitted) kept.push(message);
    else dropped.push(message);
  }
  return { messages: kept, dropped, charge: admitted === 0 ? null : { channel, organizationId, count: admitted, row, now } };
}

/**
 * Writes a charge's messages into the organisation's count of the channel, conditional on the row
 * being as {@link admitMessages} read it (or still absent).
 * @returns `false` when a concurrent change wrote the row first (nothing written: count again)
 */
export async function reserveQuota(envelopes: TableClient, charge: QuotaCharge): Promise<boolean> {
  const count = usedOn(charge.row, charge.now) + charge.count;
  const entity: QuotaEntity = { partitionKey: quotaPartition(charge.organizationId), rowKey: QUOTA_ROW_KEYS[charge.channel], day: dayOf(charge.now), count };
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
 * Gives back the messages of a reservation whose change was not committed (on the same UTC day only:
 * a new day's count starts from nothing anyway). A failure is logged: the count then stays higher
 * than what was sent, never lower.
 */
export async function refundQuota(envelopes: TableClient, charge: QuotaCharge, log: (message: string) => void): Promise<void> {
  try {
    for (let round = 0; round < 10; round++) {
      const row = await readQuota(envelopes, charge.channel, charge.organizationId);
      if (row === null || row.day !== dayOf(charge.now)) return;
      const entity: QuotaEntity = { partitionKey: row.partitionKey, rowKey: row.rowKey, day: row.day, count: Math.max(0, row.count - charge.count) };
      try {
        await envelopes.updateEntity(entity, 'Replace', { etag: row.etag! });
        return;
      } catch (error) {
        if (storageStatus(error) !== 412) throw error;
      }
    }
    throw new Error('the row kept changing');
  } catch (error) {
    log(`${charge.count} ${CHANNELS[charge.channel].many} of organization ${charge.organizationId} stay counted though not sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Messages of the channel the organisation's envelopes queued on the UTC day of `now` (tests and operators). */
export async function queuedToday(envelopes: TableClient, channel: QuotaChannel, organizationId: string, now: Date = new Date()): Promise<number> {
  return usedOn(await readQuota(envelopes, channel, organizationId), now);
}

function dayOf(now: Date): string {
  return now.toISOString().slice(0, 10);
}

function usedOn(row: QuotaEntity | null, now: Date): number {
  return row !== null && row.day === dayOf(now) ? row.count : 0;
}

function quotaExceeded(channel: QuotaChannel, count: number, quota: number, used: number, now: Date): AppError {
  const nextDay = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  const { one, many } = CHANNELS[channel];
  const options = {
    detail: `This would queue ${count} ${count === 1 ? one : many}, and your organization has ${Math.max(0, quota - used)} of its ${quota} ${many} left today (UTC).`,
    retryAfterSeconds: Math.ceil((nextDay - now.getTime()) / 1000),
  };
  return channel === 'email' ? problem('emailQuota', options) : problem('smsQuota', options);
}

async function readQuota(envelopes: TableClient, channel: QuotaChannel, organizationId: string): Promise<QuotaEntity | null> {
  try {
    return await envelopes.getEntity<QuotaEntity>(quotaPartition(organizationId), QUOTA_ROW_KEYS[channel]);
  } catch (error) {
    if (storageStatus(error) === 404) return null;
    throw error;
  }
}
