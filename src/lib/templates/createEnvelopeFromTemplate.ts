/**
 * `POST /api/templates/{id}/envelopes` (docs/api.md#templates): an envelope from an active template.
 *
 * How it is made, with the envelope's own code at every step:
 * 1. The recipients are matched to the roles (each role exactly once) and the request is turned into
 *    the envelope update it amounts to (signers, fields with new ids, prefilled values, settings),
 *    checked by the envelope's own request schema (`updateEnvelopeRequest`), so that a recipient and a
 *    field accept exactly what a signer and a field of an envelope accept.
 * 2. Every frozen document of the template (docs/api.md#documents-of-a-template) is copied, verified
 *    against its SHA-256, to the envelope's own frozen location (`originals`, the template's blob name
 *    with the envelope's id in place of the template's) by the code that freezes uploads
 *    (`storeFrozenCopy`), in the same order, under the same names; a document keeps its id, but the
 *    one bearing the template's id bears the envelope's, and every field keeps its document. The
 *    envelope never depends on the template again, so deleting the template leaves it whole.
 * 3. The draft is created (`envelope.created` with `templateId`), then updated, and sent when `send`
 *    is `true`, by `updateEnvelope`, the path of `PUT /api/envelopes/{id}`. Should that refuse (the
 *    owner's e-mail quota, an unverified sender, `expiresAt`), the draft is deleted again, so a refused
 *    request leaves nothing behind.
 *
 * With an `Idempotency-Key` (docs/api.md#idempotency) the envelope's id comes from the key's claim
 * (`resumableId`), and a run under the claim of a request whose process died resumes its work: an
 * envelope already made and past its last step (sent, or with its recipients when `send` is false) is
 * answered as it is; one made but not yet updated or sent is updated and sent (its `envelope.created`
 * is not written again, and the send, one transaction with its outbox batch, e-mails the recipients
 * once); none at all is made as by a first run. Copying the documents again writes the same bytes.
 */
import { isAppError, type FieldError } from '../errors.js';
import { newDraftEnvelope } from '../envelopes/createUpload.js';
import { deleteEnvelope } from '../envelopes/delete.js';
import { documentsOf, setDocuments } from '../envelopes/documents.js';
import { frozenUploadFacts, readFrozenDocument, storeFrozenCopy } from '../envelopes/freeze.js';
import { validationFailed } from '../envelopes/lifecycle.js';
import type { Actor, EnvelopeDocument, EnvelopeRecord } from '../envelopes/model.js';
import { updateEnvelopeRequest, type UpdateEnvelopeRequest } from '../envelopes/schemas.js';
import { updateEnvelope } from '../envelopes/update.js';
import { parseWith } from '../http/body.js';
import { resumableId, resumingRun, uuidv7 } from '../ids.js';
import type { Services } from '../services.js';
import { storageStatus } from '../storage/keys.js';
import type { TemplateRecord, TemplateRole } from './model.js';
import type { TemplateRecipientInput, UseTemplateRequest } from './schemas.js';
import { readTemplateFor } from './access.js';
import { templateNotFound } from './view.js';
import { problem } from '../problems.js';

const DAY_MS = 86_400_000;

export interface UseTemplateOptions {
  services: Services;
  templateId: string;
  request: UseTemplateRequest;
  actor: Actor;
  now?: () => Date;
  log?: (message: string) => void;
  /** The bulk job whose row this use is, and the row's `metadata` (docs/api.md#bulk-send): the envelope carries both. */
  bulk?: { jobId: string; metadata: Record<string, string> | null };
  /**
   * The use is a public link's (docs/api.md#public-links): the envelope carries `source: "publicLink"`,
   * and the open role's recipient is in the first routing order, before the fixed recipients.
   */
  publicLink?: { openRoleId: string };
}

/**
 * Makes an envelope from an active template the caller may use (its own, one shared with the
 * organisation, or for an admin or the owner any of the organisation's: `access.ts`), see the module
 * comment. The envelope is the caller's, whoever made the template.
 * @returns the envelope as stored: `sent` (or `draft` with `send: false`), with `templateId`
 * @throws AppError 404 `template-not-found`; 403 `forbidden-role` (another sender's private
 *   template); 409 `template-not-active`; 400 `validation-failed` naming
 *   a missing, unknown or repeated role, a value for no field of the template, or anything an envelope
 *   update refuses; and whatever sending an envelope throws (403 `email-not-verified`, 429 `email-quota`, ...)
 */
