/**
 * What a recipient does through its signing link (docs/api.md#the-recipients-api): open the envelope, complete
 * (sign, approve, confirm having viewed it) or decline. Each is a read-modify-write of the envelope
 * with its ETag, retried on contention, with the events of docs/api.md#evidence (the recipient as actor), the
 * webhook events of docs/api.md#webhooks and the e-mails of docs/api.md#e-mail. When the last recipient who must
 * act has acted, the envelope completes in the same request, by the same seal as the owner's complete
 * (`envelopes/complete.ts`); if sealing fails, the action stays recorded and a `completion` entry in
 * the due index lets the sweeper retry.
 */
import { randomUUID } from 'node:crypto';
import { Change, commitChange } from '../envelopes/change.js';
import { COMPLETION_DUE_KIND, logCompletion, recordSeal, sealCompletion } from '../envelopes/complete.js';
import { refreshSealClaim, type SealedBlob } from '../envelopes/sealClaim.js';
import { hasPrefilledValue, SERVICE_FILLED_TYPES, valueRefusalOf } from '../envelopes/fieldRules.js';
import { validationFailed } from '../envelopes/lifecycle.js';
import { hasActed, mustAct, recipientLocale, type EnvelopeRecord, type EventActor, type FieldValue, type Signer } from '../envelopes/model.js';
import { AppError, type FieldError } from '../errors.js';
import type { Locale } from '../i18n/locales.js';
import { assertAuthenticated } from '../envelopes/authenticationSettings.js';
import { currentRecipient, mutateCallersEnvelope, type SigningCaller, type SigningCredential } from './signingCaller.js';
import type { SignatureValue } from '../pdf/types.js';
import type { Services } from '../services.js';
import { EnvelopeChangedError, type StoredEnvelope } from '../storage/envelopeRepository.js';
import { disclosureFor } from './consent.js';
import { allActed, inviteNextGroup, isTurn, pendingRecipients } from '../envelopes/routing.js';
import type { CompleteSigningRequest, DeclineSigningRequest } from './schemas.js';
import { hasExpired } from './recipientView.js';
import { withAttachments } from './attachments.js';
import { problem } from '../problems.js';

export type RecipientActionKind = 'complete' | 'decline';

/** The envelope and the recipient after the request. */
export interface RecipientOutcome {
  record: EnvelopeRecord;
  recipient: Signer;
}

export interface RecipientRequestOptions {
  services: Services;
  caller: SigningCaller;
  now?: Date;
  /** Where faults that do not change the answer are reported (a failed seal, a late dispatch). */
  log?: (message: string) => void;
}

/**
 * Checks, in the order of docs/api.md#the-recipients-api after the token: role (403), envelope status, already acted,
 * turn (409). The body is checked after these.
 * @throws AppError 403 `role-cannot-act`; 409 `envelope-closed` (naming the status, or that it
 *   expired), `already-acted`, `not-your-turn`
 */
export function assertCanAct(record: EnvelopeRecord, recipient: Signer, kind: RecipientActionKind, now: Date): void {
  if (kind === 'complete' && !mustAct(recipient)) {
    throw problem('roleCannotAct');
  }
  if (kind === 'decline' && recipient.role !== 'signer' && recipient.role !== 'approver') {
    throw problem('roleCannotAct', { detail: `Only a signer or an approver can decline; your role is ${recipient.role}.` });
  }
  if (record.status !== 'sent') {
    throw problem('envelopeClosed', { detail: `The envelope is ${record.status}; nothing more can be done with it.` });
  }
  if (hasExpired(record, now)) {
    throw problem('envelopeClosed', { detail: `The envelope is expired (it expired at ${record.expiresAt}); nothing more can be done with it.` });
  }
  if (hasActed(recipient)) {
    throw problem('alreadyActed', { detail: `You already ${recipient.status === 'declined' ? 'declined' : `acted (${recipient.status})`} on this envelope at ${recipient.actedAt}.` });
  }
  if (recipient.status === 'waiting' || !isTurn(record, recipient)) {
    const first = pendingRecipients(record).filter((other) => other.routingOrder < recipient.routingOrder);
    throw problem('notYourTurn', { detail: `It is not your turn yet: waiting for ${first.map((other) => `${other.name} (${other.role})`).join(', ') || 'an earlier recipient'}.` });
  }
}

