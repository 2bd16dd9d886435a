/**
 * One request's change of an envelope, gathered before it is written: the next state, its audit
 * events (docs/api.md#evidence), what it tells people and the owner's systems (outbox messages, docs/api.md#e-mail),
 * recipients' action rows, new signing links and due-index entries. {@link commitChange} writes it in
 * one entity-group transaction, conditional on the envelope's ETag, then does what follows a commit.
 */
import type { TableClient } from '@azure/data-tables';
import type { Services } from '../services.js';
import { afterResponse } from '../afterResponse.js';
import { LostRaceError, retryOnConflict } from '../retryOnConflict.js';
import { uuidv7 } from '../ids.js';
import { DEFAULT_LOCALE } from '../i18n/locales.js';
import type { EmailMessage, OutboxBatch, OutboxMessage, SmsMessage, SmsMessageType, SmsType, WebhookEventBody, WebhookEventType } from '../notifications/outbox.js';
import { newLinkSalt, signingLinkKey, signingToken, tokenSha256 } from './signingLinks.js';
import type { DueEntry } from '../storage/dueIndex.js';
import { EnvelopeChangedError, recipientActionRow, type StoredEnvelope } from '../storage/envelopeRepository.js';
import { admitMessages, refundQuota, reserveQuota, type PastQuota, type QuotaCharge, type QuotaRowsRead } from './dailyQuota.js';
import { envelopeOrganization } from '../organizations/envelopeOrganization.js';
import { auditChainHead } from './auditChain.js';
import { countEnvelopeEvents } from '../telemetry/index.js';
import { chainEvents } from './auditHash.js';
import { isFinal, receivesEmail, receivesSms, recipientLocale, type Actor, type AuditEvent, type AuditEventType, type EnvelopeRecord, type EventActor, type LastEmail, type RecipientAction, type Signer } from './model.js';

/** A webhook event whose `data.status` is the envelope's status once the whole change is applied (docs/api.md#webhooks). */
interface PendingWebhook {
  id: string;
  type: WebhookEventType;
  recipient: WebhookEventBody['data']['recipient'] | undefined;
  hash: string | undefined;
  reason: string | undefined;
  /** `envelope.sent`: the frozen document's and the upload's SHA-256 (docs/api.md#webhooks). */
  document: { documentSha256: string; uploadSha256: string | null } | undefined;
}

/** The parts of a finished change, as {@link commitChange} writes them. */
export interface FinishedChange {
  next: EnvelopeRecord;
  events: AuditEvent[];
  batch: OutboxBatch | null;
  actions: RecipientAction[];
  /** Recipients whose signing link is new: their `signingLinks` rows are written after the commit. */
  newLinks: string[];
  /** Due-index entries written before the transaction. */
  due: DueEntry[];
  /** Due-index entries removed after the commit. */
  dueDone: DueEntry[];
}

export class Change {
  /** The next state; mutate it through the methods, or directly for plain fields. */
  readonly record: EnvelopeRecord;
  readonly at: string;
  readonly batchId = uuidv7();
  private readonly events: Omit<AuditEvent, 'sequence'>[] = [];
  private readonly emails: EmailMessage[] = [];
  private readonly texts: SmsMessage[] = [];
  private readonly webhooks: PendingWebhook[] = [];
  readonly actions: RecipientAction[] = [];
  private readonly links = new Set<string>();
  readonly due: DueEntry[] = [];
  readonly dueDone: DueEntry[] = [];
  /** Set when something changed that records no event (a setting equal to the old, ...). */
  private touched = false;
  /**
   * What {@link commitChange} does when this change's e-mails or texts would pass the organisation's
   * daily quota of their channel (`dailyQuota.ts`): `drop` the messages past it (every change, by
   * default), or `refuse` the change (a request that exists to send).
   */
  private pastQuotaAnswer: PastQuota = 'drop';
  private readonly baseSequence: number;
  /** The member who acted, when one did: its webhook events name it (docs/api.md#events). */
  private memberActor: { userId: string; email: string } | null = null;

  constructor(base: EnvelopeRecord, readonly now: Date) {
    this.record = structuredClone(base);
    this.at = now.toISOString();
    this.baseSequence = base.auditSequence;
  }