export async function useTemplate({ services, templateId, request, actor, now = () => new Date(), log, bulk, publicLink }: UseTemplateOptions): Promise<EnvelopeRecord> {
  const envelopeId = resumableId('envelope');
  // Run again after a crash (see the module comment): what the dead run made, if anything.
  const left = resumingRun() ? (await services.envelopes.read(actor.userId, envelopeId))?.record : undefined;
  if (left !== undefined && (left.status !== 'draft' || (!request.send && left.signers.length > 0))) return left;

  const { record: template } = await readTemplateFor(services, actor, templateId, 'use');
  if (template.status !== 'active' || template.documentSha256 === null || template.pageCount === null) {
    throw problem('templateNotActive');
  }
  const at = left === undefined ? now() : new Date(left.createdAt);
  const update = envelopeUpdateFor(publicLink === undefined ? template : openRoleFirst(template, publicLink.openRoleId), request, at, envelopeId);

  const { record, event } = newDraftEnvelope({
    actor,
    documentName: template.documentName,
    now: at,
    templateId: template.id,
    id: envelopeId,
    ...(bulk === undefined ? {} : { bulk }),
    ...(publicLink === undefined ? {} : { source: 'publicLink' as const }),
  });
  const copies = envelopeDocumentsFor(template, envelopeId);
  if (template.documents === undefined) {
    record.documentSha256 = template.documentSha256;
    record.pageCount = template.pageCount;
  } else {
    setDocuments(record, copies.map(({ copy }) => copy));
    event.details = { ...event.details, documentName: record.documentName, blobName: record.blobName };
  }
  if (left === undefined) {
    await copyFrozenDocuments(services, template, copies);
    await services.organizationIndex.add(actor.organizationId, record.id, record.ownerId);
    await services.envelopes.create(record, event);
  }
  try {
    return await updateEnvelope({
      services,
      envelopeId: record.id,
      request: request.send ? { ...update, status: 'sent' } : update,
      actor,
      ifMatch: null,
      // One instant for the whole use: created, sent and `expiresInDays` counted from the same time.
      now: () => at,
      ...(log === undefined ? {} : { log }),
    });
  } catch (error) {
    if (isAppError(error)) await deleteEnvelope({ services, envelopeId: record.id, actor, ...(log === undefined ? {} : { log }) });
    throw error;
  }
}

/**
 * The envelope update a use amounts to: one signer per role (in the template's role order), the
 * template's fields with new ids for those signers and the prefilled values, and its settings. Bulk
 * send checks each row with it before a job is made (`bulk/rows.ts`), so a row is refused exactly
 * as its use would be.
 * @param envelopeId the envelope's id: a field on the template's document bearing the template's id is on the envelope's bearing this one (docs/api.md#documents-of-a-template)
 * @throws AppError 400 `validation-failed`, paths named as in the use request (`recipients.1.roleName`, `values.0.fieldId`)
 */
