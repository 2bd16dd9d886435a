/**
 * Reassignment (docs/api.md#reassignment): `POST /api/signing/reassign` `{email, name, reason}`. When the
 * envelope allows it (`allowReassign`), a signer or approver whose turn it is and who has not acted
 * hands its part to someone else: it becomes `reassigned` (final; it blocks nothing), and a new
 * recipient with the same role, routing order and fields (new ids) takes its place in the list and is
 * invited at once (e-mail delivery). The new recipient inherits the caller's signer authentication,
 * started over: the same access code (the owner passes it on) or one-time codes to its own address,
 * or to the `phone` the request names when the caller's codes came by text message.
 * Like every signing route, the caller must have authenticated first (the signing guard,
 * `http/register.ts`), and the envelope never passes {@link MAX_SIGNERS} recipients
 * ([docs/api.md#reassignment](../../../docs/api.md#reassignment)). Events, in order: `recipient.reassigned`
 * `{recipientId, newRecipientId, email, reason}` (the recipient as actor), then `recipient.invited`;
 * webhook `recipient.reassigned` with the reason.
 */
import { z } from 'zod';
import { Change, commitChange } from '../envelopes/change.js';
import { newSigner, type EnvelopeRecord, type EventActor, type Signer } from '../envelopes/model.js';
import { MAX_SIGNER_NAME, MAX_SIGNERS, phoneInput } from '../envelopes/schemas.js';
import { validationFailed } from '../envelopes/lifecycle.js';
import { MAX_PHONE_INPUT } from '../phone.js';
import { uuidv7 } from '../ids.js';
import type { Services } from '../services.js';
import { emailAddress, trimmedText } from '../text.js';
import { assertCanAct, shownWith, type RecipientOutcome, type RecipientRequestOptions } from './recipientActions.js';
import { assertAuthenticated, startedAuthentication } from '../envelopes/authenticationSettings.js';
import { inviteRecipient } from '../envelopes/routing.js';
import { currentRecipient, mutateCallersEnvelope } from './signingCaller.js';
import { problem } from '../problems.js';

/** Longest reassignment reason, characters (docs/api.md#reassignment). */
export const MAX_REASSIGN_REASON = 1000;

export const reassignSigningRequest = z
  .strictObject({
    email: emailAddress('The new recipient\'s address: trimmed, a valid address of at most 254 characters, lower-cased; not already a recipient of the envelope (409).', 'carol@example.com'),
    name: trimmedText(MAX_SIGNER_NAME).meta({
      description: `The new recipient's name, 1 to ${MAX_SIGNER_NAME} characters after trimming; no control characters, line or paragraph separators or unpaired surrogates.`,
      examples: ['Carol Jones'],
    }),
    phone: phoneInput.meta({
      type: 'string',
      maxLength: MAX_PHONE_INPUT,
      description:
        'The new recipient\'s mobile number, in international form, kept in E.164. Required when the caller\'s one-time codes come by text message (authentication method `sms`): the new recipient\'s codes go to this number (400 naming `phone` otherwise). Refused as a recipient\'s `phone` is.',
      examples: ['+49 151 23456789'],
    }),
    reason: trimmedText(MAX_REASSIGN_REASON).meta({
      description: `Why, 1 to ${MAX_REASSIGN_REASON} characters after trimming, on one line. The owner receives it (audit trail, webhook).`,
      examples: ['Carol signs contracts for our company.'],
    }),
  })
  .meta({ id: 'ReassignSigningRequest', description: 'Hand this recipient\'s part to someone else.' });
export type ReassignSigningRequest = z.infer<typeof reassignSigningRequest>;

/**
 * The checks before the body, in the order of docs/api.md#the-recipients-api: role and the envelope's setting (403),
 * then the 409s of {@link assertCanAct}.
 * @throws AppError 403 `reassign-not-allowed`; 409 `envelope-closed`, `already-acted`, `not-your-turn`
 */