  /** Whether the change changes anything (an audit event, or a silent change). */
  get changed(): boolean {
    return this.events.length > 0 || this.touched;
  }

  /** The events recorded so far, numbered after the base's last sequence (for the certificate). */
  pendingEvents(): AuditEvent[] {
    return this.events.map((event, index) => ({ ...event, sequence: this.baseSequence + index + 1 }));
  }

  /** Records an audit event, in order (docs/api.md#evidence). */
  event(type: AuditEventType, actor: EventActor, details: Record<string, unknown>): void {
    this.events.push({ type, at: this.at, actorId: actor.id, actorEmail: actor.email, ip: actor.ip, userAgent: actor.userAgent, apiKeyId: actor.apiKeyId, details });
    if (actor.member === true && actor.email !== null) this.memberActor = { userId: actor.id, email: actor.email };
  }

  /** Marks a change that records no event. */
  touch(): void {
    this.touched = true;
  }

  signer(id: string): Signer {
    const signer = this.record.signers.find((candidate) => candidate.id === id);
    if (signer === undefined) throw new Error(`no recipient ${id} on envelope ${this.record.id}`);
    return signer;
  }

  /**
   * Records the owner as the acting owner knows itself now: its address and display name, which the
   * e-mails, the signing page and the certificate show (docs/api.md#accounts). Another member acting
   * on the envelope (docs/api.md#what-members-share) leaves them as they are: the envelope stays its owner's.
   */
  recordOwner(owner: Pick<Actor, 'userId' | 'email' | 'name'>): void {
    if (owner.userId !== this.record.ownerId) return;
    this.record.ownerEmail = owner.email;
    this.record.ownerName = owner.name ?? null;
  }

  /**
   * Gives the recipient a new signing link (docs/api.md#sending-and-signing-order): a new salt, and the hash of the token it
   * derives; the old token stops working. The `signingLinks` row is written after the commit.
   */
  newLink(signer: Signer, jwtSecret: Uint8Array): void {
    const salt = newLinkSalt();
    signer.link = { salt, tokenSha256: tokenSha256(signingToken(signingLinkKey(jwtSecret), salt)) };
    // A new link ends the recipient's embedded view too (docs/api.md#resend-an-invitation: the old token is refused from then on).
    if (signer.view != null) signer.view = null;
    this.links.add(signer.id);
  }

  /**
   * Queues an e-mail (docs/api.md#e-mail). One to a recipient becomes its `lastEmail` (`queued`; or
   * `failed` with `reason: "quota"` when {@link commitChange} finds it past the organisation's daily quota).
   * `recipient` null: the owner. An invitation or reminder to a recipient whose delivery includes `sms`
   * is also queued as a text message carrying the link (docs/api.md#sms), and only as one when its
   * delivery is `["sms"]`; `insteadOfText`: the e-mail alone, whatever the delivery says (the e-mail
   * that replaces a text to a number that opted out, docs/api.md#opting-out-of-text-messages).
   */
  email(type: EmailMessage['type'], to: Signer | null, extra: { reason?: string; declinedBy?: string; withLink?: boolean; otpSalt?: string; insteadOfText?: boolean } = {}): void {
    if (to !== null && (type === 'invitation' || type === 'reminder') && extra.withLink === true && extra.insteadOfText !== true) this.text(type, to);
    if (to !== null && extra.insteadOfText !== true && !receivesEmail(to, type)) return;
    const record = this.record;
    this.emails.push({
      kind: 'email',
      type,
      envelopeId: record.id,
      recipientId: to === null ? null : to.id,
      to: to === null ? { email: record.ownerEmail ?? '', name: null } : { email: to.email, name: to.name },
      documentName: record.documentName,
      ownerEmail: record.ownerEmail ?? '',
      ownerName: record.ownerName,
      role: to === null ? null : to.role,
      expiresAt: record.expiresAt,
      reason: extra.reason ?? null,
      declinedBy: extra.declinedBy ?? null,
      linkSalt: to !== null && extra.withLink === true ? (to.link?.salt ?? null) : null,
      ...(extra.otpSalt === undefined ? {} : { otpSalt: extra.otpSalt }),
      locale: to === null ? (record.locale ?? DEFAULT_LOCALE) : recipientLocale(record, to),
    });
    if (to !== null && (type === 'invitation' || type === 'reminder' || type === 'completed' || type === 'voided')) {
      const lastEmail: LastEmail = { type, status: 'queued', at: this.at, batchId: this.batchId };
      to.lastEmail = lastEmail;
    }
  }