/**
 * The first `GET` by a `sent` recipient while the envelope is `sent` moves it to `opened`
 * (`recipient.opened`); any other read changes nothing.
 * @throws AppError 401 when the link stopped working meanwhile
 */
export async function openEnvelope({ services, caller, now = new Date(), log }: RecipientRequestOptions): Promise<RecipientOutcome> {
  return await mutateCallersEnvelope(services, caller, async (stored) => {
    const record = stored.record;
    const recipient = currentRecipient(record, caller.recipientId, caller.tokenSha256, now);
    const change = new Change(record, now);
    if (!markOpened(change, change.signer(recipient.id), caller)) return { record, recipient };
    return outcome(await commitChange(services, stored, change, log === undefined ? {} : { log }), recipient.id);
  });
}

/**
 * Within `change`: a `sent` recipient who must act, of a `sent` envelope, becomes `opened`
 * (`recipient.opened` and its webhook).
 * @returns whether it did
 */
export function markOpened(change: Change, recipient: Signer, caller: SigningCaller): boolean {
  const record = change.record;
  if (recipient.status !== 'sent' || !mustAct(recipient) || record.status !== 'sent' || hasExpired(record, change.now)) return false;
  recipient.status = 'opened';
  change.event('recipient.opened', recipientActor(recipient, caller), { recipientId: recipient.id, ...shownWith(record, recipient, caller) });
  change.webhook('recipient.opened', { recipient });
  return true;
}

/**
 * `POST /api/signing/complete`: a signer signs (its values recorded), an approver approves, a viewer
 * confirms having viewed; the next routing group is invited; the envelope completes when everyone
 * who must act has acted.
 * @throws AppError 401, 403, 409 as {@link assertCanAct}; 400 for values that do not fit the
 *   recipient's fields; 413 for values too large to record
 */
export async function completeSigning({ services, caller, request, now = new Date(), log = (message) => console.warn(message) }: RecipientRequestOptions & { request: CompleteSigningRequest }): Promise<RecipientOutcome> {
  const nonce = randomUUID();
  // The disclosure in the language the page showed (its `locale`, else the recipient's), read once:
  // the organisation's own text for that locale, else the service's.
  const consent = await disclosureFor(services, caller.stored.record, request.locale ?? recipientLocale(caller.stored.record, caller.recipient));
  return await mutateCallersEnvelope(services, caller, async (stored) => {
    const record = stored.record;
    const recipient = currentRecipient(record, caller.recipientId, caller.tokenSha256, now);
    // Again on the row as written: a concurrent wrong code may have locked the link meanwhile.
    assertAuthenticated(recipient, now, services.config.signingAuthTtlSeconds);
    assertCanAct(record, recipient, 'complete', now);
    const checked = checkValues(record, recipient, request);
    const { signature } = checked;
    // docs/api.md#files-from-signers: each `{attachmentId}` is the signer's own upload to its field, recorded with its facts.
    const values = await withAttachments(services, record, recipient, checked.values);

    const change = new Change(record, now);
    const actor = change.signer(recipient.id);
    const by = recipientActor(actor, caller);
    const status = recipient.role === 'signer' ? 'signed' : recipient.role === 'approver' ? 'approved' : 'viewed';
    actor.status = status;
    actor.actedAt = change.at;
    // The consent given is evidence: the exact disclosure the page showed, with its version and locale.
    change.event(`recipient.${status}`, by, { recipientId: actor.id, ...shownWith(record, actor, caller), consent: { text: consent.text, version: consent.version, locale: consent.locale } });
    change.webhook(`recipient.${status}`, { recipient: actor });
    change.action({ recipientId: actor.id, status, at: change.at, ip: caller.ip, userAgent: caller.userAgent, values, signature });
    inviteNextGroup(change, { config: services.config, actor: by });

    const sealed = allActed(change.record) ? await completeOrDefer(services, stored, change, by, nonce, log) : null;
    const [next] = await Promise.all([commitChange(services, stored, change, { log }), sealed === null ? undefined : recordSeal(services, change.record, sealed)]);
    if (sealed !== null) logCompletion(services, change, sealed);
    return outcome(next, recipient.id);
  });
}

