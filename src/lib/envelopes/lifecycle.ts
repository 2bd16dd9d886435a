/**
 * The envelope lifecycle (docs/api.md#lifecycle) as functions of the state: what an owner's update changes,
 * which events it records (docs/api.md#evidence, in its order: `signers_replaced`, `fields_replaced`,
 * `settings_changed`, then `envelope.sent`), and which transitions are refused.
 */
import type { Config } from '../config.js';
import { AppError, type FieldError } from '../errors.js';
import { isUuid, uuidv7 } from '../ids.js';
import { DEFAULT_LOCALE } from '../i18n/locales.js';
import { routeAtSend, EXPIRY_DUE_KIND } from './routing.js';
import { nextAuthentication, type PreparedAuthentication } from './authenticationSettings.js';
import { Change } from './change.js';
import {
  deliveryOf,
  isFinal,
  mustAct,
  newSigner,
  ownerActor,
  type Actor,
  type EnvelopeDocument,
  type EnvelopeRecord,
  type EnvelopeStatus,
  type Field,
  type Signer,
} from './model.js';
import { storedRules } from './fieldRules.js';
import { documentsOf, fieldDocumentId, firstDocument, setDocuments, storedDocumentId, withDocumentId } from './documents.js';
import { MAX_EXPIRY_DAYS, type FieldInput, type SignerInput, type UpdateEnvelopeRequest } from './schemas.js';
import { problem } from '../problems.js';

/** Status changes a `PUT`/`PATCH` may make, by current status (docs/api.md#lifecycle). `completed` is reached only by complete. */
const updateTransitions: Record<EnvelopeStatus, EnvelopeStatus[]> = {
  draft: ['sent', 'voided'],
  sent: ['voided'],
  completed: [],
  declined: [],
  expired: [],
  voided: [],
};

const DAY_MS = 86_400_000;

export interface PlannedUpdate {
  change: Change;
  /** The update sends the envelope: freeze the document, then {@link applySend}. */
  sends: boolean;
  /** The update voids the envelope: {@link applyVoid}. */
  voids: boolean;
}

/**
 * What `request` does to `current`, before the document is looked at: `null` when it changes nothing
 * (no write, no event). Sending and voiding are completed by {@link applySend} and {@link applyVoid}.
 * @throws AppError 409 `envelope-closed` (final status), `invalid-transition` (allowed ones named),
 *   `envelope-locked` (a sent envelope's signers, fields or settings), `no-signer` (sending without a
 *   signer of role `signer`); 400 `validation-failed` for fields naming no signer of role `signer`,
 *   an `expiresAt` in the past or over a year ahead (or past at send)
 */
export function planUpdate(
  current: EnvelopeRecord,
  request: UpdateEnvelopeRequest,
  actor: Actor,
  now: Date,
  authentications: readonly (PreparedAuthentication | undefined)[] = [],
): PlannedUpdate | null {
  assertChangeable(current);
  const statusChange = request.status !== undefined && request.status !== current.status ? request.status : undefined;
  if (statusChange !== undefined) {
    const allowed = updateTransitions[current.status];
    if (!allowed.includes(statusChange)) {
      const hint = statusChange === 'completed' ? ' Use POST /api/envelopes/{id}/complete to complete it.' : '';
      throw problem('invalidTransition', { detail: `The envelope is ${current.status}; its status can change to ${allowed.join(' or ')} only, not ${statusChange}.${hint}` });
    }
  }

  const change = new Change(current, now);
  change.recordOwner(actor);
  if (current.status === 'sent') {
    assertUnchangedWhileSent(current, request, actor, now, authentications);
  } else {
    applyEdits(change, request, actor, now, authentications);
  }

  const sends = statusChange === 'sent';
  if (sends) {
    assertHasSigner(change.record.signers);
    const { expiresAt } = change.record;
    if (expiresAt !== null && Date.parse(expiresAt) <= now.getTime()) {
      throw validationFailed([{ path: 'expiresAt', message: `is ${expiresAt}, which has passed: set a later time (or null) to send` }]);
    }
  }
  const voids = statusChange === 'voided';
  if (!sends && !voids && !change.changed) return null;
  return { change, sends, voids };
}

/**
 * A sent envelope is locked (docs/api.md#lifecycle): what was sent is what gets signed. A request that repeats
 * what the envelope already holds changes nothing and is accepted.
 * @throws AppError 409 `envelope-locked`
 */
