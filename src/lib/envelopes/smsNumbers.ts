/**
 * What the service knows of the phone numbers it texts (docs/api.md#opting-out-of-text-messages,
 * docs/api.md#lastsms), in table `smsNumbers`:
 *
 * - whether a number opted out: PartitionKey = the number in E.164, RowKey `optout`, `{optedOut,
 *   since, at, keyword}`; a `STOP` reply sets it, a `START` reply clears it (the row stays, with
 *   `optedOut: false`, so the trail can say when);
 * - which envelopes texted a number: same partition, RowKey `texted_<ownerId>_<envelopeId>_<recipientId>`,
 *   so that an opt-out reaches the trail of the envelopes still waiting on that number;
 * - which recipient each accepted text went to: PartitionKey `message_<messageId>` (Communication
 *   Services' id of the text), RowKey empty, `{ownerId, envelopeId, recipientId, batchId, to}`, so a
 *   delivery report finds the recipient's `lastSms`.
 *
 * Numbers are keys as they are (`+` and digits are safe in keys); a message id goes through
 * `textKey`. Every write is an upsert: writing the same fact twice is harmless.
 */
import type { TableClient } from '@azure/data-tables';
import { entityOrNull, textKey } from '../storage/keys.js';

/** A number's opt-out as stored. */
export interface SmsOptOut {
  /** The number, E.164. */
  number: string;
  optedOut: boolean;
  /** When the current opt-out began (ISO 8601); with `optedOut: false`, when the last one began. */
  since: string;
  /** When the row last changed. */
  at: string;
  /** The word of the reply that set it, upper case (`STOP`, `START`, ...). */
  keyword: string;
}

/** The recipient one accepted text went to. */
export interface TextedRecipient {
  ownerId: string;
  envelopeId: string;
  recipientId: string;
  /** The outbox batch of the text (`lastSms` follows the newest batch only). */
  batchId: string;
  /** The number, E.164. */
  to: string;
}

const OPT_OUT_ROW = 'optout';
const TEXTED_PREFIX = 'texted_';
const messagePartition = (messageId: string): string => `message_${textKey(messageId)}`;

export class SmsNumberRepository {
  constructor(private readonly table: TableClient) {}

  /**
   * The number's opt-out, or `null` when it never replied STOP.
   * @param number E.164
   */
  async optOut(number: string): Promise<SmsOptOut | null> {
    const row = await entityOrNull<{ optedOut: boolean; since: string; at: string; keyword: string }>(this.table, number, OPT_OUT_ROW);
    return row === null ? null : { number, optedOut: row.optedOut, since: row.since, at: row.at, keyword: row.keyword };
  }

  /** The number's opt-out when it is opted out now, else `null`. */
  async currentOptOut(number: string): Promise<SmsOptOut | null> {
    const found = await this.optOut(number);
    return found?.optedOut === true ? found : null;
  }

  /**
   * Records a reply that opts the number out (`optedOut: true`) or back in. A second STOP keeps the
   * opt-out's `since`.
   * @returns the opt-out as now stored
   */
  async setOptedOut(number: string, optedOut: boolean, keyword: string, at: Date): Promise<SmsOptOut> {
    const current = await this.optOut(number);
    const since = optedOut ? (current?.optedOut === true ? current.since : at.toISOString()) : (current?.since ?? at.toISOString());
    const next: SmsOptOut = { number, optedOut, since, at: at.toISOString(), keyword };
    await this.table.upsertEntity({ partitionKey: number, rowKey: OPT_OUT_ROW, optedOut, since, at: next.at, keyword }, 'Replace');
    return next;
  }

  /**
   * Records a text Communication Services accepted: its message id points to the recipient, and the
   * number to the envelope.
   */
  async recordAccepted(messageId: string, recipient: TextedRecipient, at: Date): Promise<void> {
    await Promise.all([
      this.table.upsertEntity({ partitionKey: messagePartition(messageId), rowKey: '', ...recipient, at: at.toISOString() }, 'Replace'),
      this.table.upsertEntity(
        { partitionKey: recipient.to, rowKey: `${TEXTED_PREFIX}${recipient.ownerId}_${recipient.envelopeId}_${recipient.recipientId}`, ownerId: recipient.ownerId, envelopeId: recipient.envelopeId, recipientId: recipient.recipientId, at: at.toISOString() },
        'Replace',
      ),
    ]);
  }

  /** The recipient of an accepted text, by Communication Services' message id; `null` when unknown. */
  async recipientOf(messageId: string): Promise<TextedRecipient | null> {
    const row = await entityOrNull<TextedRecipient>(this.table, messagePartition(messageId), '');
    return row === null ? null : { ownerId: row.ownerId, envelopeId: row.envelopeId, recipientId: row.recipientId, batchId: row.batchId, to: row.to };
  }

  /** The envelopes and recipients that were texted at `number`, in no particular order. */
  async textedAt(number: string): Promise<{ ownerId: string; envelopeId: string; recipientId: string }[]> {
    const found: { ownerId: string; envelopeId: string; recipientId: string }[] = [];
    const rows = this.table.listEntities<{ ownerId: string; envelopeId: string; recipientId: string }>({
      queryOptions: { filter: `PartitionKey eq '${number.replace(/'/g, "''")}' and RowKey ge '${TEXTED_PREFIX}' and RowKey lt '${TEXTED_PREFIX}~'` },
    });
    for await (const row of rows) found.push({ ownerId: row.ownerId, envelopeId: row.envelopeId, recipientId: row.recipientId });
    return found;
  }
}