/**
 * Seals the envelope in the change, or, when sealing fails, leaves the change as the action alone
 * with a `completion` entry in the due index for the sweeper (docs/api.md#the-recipients-api).
 * @returns the sealed blob, or `null` when sealing failed and was deferred
 * @throws EnvelopeChangedError (and SealContendedError) for the caller's retry
 */
async function completeOrDefer(services: Services, stored: StoredEnvelope, change: Change, by: EventActor, nonce: string, log: (message: string) => void): Promise<SealedBlob | null> {
  try {
    const sealed = await sealCompletion({ services, stored, change, actor: by, key: { baseVersion: stored.record.version, nonce } });
    await refreshSealClaim(services, change.record, sealed);
    return sealed;
  } catch (error) {
    if (error instanceof EnvelopeChangedError) throw error;
    log(`Completion of envelope ${change.record.id} failed after its last action; the action is recorded and the sweeper retries: ${error instanceof AppError ? error.detail : String(error)}`);
    const dueAt = change.at;
    change.record.completionDueAt = dueAt;
    change.due.push({ kind: COMPLETION_DUE_KIND, dueAt, ownerId: change.record.ownerId, id: change.record.id });
    return null;
  }
}

/**
 * `POST /api/signing/decline`: a signer or approver declines with a reason; the envelope becomes
 * `declined` and the owner is told.
 * @throws AppError 401, 403, 409 as {@link assertCanAct}
 */
export async function declineSigning({ services, caller, request, now = new Date(), log }: RecipientRequestOptions & { request: DeclineSigningRequest }): Promise<RecipientOutcome> {
  return await mutateCallersEnvelope(services, caller, async (stored) => {
    const record = stored.record;
    const recipient = currentRecipient(record, caller.recipientId, caller.tokenSha256, now);
    // Again on the row as written: a concurrent wrong code may have locked the link meanwhile.
    assertAuthenticated(recipient, now, services.config.signingAuthTtlSeconds);
    assertCanAct(record, recipient, 'decline', now);

    const change = new Change(record, now);
    const actor = change.signer(recipient.id);
    const by = recipientActor(actor, caller);
    actor.status = 'declined';
    actor.actedAt = change.at;
    actor.declineReason = request.reason;
    change.record.status = 'declined';
    change.record.closedAt = change.at;
    change.event('recipient.declined', by, { recipientId: actor.id, ...shownWith(record, actor, caller), reason: request.reason });
    change.event('envelope.declined', by, { recipientId: actor.id });
    change.webhook('recipient.declined', { recipient: actor, reason: request.reason });
    change.webhook('envelope.declined', { recipient: actor, reason: request.reason });
    change.email('declined', null, { reason: request.reason, declinedBy: actor.name });
    change.action({ recipientId: actor.id, status: 'declined', at: change.at, ip: caller.ip, userAgent: caller.userAgent, values: [], signature: null });
    return outcome(await commitChange(services, stored, change, log === undefined ? {} : { log }), recipient.id);
  });
}

/**
 * The values of a complete request against the recipient's fields (docs/api.md#fields): a signer sends a
 * value of the right type, obeying the field's rules (`fieldRules.ts`), for each of its required fields
 * that has no prefilled value, and none for `date_signed`, `name`, `email` or read-only fields; other
 * roles send none.
 * @returns the values as recorded and the adopted signature
 * @throws AppError 400 `validation-failed` naming every problem
 */