function assertUnchangedWhileSent(current: EnvelopeRecord, request: UpdateEnvelopeRequest, actor: Actor, now: Date, authentications: readonly (PreparedAuthentication | undefined)[]): void {
  if (
    request.signers === undefined &&
    request.fields === undefined &&
    request.signingOrder === undefined &&
    request.expiresAt === undefined &&
    request.remindEveryDays === undefined &&
    request.locale === undefined &&
    request.allowReassign === undefined &&
    request.output === undefined
  ) {
    return;
  }
  const scratch = new Change(current, now);
  let changes = true;
  try {
    applyEdits(scratch, request, actor, now, authentications);
    changes = scratch.changed;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'bad_request') throw error;
  }
  if (changes) {
    throw problem('envelopeLocked', { detail: 'The envelope is sent: its signers, fields and settings can no longer change (what was sent is what gets signed). Void it and start again.' });
  }
}

/** Applies signers, fields and settings of `request` to a draft, recording their events in order. */
function applyEdits(change: Change, request: UpdateEnvelopeRequest, actor: Actor, now: Date, authentications: readonly (PreparedAuthentication | undefined)[] = []): void {
  const record = change.record;
  const errors: FieldError[] = [];
  const by = ownerActor(actor);

  // Signers (docs/api.md#the-envelope).
  const before = record.signers;
  let requestIds = new Map<string, string>();
  if (request.signers !== undefined) {
    const replaced = replaceSigners(before, request.signers, authentications);
    requestIds = replaced.requestIds;
    if (replaced.authenticationChanged) {
      // Not an audit event of its own: the trail records the recipient's authentication when it happens.
      change.touch();
      record.signers = replaced.signers;
    }
    if (JSON.stringify(replaced.signers.map(signerIdentity)) !== JSON.stringify(before.map(signerIdentity))) {
      const oldIds = new Set(before.map((signer) => signer.id));
      const newIds = new Set(replaced.signers.map((signer) => signer.id));
      change.event('envelope.signers_replaced', by, {
        added: replaced.signers.filter((signer) => !oldIds.has(signer.id)).map(({ id, email }) => ({ id, email })),
        removed: before.filter((signer) => !newIds.has(signer.id)).map(({ id, email }) => ({ id, email })),
      });
      record.signers = replaced.signers;
    }
  }

  // Fields (docs/api.md#fields): replaced when sent; else those of removed signers go with them.
  const signerById = new Map(record.signers.map((signer, index) => [signer.id, { signer, index }]));
  const beforeFields = record.fields;
  let fields: Field[];
  if (request.fields !== undefined) {
    fields = replaceFields(beforeFields, request.fields, requestIds, documentsOf(record), errors);
    fields.forEach((field, index) => {
      const target = signerById.get(field.recipientId);
      if (target === undefined) {
        errors.push({ path: `fields.${index}.recipientId`, message: 'names no signer of this envelope' });
      } else if (target.signer.role !== 'signer') {
        errors.push({ path: `fields.${index}.recipientId`, message: `names a recipient with role ${target.signer.role}; only a signer with role signer fills fields` });
      }
    });
  } else {
    fields = beforeFields.filter((field) => signerById.has(field.recipientId));
    const reported = new Set<string>();
    for (const field of fields) {
      const target = signerById.get(field.recipientId)!;
      if (target.signer.role !== 'signer' && !reported.has(target.signer.id)) {
        reported.add(target.signer.id);
        errors.push({ path: `signers.${target.index}.role`, message: `is ${target.signer.role}, but this signer has fields; only a signer with role signer fills fields (send fields without them)` });
      }
    }
  }
  if (JSON.stringify(fields) !== JSON.stringify(beforeFields)) {
    record.fields = fields;
    change.event('envelope.fields_replaced', by, { count: fields.length });
  }

  // Settings (docs/api.md#the-envelope).
  const settings: Record<string, unknown> = {};
  if (request.signingOrder !== undefined && request.signingOrder !== record.signingOrder) {
    record.signingOrder = request.signingOrder;
    settings.signingOrder = request.signingOrder;
  }
  if (request.expiresAt !== undefined && request.expiresAt !== record.expiresAt) {
    if (request.expiresAt !== null) {
      const time = Date.parse(request.expiresAt);
      if (time <= now.getTime()) errors.push({ path: 'expiresAt', message: 'must be in the future' });
      else if (time > now.getTime() + MAX_EXPIRY_DAYS * DAY_MS) errors.push({ path: 'expiresAt', message: `must be at most ${MAX_EXPIRY_DAYS} days ahead` });
    }
    record.expiresAt = request.expiresAt;
    settings.expiresAt = request.expiresAt;
  }
  if (request.remindEveryDays !== undefined && request.remindEveryDays !== record.remindEveryDays) {
    record.remindEveryDays = request.remindEveryDays;
    settings.remindEveryDays = request.remindEveryDays;
  }
  // docs/languages.md: the language of the owner's e-mails, the certificate and the recipients' default.
  if (request.locale !== undefined && request.locale !== (record.locale ?? DEFAULT_LOCALE)) {
    record.locale = request.locale;
    settings.locale = request.locale;
  }
  if (request.allowReassign !== undefined && request.allowReassign !== (record.allowReassign === true)) {
    record.allowReassign = request.allowReassign;
    settings.allowReassign = request.allowReassign;
  }
  if (request.output !== undefined && request.output !== (record.output ?? 'separate')) {
    if (request.output === 'combined') record.output = 'combined';
    else delete record.output;
    settings.output = request.output;
  }
  if (errors.length > 0) throw validationFailed(errors);
  if (Object.keys(settings).length > 0) change.event('envelope.settings_changed', by, settings);
}