export function assertCanReassign(record: EnvelopeRecord, recipient: Signer, now: Date): void {
  if (recipient.role !== 'signer' && recipient.role !== 'approver') {
    throw problem('reassignNotAllowed', { detail: `Only a signer or an approver can hand its part to someone else; your role is ${recipient.role}.` });
  }
  if (record.allowReassign !== true) {
    throw problem('reassignNotAllowed');
  }
  assertCanAct(record, recipient, 'decline', now);
}

/**
 * Hands the caller's part to the person named in `request`.
 * @returns the envelope and the caller, now `reassigned`
 * @throws AppError 401; 423, 403 as the signing guard (checked again on the row as written); 403, 409
 *   as {@link assertCanReassign}; 400 naming `phone` when the caller's codes come by text message and
 *   the request names no phone; 409 `recipient-exists` when the new address is already a recipient
 *   of the envelope, `recipient-limit` when the envelope already has {@link MAX_SIGNERS} recipients
 */
export async function reassignSigning({ services, caller, request, now = new Date(), log }: RecipientRequestOptions & { request: ReassignSigningRequest }): Promise<RecipientOutcome> {
  return await mutateCallersEnvelope(services, caller, async (stored) => {
    const record = stored.record;
    const recipient = currentRecipient(record, caller.recipientId, caller.tokenSha256, now);
    // Again on the row as written: a concurrent wrong code may have locked the link meanwhile.
    assertAuthenticated(recipient, now, services.config.signingAuthTtlSeconds);
    assertCanReassign(record, recipient, now);
    // The new recipient's codes go where the caller's went: by text message, a number is needed (docs/api.md#reassignment).
    if (recipient.authentication?.method === 'sms' && request.phone === undefined) {
      throw validationFailed([{ path: 'phone', message: 'is required: the one-time codes of this part go by text message (authentication method sms), to the new recipient\'s phone' }]);
    }
    if (record.signers.some((signer) => signer.email === request.email)) {
      throw problem('recipientExists', { detail: `${request.email} is already a recipient of this envelope; name someone who is not.` });
    }
    // Every recipient counts, those who handed on too: a chain of reassignments stops at the limit.
    if (record.signers.length >= MAX_SIGNERS) {
      throw problem('recipientLimit', { detail: `This envelope already has ${record.signers.length} recipients, the most it may have (${MAX_SIGNERS}): it cannot take one more. Ask the sender instead.` });
    }

    const change = new Change(record, now);
    const from = change.signer(recipient.id);
    const by: EventActor = { id: from.id, email: from.email, ip: caller.ip, userAgent: caller.userAgent, apiKeyId: null };
    const to = newSigner({ id: uuidv7(), email: request.email, name: request.name, role: from.role, routingOrder: from.routingOrder });
    // The new recipient proves who it is as the caller had to: the owner's access code, which the
    // owner passes on, or one-time codes sent to its own address; started over, never verified.
    const authentication = startedAuthentication(from.authentication);
    if (authentication !== undefined) to.authentication = authentication;
    if (request.phone !== undefined) to.phone = request.phone;
    from.status = 'reassigned';
    from.actedAt = change.at;
    from.view = null;
    change.record.signers.splice(change.record.signers.indexOf(from) + 1, 0, to);
    // The fields move to the new recipient, with new ids (docs/api.md#reassignment).
    change.record.fields = change.record.fields.map((field) => (field.recipientId === from.id ? { ...field, id: uuidv7(), recipientId: to.id } : field));
    change.event('recipient.reassigned', by, { recipientId: from.id, newRecipientId: to.id, email: to.email, ...shownWith(record, from, caller), reason: request.reason });
    change.webhook('recipient.reassigned', { recipient: from, reason: request.reason });
    // Its IP address and user agent, for the certificate of completion.
    change.action({ recipientId: from.id, status: 'reassigned', at: change.at, ip: caller.ip, userAgent: caller.userAgent, values: [], signature: null });
    inviteRecipient(change, to, { config: services.config, actor: by, resend: false });
    const next = await commitChange(services, stored, change, log === undefined ? {} : { log });
    return { record: next, recipient: next.signers.find((signer) => signer.id === recipient.id)! };
  });
}