export function checkValues(record: EnvelopeRecord, recipient: Signer, request: CompleteSigningRequest): { values: FieldValue[]; signature: SignatureValue | null } {
  const errors: FieldError[] = [];
  if (recipient.role !== 'signer') {
    request.values.forEach((_value, index) => errors.push({ path: `values.${index}.fieldId`, message: `is not a field of yours: a ${recipient.role} fills no fields`, rule: 'notYourField', params: { role: recipient.role } }));
    if (request.signature !== undefined) errors.push({ path: 'signature', message: `is only for signers; your role is ${recipient.role}`, rule: 'signerOnly', params: { role: recipient.role } });
    if (errors.length > 0) throw validationFailed(errors);
    return { values: [], signature: null };
  }
  const fields = new Map(record.fields.map((field) => [field.id, field]));
  const given = new Map<string, number>();
  request.values.forEach((entry, index) => {
    const path = `values.${index}`;
    const field = fields.get(entry.fieldId);
    if (field === undefined) {
      errors.push({ path: `${path}.fieldId`, message: 'is not a field of this envelope', rule: 'unknownField', params: {} });
      return;
    }
    if (field.recipientId !== recipient.id) {
      errors.push({ path: `${path}.fieldId`, message: 'is another recipient\'s field', fieldId: field.id, rule: 'notYourField', params: {} });
      return;
    }
    if (given.has(field.id)) {
      errors.push({ path: `${path}.fieldId`, message: `repeats the field of values.${given.get(field.id)}`, fieldId: field.id, rule: 'duplicate', params: { index: given.get(field.id)! } });
      return;
    }
    given.set(field.id, index);
    const { value } = entry;
    const which = `(field ${field.label === null ? field.type : `"${field.label}"`}, ${field.id})`;
    if (field.readOnly === true) {
      errors.push({ path: `${path}.value`, message: `must not be sent: the field is read-only, its value set by the sender ${which}`, fieldId: field.id, rule: 'readOnly', params: {} });
      return;
    }
    switch (field.type) {
      case 'date_signed':
      case 'name':
      case 'email':
        errors.push({ path: `${path}.value`, message: `must not be sent: the service fills in ${field.type === 'date_signed' ? 'the signing date' : `your ${field.type}`}`, fieldId: field.id, rule: 'serviceFilled', params: { type: field.type } });
        break;
      case 'signature':
      case 'initials':
        if (typeof value !== 'object' || 'attachmentId' in value) errors.push({ path: `${path}.value`, message: `must be a ${field.type}: {typed: "..."} or {strokes: [...]}`, fieldId: field.id, rule: 'type', params: { type: field.type } });
        break;
      default: {
        const refusal = valueRefusalOf(field, value);
        if (refusal !== null) errors.push({ path: `${path}.value`, message: `${refusal.message} ${which}`, fieldId: field.id, rule: refusal.rule, params: refusal.params });
      }
    }
  });
  // A prefilled value (the owner's default, or read-only) stands for the recipient's when none is sent.
  const missing = record.fields.filter(
    (field) => field.recipientId === recipient.id && field.required && !SERVICE_FILLED_TYPES.has(field.type) && !given.has(field.id) && !hasPrefilledValue(field),
  );
  for (const field of missing) {
    errors.push({ path: 'values', message: `needs a value for field ${field.id} (${field.label ?? field.type}, page ${field.page})`, fieldId: field.id, rule: 'required', params: {} });
  }
  if (errors.length > 0) throw validationFailed(errors);

  // The schema checked every point to be a pair [x, y] (`length(2)`); the types say `number[]`.
  const values = request.values.map(({ fieldId, value }) => ({ fieldId, value: value as FieldValue['value'] }));
  const adopted = (type: string) => values.find((entry) => fields.get(entry.fieldId)?.type === type)?.value as SignatureValue | undefined;
  const signature = (request.signature as SignatureValue | undefined) ?? adopted('signature') ?? adopted('initials') ?? { typed: recipient.name };
  return { values, signature };
}

/**
 * What a recipient's event records of how it came (see [Evidence](../../../docs/api.md#evidence)):
 * `credential`, the token it used (`signingLink` or `embeddedView`), and `locale`, the language the
 * service showed it (its own, else the envelope's).
 */
export function shownWith(record: Pick<EnvelopeRecord, 'locale'>, recipient: Pick<Signer, 'locale'>, caller: Pick<SigningCaller, 'credential'>): { credential: SigningCredential; locale: Locale } {
  return { credential: caller.credential, locale: recipientLocale(record, recipient) };
}

/** The recipient as the actor of events (docs/api.md#evidence): its id and e-mail, the request's IP and user agent. */
function recipientActor(recipient: Signer, caller: SigningCaller): EventActor {
  return { id: recipient.id, email: recipient.email, ip: caller.ip, userAgent: caller.userAgent, apiKeyId: null };
}

/** The envelope as committed and the recipient in it. */
function outcome(record: EnvelopeRecord, recipientId: string): RecipientOutcome {
  return { record, recipient: record.signers.find((signer) => signer.id === recipientId)! };
}