/** What of a signer a request sets: a change of any of it is a change of the list. */
function signerIdentity(signer: Signer): [string, string, string, string, number, string | null, string, string | null, boolean] {
  return [signer.id, signer.email, signer.name, signer.role, signer.routingOrder, signer.locale ?? null, deliveryOf(signer).join(','), signer.phone ?? null, signer.notifyOnCompletion === true];
}

export interface FrozenDocumentFacts {
  documentSha256: string;
  /** SHA-256 of the bytes as uploaded (docs/api.md#evidence); `null` when not known (made from a template). */
  uploadSha256: string | null;
  pageCount: number;
  /** The kinds of active content removed when it was frozen (docs/api.md#what-the-service-removes-from-documents-and-why). */
  removed: readonly string[];
}

/**
 * Completes a planned send (docs/api.md#lifecycle, docs/api.md#sending-and-signing-order): every field must fit the frozen document's pages;
 * the envelope becomes `sent` with the frozen document's hash and page count, `expiresAt` (default
 * send time + `ENVELOPE_TTL_DAYS`), `envelope.sent`, and the recipients routed and invited (their
 * invitations count toward the owner's daily e-mail quota).
 * @throws AppError 422 `field-outside-document` naming the fields on pages the document does not have
 */
export function applySend(change: Change, frozen: FrozenDocumentFacts, actor: Actor, config: Pick<Config, 'jwt' | 'reminderDaySeconds' | 'envelopeTtlDays'>, documents?: readonly EnvelopeDocument[]): void {
  const record = change.record;
  // Every document frozen (docs/api.md#several-documents): the envelope's own fields follow the first.
  const sent = documents ?? [{ ...firstDocument(record), sha256: frozen.documentSha256, uploadSha256: frozen.uploadSha256, pageCount: frozen.pageCount, removed: [...frozen.removed] }];
  assertFieldsFitDocuments(record.fields, sent);
  setDocuments(record, [...sent]);
  const by = ownerActor(actor);
  record.status = 'sent';
  record.documentSha256 = frozen.documentSha256;
  record.pageCount = frozen.pageCount;
  record.sentAt = change.at;
  record.expiresAt ??= new Date(change.now.getTime() + config.envelopeTtlDays * DAY_MS).toISOString();
  const several = documents !== undefined && documents.length > 1
    ? { documents: documents.map(({ id, name, sha256, uploadSha256, pageCount, removed }) => ({ id, name, documentSha256: sha256, uploadSha256, pageCount, removed: removed ?? [] })) }
    : {};
  change.event('envelope.sent', by, { documentSha256: frozen.documentSha256, uploadSha256: frozen.uploadSha256, pageCount: frozen.pageCount, removed: [...frozen.removed], ...several });
  change.webhook('envelope.sent', { document: { documentSha256: frozen.documentSha256, uploadSha256: frozen.uploadSha256 } });
  routeAtSend(change, { config, actor: by });
  change.chargeQuota();
  change.due.push({ kind: EXPIRY_DUE_KIND, dueAt: record.expiresAt, ownerId: record.ownerId, id: record.id });
}

/**
 * Every field must be on a page the frozen document has (docs/api.md#fields at send; §15.1 for templates,
 * at activation and at every later change).
 * @throws AppError 422 `field-outside-document` naming the fields (`fields.<index>.page`) on pages it does not have
 */