export function envelopeUpdateFor(template: TemplateRecord, request: UseTemplateRequest, now: Date, envelopeId: string): UpdateEnvelopeRequest {
  const errors: FieldError[] = [];
  const recipientOfRole = new Map<string, number>();
  request.recipients.forEach((recipient, index) => {
    const role = roleOf(template.roles, recipient, `recipients.${index}`, errors);
    if (role === undefined) return;
    const first = recipientOfRole.get(role.id);
    if (first !== undefined) {
      errors.push({ path: `recipients.${index}.${recipient.roleId === undefined ? 'roleName' : 'roleId'}`, message: `repeats role "${role.name}" of recipient ${first}: each role takes exactly one recipient` });
    } else {
      recipientOfRole.set(role.id, index);
    }
  });
  for (const role of template.roles) {
    if (!recipientOfRole.has(role.id) && !errors.some((error) => error.path.startsWith('recipients.'))) {
      errors.push({ path: 'recipients', message: `has no recipient for role "${role.name}" (${role.id}): each role takes exactly one recipient` });
    }
  }
  const fieldIndex = new Map(template.fields.map((field, index) => [field.id, index]));
  const valueOfField = new Map<string, { value: unknown; index: number }>();
  (request.values ?? []).forEach((entry, index) => {
    if (!fieldIndex.has(entry.fieldId)) errors.push({ path: `values.${index}.fieldId`, message: 'names no field of this template' });
    else if (valueOfField.has(entry.fieldId)) errors.push({ path: `values.${index}.fieldId`, message: `repeats the field of value ${valueOfField.get(entry.fieldId)!.index}` });
    else valueOfField.set(entry.fieldId, { value: entry.value, index });
  });
  if (errors.length > 0) throw validationFailed(errors);

  const signerIdOfRole = new Map(template.roles.map((role) => [role.id, uuidv7()]));
  const signers = template.roles.map((role) => {
    const { roleId: _roleId, roleName: _roleName, ...person } = request.recipients[recipientOfRole.get(role.id)!]!;
    return { ...person, id: signerIdOfRole.get(role.id), role: role.role, routingOrder: role.routingOrder };
  });
  const fields = template.fields.map(({ id: templateFieldId, roleId, documentId, ...properties }) => {
    const prefilled = valueOfField.get(templateFieldId);
    const onDocument = documentId === undefined ? {} : { documentId: documentId === template.id ? envelopeId : documentId };
    return { ...properties, ...onDocument, id: uuidv7(), recipientId: signerIdOfRole.get(roleId), ...(prefilled === undefined ? {} : { value: prefilled.value }) };
  });
  const expiresAt =
    request.expiresAt !== undefined ? request.expiresAt : template.expiresInDays === null ? undefined : new Date(now.getTime() + template.expiresInDays * DAY_MS).toISOString();
  const body = {
    signers,
    fields,
    signingOrder: template.signingOrder,
    remindEveryDays: template.remindEveryDays,
    // The envelope's language is the template's (docs/languages.md), where envelopes have one.
    ...('locale' in updateEnvelopeRequest.shape ? { locale: template.locale } : {}),
    output: template.output,
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
  try {
    return parseWith(updateEnvelopeRequest, body);
  } catch (error) {
    if (!isAppError(error, 'bad_request') || error.errors === undefined) throw error;
    // Name what the caller sent: a signer is a recipient, a field's value a prefilled value.
    const recipientIndex = template.roles.map((role) => recipientOfRole.get(role.id)!);
    const valueIndex = template.fields.map((field) => valueOfField.get(field.id)?.index);
    throw validationFailed(
      error.errors.map(({ path, message }) => {
        const signer = /^signers\.(\d+)(\..*)?$/.exec(path);
        if (signer !== null) return { path: `recipients.${recipientIndex[Number(signer[1])]}${signer[2] ?? ''}`, message };
        const field = /^fields\.(\d+)\.value(\..*)?$/.exec(path);
        const index = field === null ? undefined : valueIndex[Number(field[1])];
        if (field !== null && index !== undefined) return { path: `values.${index}.value${field[2] ?? ''}`, message };
        return { path, message };
      }),
    );
  }
}

/**
 * The template with the open role of a public link in its first routing order (docs/api.md#public-links):
 * whoever opens the link signs at once, and the fixed recipients' orders come after it.
 */
function openRoleFirst(template: TemplateRecord, openRoleId: string): TemplateRecord {
  const first = Math.min(...template.roles.map((role) => role.routingOrder));
  return { ...template, roles: template.roles.map((role) => (role.id === openRoleId ? { ...role, routingOrder: first } : role)) };
}

/** The role a recipient names by `roleId` or `roleName` (case-insensitive); records a complaint and returns `undefined` otherwise. */
function roleOf(roles: TemplateRole[], recipient: TemplateRecipientInput, path: string, errors: FieldError[]): TemplateRole | undefined {
  const { roleId, roleName } = recipient;
  if (roleId === undefined && roleName === undefined) {
    errors.push({ path, message: 'names no role: send roleId or roleName' });
    return undefined;
  }
  const byId = roleId === undefined ? undefined : roles.find((role) => role.id === roleId);
  const byName = roleName === undefined ? undefined : roles.find((role) => role.name.toLowerCase() === roleName.trim().toLowerCase());
  if (roleId !== undefined && byId === undefined) {
    errors.push({ path: `${path}.roleId`, message: `is ${roleId}, which names no role of this template` });
    return undefined;
  }
  if (roleName !== undefined && byName === undefined) {
    errors.push({ path: `${path}.roleName`, message: `is "${roleName}", which names no role of this template` });
    return undefined;
  }
  if (byId !== undefined && byName !== undefined && byId !== byName) {
    errors.push({ path: `${path}.roleName`, message: `names role "${byName.name}", but roleId names role "${byId.name}"` });
    return undefined;
  }
  return byId ?? byName;
}

/** A document of the template (its frozen copy's blob and facts) and the envelope's copy of it. */
interface DocumentCopy {
  original: EnvelopeDocument;
  copy: EnvelopeDocument;
}

/**
 * The envelope's documents, one per document of the active template, in order: the same id (the
 * envelope's in place of the template's), name, hash and page count; the blob name with the
 * envelope's id in place of the template's (`<envelopeId>/<filename>`, `<envelopeId>/<documentId>/<filename>`).
 */
function envelopeDocumentsFor(template: TemplateRecord, envelopeId: string): DocumentCopy[] {
  return documentsOf(template).map((original) => ({
    original,
    copy: { ...original, id: original.id === template.id ? envelopeId : original.id, blobName: `${envelopeId}${original.blobName.slice(template.id.length)}` },
  }));
}

/**
 * Copies each of the template's frozen documents, verified against its SHA-256, to the envelope's own
 * frozen copy (`originals`, the copy's `blobName`), one after the other.
 * @throws AppError 404 `template-not-found` when the template was deleted meanwhile
 */
async function copyFrozenDocuments(services: Services, template: TemplateRecord, copies: readonly DocumentCopy[]): Promise<void> {
  for (const { original, copy } of copies) {
    let bytes: Uint8Array;
    let upload: Awaited<ReturnType<typeof frozenUploadFacts>>;
    try {
      // The template's upload and what its freezing removed go with the copy, for the envelope's evidence.
      [bytes, upload] = await Promise.all([readFrozenDocument(services, { id: template.id, blobName: original.blobName, documentSha256: original.sha256 }), frozenUploadFacts(services, original)]);
    } catch (error) {
      if (storageStatus(error) === 404) throw templateNotFound();
      throw error;
    }
    await storeFrozenCopy({
      services,
      record: { blobName: copy.blobName, fields: [] },
      checked: { bytes, documentSha256: original.sha256!, uploadSha256: upload.uploadSha256, pageCount: original.pageCount!, removed: upload.removed },
      stillDraft: async () => true,
    });
  }
}