  /**
   * Queues the text message of an invitation or reminder (docs/api.md#sms) when the recipient's
   * delivery includes `sms` and it has a phone and a link; the recipient remembers the batch, whose
   * outcome becomes its `lastSms` (`recipients/lastSms.ts`).
   */
  private text(type: SmsType, to: Signer): void {
    if (!receivesSms(to, type) || to.link === null || to.phone === undefined) return;
    this.queueText(type, to, to.phone, { linkSalt: to.link.salt });
  }

  /**
   * Queues a one-time code by text message to the recipient's `phone` (docs/api.md#signer-authentication,
   * `sms` authentication): the outbox keeps the code's salt, the sender derives the code. Its outcome
   * becomes the recipient's `lastSms`.
   * @throws Error when the recipient has no phone (the request schemas refuse `sms` without one)
   */
  textCode(to: Signer, otpSalt: string): void {
    if (to.phone === undefined) throw new Error(`recipient ${to.id} has sms authentication but no phone`);
    this.queueText('otp', to, to.phone, { linkSalt: null, otpSalt });
  }

  private queueText(type: SmsMessageType, to: Signer, phone: string, salts: { linkSalt: string | null; otpSalt?: string }): void {
    const record = this.record;
    this.texts.push({
      kind: 'sms',
      type,
      envelopeId: record.id,
      recipientId: to.id,
      to: phone,
      documentName: record.documentName,
      senderName: record.ownerName || record.ownerEmail || '',
      ...salts,
      locale: recipientLocale(record, to),
    });
    to.smsBatchId = this.batchId;
  }

  /** Queues a webhook event (docs/api.md#webhooks); `recipient` is shown with its status at this point of the change. */
  webhook(type: WebhookEventType, extra: { recipient?: Signer; hash?: string; reason?: string; document?: { documentSha256: string; uploadSha256: string | null } } = {}): void {
    const { recipient } = extra;
    this.webhooks.push({
      id: uuidv7(),
      type,
      recipient: recipient === undefined ? undefined : { id: recipient.id, email: recipient.email, name: recipient.name, role: recipient.role, status: recipient.status },
      hash: extra.hash,
      reason: extra.reason,
      document: extra.document,
    });
  }

  /**
   * Makes this change one that exists to send (a send, a resend, a one-time code): {@link commitChange}
   * refuses it whole with 429 `email-quota` or `sms-quota` when its e-mails or texts would pass the
   * organisation's daily quota of their channel, instead of dropping the messages past it
   * (`docs/api.md#rate-limits-and-quotas`).
   */
  chargeQuota(): void {
    this.pastQuotaAnswer = 'refuse';
  }

  /** What {@link commitChange} does with e-mails and texts past the organisation's daily quotas. */
  get pastQuota(): PastQuota {
    return this.pastQuotaAnswer;
  }

  /** Records a recipient's action row with the change. */
  action(action: RecipientAction): void {
    this.actions.push(action);
  }

  /** The change ready to be written: version, `updatedAt` and sequence numbers advanced. */
  finish(): FinishedChange {
    const events = this.pendingEvents();
    const next: EnvelopeRecord = {
      ...this.record,
      updatedAt: this.at,
      version: this.record.version + 1,
      auditSequence: this.baseSequence + events.length,
    };
    const messages: OutboxMessage[] = [
      ...this.emails,
      ...this.texts,
      ...this.webhooks.map((webhook): OutboxMessage => ({
        kind: 'event',
        event: {
          id: webhook.id,
          type: webhook.type,
          createdAt: this.at,
          // Filled in by commitChange, which knows the envelope's organisation.
          organizationId: next.organizationId ?? '',
          ...(this.memberActor === null ? {} : { actor: this.memberActor }),
          data: {
            envelopeId: next.id,
            status: next.status,
            ...(webhook.recipient === undefined ? {} : { recipient: webhook.recipient }),
            ...(webhook.hash === undefined ? {} : { hash: webhook.hash }),
            ...(webhook.reason === undefined ? {} : { reason: webhook.reason }),
            ...(webhook.document === undefined ? {} : webhook.document),
          },
        },
      })),
    ];
    return {
      next,
      events,
      batch: messages.length === 0 ? null : { id: this.batchId, ownerId: next.ownerId, envelopeId: next.id, createdAt: this.at, messages },
      actions: this.actions,
      newLinks: [...this.links],
      due: this.due,
      dueDone: this.dueDone,
    };
  }
}