export function assertFieldsFit(fields: readonly { page: number }[], pageCount: number): void {
  const outside: FieldError[] = fields.flatMap((field, index) =>
    field.page > pageCount ? [{ path: `fields.${index}.page`, message: `is ${field.page}, but the document has ${pageCount} page${pageCount === 1 ? '' : 's'}` }] : [],
  );
  if (outside.length > 0) {
    throw problem('fieldOutsideDocument', { detail: `${outside.length} field${outside.length === 1 ? ' is' : 's are'} on a page the document does not have (it has ${pageCount}): ${outside.map((error) => error.path).join(', ')}.`, errors: outside });
  }
}

/**
 * Voids the envelope (docs/api.md#lifecycle): every signing link stops working for actions; recipients already
 * invited get the `voided` e-mail. The owner's reason, when given, is shown on the envelope and carried
 * by the event, the webhook and the e-mail ([docs/api.md#update-an-envelope](../../../docs/api.md#update-an-envelope)).
 */
export function applyVoid(change: Change, actor: Actor, reason?: string): void {
  const record = change.record;
  const wasSent = record.status === 'sent';
  record.status = 'voided';
  record.closedAt = change.at;
  if (reason !== undefined) record.voidedReason = reason;
  change.event('envelope.voided', ownerActor(actor), reason === undefined ? {} : { reason });
  change.webhook('envelope.voided', reason === undefined ? {} : { reason });
  if (!wasSent) return;
  for (const signer of record.signers) {
    if (mustAct(signer) && signer.invitedAt !== null) change.email('voided', signer, reason === undefined ? {} : { reason });
  }
}

/**
 * @throws AppError 409 `envelope-closed` naming the current status when it is final (docs/api.md#lifecycle)
 */
export function assertChangeable(record: EnvelopeRecord): void {
  if (isFinal(record.status)) {
    throw problem('envelopeClosed', { detail: `The envelope is ${record.status}; it can no longer be changed.` });
  }
}

/**
 * @throws AppError 409 when no signer has the role `signer` (docs/api.md#lifecycle: needed to send or complete)
 */
export function assertHasSigner(signers: Signer[]): void {
  if (!signers.some((signer) => signer.role === 'signer')) {
    throw problem('noSigner');
  }
}

/**
 * The new signer list (docs/api.md#the-envelope): an entry whose `id` (or `recipientId`) names a current signer
 * keeps that identity (and its state); an entry with another UUID gets that UUID (so that fields in
 * the same request can name it); any other entry gets a new UUIDv7.
 * @returns the list, and each id the request used mapped to the id it became
 */
export function replaceSigners(
  current: Signer[],
  inputs: SignerInput[],
  authentications: readonly (PreparedAuthentication | undefined)[] = [],
): { signers: Signer[]; requestIds: Map<string, string>; authenticationChanged: boolean } {
  const existing = new Map(current.map((signer) => [signer.id, signer]));
  const requestIds = new Map<string, string>();
  const errors: FieldError[] = [];
  let authenticationChanged = false;
  const signers = inputs.map((input, index) => {
    const requested = input.id ?? input.recipientId;
    const kept = requested === undefined ? undefined : existing.get(requested);
    const id = kept?.id ?? (requested !== undefined && isUuid(requested) ? requested : uuidv7());
    if (requested !== undefined) requestIds.set(requested, id);
    const base = kept ?? newSigner({ id, email: input.email, name: input.name, role: input.role });
    const signer: Signer = { ...base, email: input.email, name: input.name, role: input.role, routingOrder: input.routingOrder, locale: input.locale ?? null };
    // Absent means `["email"]` and `false` (docs/api.md#delivery): only what differs is stored.
    if (input.delivery === undefined || (input.delivery.length === 1 && input.delivery[0] === 'email')) delete signer.delivery;
    else signer.delivery = input.delivery;
    // docs/api.md#phone-numbers: E.164, as the schema normalised it.
    if (input.phone === undefined) delete signer.phone;
    else signer.phone = input.phone;
    if (input.notifyOnCompletion === true) signer.notifyOnCompletion = true;
    else delete signer.notifyOnCompletion;
    // Signer authentication (docs/api.md#signer-authentication): the access code arrives hashed (`recipients/authentication.ts`).
    const authentication = nextAuthentication(kept?.authentication, authentications[index]);
    if (authentication === null) {
      errors.push({ path: `signers.${index}.authentication.code`, message: 'is required: this signer has no access code yet' });
    } else {
      if (authentication !== kept?.authentication) authenticationChanged = true;
      if (authentication === undefined) delete signer.authentication;
      else signer.authentication = authentication;
      // A kept `sms` signer sent without `authentication` keeps its method: its codes still need a number.
      if (authentication?.method === 'sms' && signer.phone === undefined && input.authentication === undefined) {
        errors.push({ path: `signers.${index}.phone`, message: 'is required: this signer receives its one-time codes by text message (authentication method sms)' });
      }
    }
    return signer;
  });
  if (errors.length > 0) throw validationFailed(errors);
  return { signers, requestIds, authenticationChanged };
}

/**
 * The new field list (docs/api.md#fields): ids as for signers; `recipientId` resolved through the
 * request's signer ids; `documentId` one of `documents` (docs/api.md#several-documents), default the
 * first, stored only while there are several (`documents.ts` `setDocuments`).
 */
function replaceFields(current: Field[], inputs: FieldInput[], requestIds: Map<string, string>, documents: readonly EnvelopeDocument[], errors: FieldError[]): Field[] {
  const existing = new Set(current.map((field) => field.id));
  return inputs.map((input, index) => {
    const { documentId, ...properties } = input;
    return withDocumentId(
      {
        id: input.id !== undefined && (existing.has(input.id) || isUuid(input.id)) ? input.id : uuidv7(),
        recipientId: requestIds.get(input.recipientId) ?? input.recipientId,
        ...storedFieldProperties(properties),
      },
      storedDocumentId(documentId, documents, `fields.${index}.documentId`, errors, 'envelope'),
    );
  });
}

/**
 * Every field must be on a page its document has (docs/api.md#several-documents): each document's
 * frozen page count, a field without `documentId` on the first.
 * @throws AppError 422 `field-outside-document` naming the fields (`fields.<index>.page`) and their documents
 */
export function assertFieldsFitDocuments(fields: readonly Pick<Field, 'page' | 'documentId'>[], documents: readonly EnvelopeDocument[]): void {
  if (documents.length <= 1) {
    assertFieldsFit(fields, documents[0]?.pageCount ?? 0);
    return;
  }
  const first = documents[0]!;
  const byId = new Map(documents.map((document) => [document.id, document]));
  const outside: FieldError[] = fields.flatMap((field, index) => {
    const document = byId.get(fieldDocumentId(field, first));
    const pages = document?.pageCount ?? 0;
    return field.page > pages ? [{ path: `fields.${index}.page`, message: `is ${field.page}, but the document "${document?.name ?? '?'}" has ${pages} page${pages === 1 ? '' : 's'}` }] : [];
  });
  if (outside.length > 0) {
    throw problem('fieldOutsideDocument', { detail: `${outside.length} field${outside.length === 1 ? ' is' : 's are'} on a page its document does not have: ${outside.map((error) => `${error.path} ${error.message}`).join('; ')}.`, errors: outside });
  }
}

/**
 * What is stored of a field, whoever fills it (envelope fields and template fields alike): its
 * placement, `label` (`null` when none), and only the detection marks and value rules that are set.
 */
export function storedFieldProperties(input: Omit<FieldInput, 'id' | 'recipientId'>): Omit<Field, 'id' | 'recipientId'> {
  return {
    type: input.type,
    page: input.page,
    x: input.x,
    y: input.y,
    width: input.width,
    height: input.height,
    required: input.required,
    label: input.label ?? null,
    ...(input.source === undefined ? {} : { source: input.source }),
    ...(input.formFieldName === undefined ? {} : { formFieldName: input.formFieldName }),
    ...storedRules(input),
  };
}

/** 400 `validation-failed` listing every complaint (docs/api.md#conventions). */
export function validationFailed(errors: FieldError[]): AppError {
  const first = errors[0]!;
  return problem('validationFailed', { detail: `The request body is invalid: ${first.path} ${first.message}.`, errors });
}

/**
 * Whether an `If-Match` header (RFC 9110 §13.1.1) is satisfied by the envelope's current ETag.
 * Absent: satisfied. `*`: satisfied (the envelope exists). Weak tags never match (strong comparison).
 */
export function ifMatchSatisfied(header: string | null, currentETag: string): boolean {
  if (header === null) return true;
  const value = header.trim();
  if (value === '*') return true;
  return value.split(',').some((tag) => tag.trim() === currentETag);
}