export interface CommitOptions {
  /** Where faults after the commit are reported (they change nothing the caller answers). */
  log?: (message: string) => void;
  /**
   * The organisation's quota rows, read while the change was being made (`dailyQuota.ts`
   * `readQuotaRowsAhead`): the first count takes them instead of reading them again.
   */
  quotaRowsAhead?: Promise<QuotaRowsRead>;
}

/**
 * Writes a change: its due-index entries first, then the envelope, its events, action rows and outbox
 * batch in one transaction conditional on `base`'s ETag. The events are chained
 * (docs/api.md#chained-audit-trail) after the head `base` holds ({@link chainedChange}), and the
 * envelope row keeps the new head: the same condition that keeps two changes from both committing
 * keeps two appends from naming the same previous event. Every e-mail and text message of the batch is
 * counted toward the daily quota of its channel for the envelope's organisation before it is queued
 * (`dailyQuota.ts` `admitMessages`; for a change that drops what passes a quota, while its due entries
 * are written), reserved in the organisation's quota rows just before the transaction, beside the
 * outbox batch's due entry (conditional on each row's ETag; when one changed meanwhile, the messages are
 * counted again with the rows read anew, on the loop of `../retryOnConflict.ts`) and given back when
 * the transaction fails. Messages past a quota are not queued and their recipients' `lastEmail` or `lastSms`
 * becomes `failed` with `reason: "quota"` (`docs/api.md#lastemail`, `docs/api.md#lastsms`), unless the
 * change refuses instead ({@link Change.chargeQuota}).
 * After the commit, without waiting for them ({@link afterResponse}): the new signing links' rows
 * (best effort: the e-mail sender writes them again before sending), the outbox dispatch (the sweeper
 * dispatches a batch again that is still undispatched after 1 minute, `docs/api.md#how-e-mail-is-sent`),
 * and the removal of due entries that are done.
 * @returns the envelope as stored
 * @throws EnvelopeChangedError when the envelope changed since `base` was read, or the quota row kept
 *   changing through every round (nothing is written);
 *   AppError 429 `email-quota` or `sms-quota` when a change that refuses past a quota would pass it (nothing is written)
 */
export async function commitChange(services: Services, base: StoredEnvelope, change: Change, options: CommitOptions = {}): Promise<EnvelopeRecord> {
  const log = options.log ?? ((message: string) => console.warn(message));
  const organizationId = await envelopeOrganization(services, base.record);
  const finished = chainedChange(withOrganization(change.finish(), organizationId), await auditChainHead(services, base.record));
  const envelopesTable = services.storage.tables.envelopes;
  const admit = async (readAhead?: QuotaRowsRead): Promise<QuotaAdmission> => {
    const quota = { organizationId: finished.next.organizationId!, now: change.now, pastQuota: change.pastQuota, ...(readAhead === undefined ? {} : { readAhead }) };
    const emails = await admitMessages(envelopesTable, { ...quota, channel: 'email', messages: finished.batch?.messages ?? [], quota: services.config.limits.emailDailyQuota });
    const texts = await admitMessages(envelopesTable, { ...quota, channel: 'sms', messages: emails.messages, quota: services.config.limits.smsDailyQuota });
    return { messages: texts.messages, droppedEmails: emails.dropped, droppedTexts: texts.dropped, charges: [emails.charge, texts.charge].filter((charge) => charge !== null) };
  };
  const refund = async (charges: readonly QuotaCharge[]) => {
    for (const charge of charges) await refundQuota(envelopesTable, charge, log);
  };
  // The due entries (the outbox batch's own apart) and the organisation's index of finished envelopes
  // must exist before the commit, so that a process dying right after it leaves the sweeper something
  // to find; they do not depend on each other.
  const writeDue = async () => {
    await Promise.all([...finished.due.map(async (entry) => await services.dueIndex.put(entry)), recordFinished(services, base.record, finished.next)]);
  };
  // Before anything is written: a change refused for a quota leaves nothing behind. A change that drops
  // what passes a quota is never refused by it: when its count reads the quota rows, its due entries
  // are written meanwhile (else with the outbox batch's, below).
  let dueWritten = change.pastQuota === 'drop' && options.quotaRowsAhead === undefined;
  const firstCount = async () => await admit(await options.quotaRowsAhead);
  let admission = dueWritten ? (await Promise.all([firstCount(), writeDue()]))[0] : await firstCount();
  const { next, batch } = await retryOnConflict(
    async (round) => {
      // The messages are counted again against the quota rows as they are now.
      if (round > 0) admission = await admit();
      const written = withAdmission(finished, admission);
      // The outbox batch's due entry, the rest of the due entries (once) and the reservation in the
      // quota rows (outside the envelope's partition; given back when the commit fails, a row changed
      // meanwhile means counting again), all at once.
      const [preparing, reserving] = await Promise.allSettled([
        Promise.all([written.batch === null ? null : services.outbox.prepare(written.batch), dueWritten ? undefined : writeDue()]),
        reserveCharges(envelopesTable, admission.charges, log),
      ]);
      if (preparing.status === 'fulfilled') dueWritten = true;
      if (reserving.status === 'rejected') throw reserving.reason;
      if (preparing.status === 'rejected') {
        await refund(admission.charges);
        throw preparing.reason;
      }
      const [prepared] = preparing.value;
      const extra = prepared === null ? [] : [prepared];
      for (const action of finished.actions) extra.push(recipientActionRow(written.next, action));
      try {
        await services.envelopes.replace(base, written.next, finished.events, extra);
        return written;
      } catch (error) {
        await refund(admission.charges);
        throw error;
      }
    },
    {
      exhausted: () => {
        throw new EnvelopeChangedError();
      },
    },
  );
  // `envelopes.sent` and `envelopes.completed` (docs/api.md#telemetry) count committed changes only.
  countEnvelopeEvents(finished.events.map((event) => event.type));

  // After the commit, three independent best-effort steps, which the answer does not wait for: each
  // one's fault is logged and left to the e-mail sender or the sweeper, so none waits for another.
  afterResponse.start(`After-commit work of envelope ${next.id}`, async () => {
    await Promise.all([
      ...finished.newLinks.map(async (recipientId) => {
        const link = next.signers.find((signer) => signer.id === recipientId)?.link;
        if (link == null) return;
        try {
          await services.signingLinks.ensure({ tokenSha256: link.tokenSha256, ownerId: next.ownerId, envelopeId: next.id, recipientId });
        } catch (error) {
          log(`Signing link of recipient ${recipientId} (envelope ${next.id}) not recorded yet; the e-mail sender records it: ${describe(error)}`);
        }
      }),
      batch === null ? undefined : services.outbox.dispatch(batch, log, { justCommitted: true }),
      ...finished.dueDone.map(async (entry) => {
        try {
          await services.dueIndex.remove(entry);
        } catch (error) {
          log(`Due-index entry ${entry.kind} of envelope ${next.id} not removed (the sweeper drops it): ${describe(error)}`);
        }
      }),
    ]);
  });
  return next;
}

/**
 * Reserves each of a change's charges in its quota row at once (`dailyQuota.ts` `reserveQuota`).
 * @throws LostRaceError when a row changed since it was read (the others are given back: count again);
 *   the storage's error when a write failed (the others given back)
 */
async function reserveCharges(envelopesTable: TableClient, charges: readonly QuotaCharge[], log: (message: string) => void): Promise<void> {
  const results = await Promise.allSettled(charges.map(async (charge) => await reserveQuota(envelopesTable, charge)));
  if (results.every((result) => result.status === 'fulfilled' && result.value)) return;
  for (const [index, charge] of charges.entries()) {
    const result = results[index]!;
    if (result.status === 'fulfilled' && result.value) await refundQuota(envelopesTable, charge, log);
  }
  const failed = results.find((result) => result.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  const lost = charges[results.findIndex((result) => result.status === 'fulfilled' && !result.value)]!;
  throw new LostRaceError(`The organization's ${lost.channel} quota row`);
}

/**
 * A change that finishes the envelope (its status becomes `completed`, `declined`, `voided` or
 * `expired`) first records it in the organisation's index of finished envelopes, which the sweeper's
 * retention step reads (docs/api.md#retention). Written before the commit, like a due entry: a commit
 * that then fails leaves an entry that names an envelope not finished, which the sweeper drops.
 */
async function recordFinished(services: Services, base: EnvelopeRecord, next: EnvelopeRecord): Promise<void> {
  if (isFinal(base.status) || !isFinal(next.status)) return;
  await services.retention.addFinished({ organizationId: next.organizationId!, ownerId: next.ownerId, envelopeId: next.id, closedAt: next.closedAt ?? next.updatedAt });
}

/**
 * The change with its envelope's organisation: recorded on the envelope (an envelope made before
 * organisations gets its owner's with this change) and named by its webhook events
 * (docs/api.md#events).
 */
function withOrganization(finished: FinishedChange, organizationId: string): FinishedChange {
  const next = { ...finished.next, organizationId };
  const messages = finished.batch?.messages.map((message): OutboxMessage => (message.kind === 'event' ? { ...message, event: { ...message.event, organizationId } } : message));
  return { ...finished, next, batch: finished.batch === null || messages === undefined ? null : { ...finished.batch, messages } };
}

/**
 * The change with its events chained after `head` (docs/api.md#chained-audit-trail), each recording the
 * envelope's organisation, and the envelope's `auditHead` the last one's hash (`head` when it records none).
 * `finished.next.organizationId` must be set ({@link withOrganization}).
 */
function chainedChange(finished: FinishedChange, head: string): FinishedChange {
  const events = chainEvents(finished.events, finished.next.organizationId!, head);
  return { ...finished, events, next: { ...finished.next, auditHead: events.at(-1)?.hash ?? head } };
}

/** A change's messages as the daily quotas admit them (`dailyQuota.ts`), both channels counted. */
interface QuotaAdmission {
  /** The messages to queue, in their order. */
  messages: OutboxMessage[];
  droppedEmails: EmailMessage[];
  droppedTexts: SmsMessage[];
  /** What is reserved before the commit, one per channel that counts anything. */
  charges: QuotaCharge[];
}

/**
 * The change as its admission leaves it: the batch holds the admitted messages only (none: no
 * batch); each recipient whose newest e-mail of this change was dropped has that e-mail's `lastEmail`
 * `failed` with `reason: "quota"`, and each whose text of this change was dropped has its `lastSms`
 * `failed` with `reason: "quota"` (docs/api.md#lastsms).
 */
function withAdmission(finished: FinishedChange, admission: QuotaAdmission): { next: EnvelopeRecord; batch: OutboxBatch | null } {
  if (finished.batch === null || (admission.droppedEmails.length === 0 && admission.droppedTexts.length === 0)) return { next: finished.next, batch: finished.batch };
  const { next } = finished;
  const batchId = finished.batch.id;
  const emailDroppedTo = new Set(admission.droppedEmails.flatMap((email) => (email.recipientId === null ? [] : [email.recipientId])));
  const textDroppedTo = new Set(admission.droppedTexts.map((text) => text.recipientId));
  // The admitted messages come first: a recipient's newest message of the change is dropped whenever any of its messages of that channel is.
  const signers = next.signers.map((signer): Signer => {
    let result = signer;
    const last = signer.lastEmail;
    if (emailDroppedTo.has(signer.id) && last !== null && last.batchId === batchId) result = { ...result, lastEmail: { ...last, status: 'failed', reason: 'quota' } };
    if (textDroppedTo.has(signer.id) && signer.smsBatchId === batchId) result = { ...result, lastSms: { status: 'failed', at: next.updatedAt, reason: 'quota', batchId } };
    return result;
  });
  return {
    next: { ...next, signers },
    batch: admission.messages.length === 0 ? null : { ...finished.batch, messages: admission.messages },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
