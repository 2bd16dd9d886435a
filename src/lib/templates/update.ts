/**
 * `PUT`/`PATCH /api/templates/{id}` (docs/api.md#templates): name, roles, fields by role, settings and
 * activation. `{status: "active"}` checks and freezes every document with the code that sends an
 * envelope (`envelopes/freezePacket.ts`: the same checks, the same cleaning, the frozen copies in
 * `originals`), after which the documents never change; every field must fit its document's pages,
 * then and at any later change.
 * Read-modify-write conditional on the row's ETag, retried, so no concurrent update is lost.
 */
import type { FieldError } from '../errors.js';
import type { Actor } from '../envelopes/model.js';
import { documentsOf, setDocuments, storedDocumentId, withDocumentId } from '../envelopes/documents.js';
import { freezePacket, refreshPacket } from '../envelopes/freezePacket.js';
import { assertFieldsFitDocuments, ifMatchSatisfied, storedFieldProperties, validationFailed } from '../envelopes/lifecycle.js';
import type { EnvelopeDocument } from '../envelopes/model.js';
import { isUuid, uuidv7 } from '../ids.js';
import type { Services } from '../services.js';
import { templateETag, type TemplateField, type TemplateRecord, type TemplateRole } from './model.js';
import type { RoleInput, TemplateFieldInput, UpdateTemplateRequest } from './schemas.js';
import { mutateTemplate } from './mutate.js';
import { problem } from '../problems.js';

export interface UpdateTemplateOptions {
  services: Services;
  templateId: string;
  request: UpdateTemplateRequest;
  actor: Actor;
  /** The request's `If-Match` header, or `null`. */
  ifMatch: string | null;
  now?: () => Date;
}

/**
 * Applies `request` to a template the caller may change (`access.ts`) and returns it as stored
 * afterwards; it stays its creator's.
 * @throws AppError 404 `template-not-found`; 403 `forbidden-role`; 412 `etag-mismatch`; 400 `validation-failed` (a field
 *   naming no role of role `signer`); 409 `invalid-transition` (an active template back to draft),
 *   `template-contended`; activating: what sending an envelope throws for its document (409
 *   `document-not-uploaded`, 413, 415, 422), 422 `field-outside-document`
 */
export async function updateTemplate({ services, templateId, request, actor, ifMatch, now = () => new Date() }: UpdateTemplateOptions): Promise<TemplateRecord> {
  return await mutateTemplate(services, { actor, templateId }, async (stored) => {
    if (!ifMatchSatisfied(ifMatch, templateETag(stored.record))) {
      throw problem('etagMismatch');
    }
    const next = applyEdits(stored.record, request);
    const activates = request.status === 'active' && stored.record.status === 'draft';
    if (request.status === 'draft' && stored.record.status === 'active') {
      throw problem('invalidTransition');
    }
    if (!activates && JSON.stringify(next) === JSON.stringify(stored.record)) return stored.record;
    if (activates) {
      const record = stored.record;
      const packet = await freezePacket(
        services,
        next,
        async () => (await services.templates.read(record.ownerId, record.id))?.record.status === 'draft',
        services.storage.containers.templates,
      );
      assertFieldsFitDocuments(next.fields, packet.documents);
      next.status = 'active';
      // A template of one document keeps no list, as before several documents.
      if (next.documents === undefined) {
        next.documentSha256 = packet.documents[0]!.sha256;
        next.pageCount = packet.documents[0]!.pageCount;
      } else {
        setDocuments(next, packet.documents);
      }
      await refreshPacket(services, packet);
    } else if (next.status === 'active') {
      assertFieldsFitDocuments(next.fields, documentsOf(next));
    }
    next.updatedAt = now().toISOString();
    next.version = stored.record.version + 1;
    await services.templates.replace(stored, next);
    return next;
  }, { ifMatch });
}

/**
 * The template with the request's name, roles, fields and settings applied (status aside).
 * @throws AppError 400 `validation-failed` for a field naming no role, or a role not of role `signer`
 */
function applyEdits(current: TemplateRecord, request: UpdateTemplateRequest): TemplateRecord {
  const next = structuredClone(current);
  const errors: FieldError[] = [];
  if (request.name !== undefined) next.name = request.name;
  if (request.visibility !== undefined) next.visibility = request.visibility;

  let requestIds = new Map<string, string>();
  if (request.roles !== undefined) {
    const replaced = replaceRoles(current.roles, request.roles);
    next.roles = replaced.roles;
    requestIds = replaced.requestIds;
  }
  const roleById = new Map(next.roles.map((role, index) => [role.id, { role, index }]));
  if (request.fields !== undefined) {
    next.fields = replaceFields(current.fields, request.fields, requestIds, documentsOf(current), errors);
    next.fields.forEach((field, index) => {
      const target = roleById.get(field.roleId);
      if (target === undefined) errors.push({ path: `fields.${index}.roleId`, message: 'names no role of this template' });
      else if (target.role.role !== 'signer') errors.push({ path: `fields.${index}.roleId`, message: `names a role with role ${target.role.role}; only a role of role signer fills fields` });
    });
  } else {
    // Fields of removed roles go with them (as an envelope's fields go with their signer).
    next.fields = current.fields.filter((field) => roleById.has(field.roleId));
    const reported = new Set<string>();
    for (const field of next.fields) {
      const target = roleById.get(field.roleId)!;
      if (target.role.role !== 'signer' && !reported.has(target.role.id)) {
        reported.add(target.role.id);
        errors.push({ path: `roles.${target.index}.role`, message: `is ${target.role.role}, but this role has fields; only a role of role signer fills fields (send fields without them)` });
      }
    }
  }
  if (request.signingOrder !== undefined) next.signingOrder = request.signingOrder;
  if (request.remindEveryDays !== undefined) next.remindEveryDays = request.remindEveryDays;
  if (request.expiresInDays !== undefined) next.expiresInDays = request.expiresInDays;
  if (request.locale !== undefined) next.locale = request.locale;
  if (request.output !== undefined) next.output = request.output;
  if (errors.length > 0) throw validationFailed(errors);
  return next;
}

/** The new role list: ids as for signers (`envelopes/lifecycle.ts` `replaceSigners`). */
function replaceRoles(current: TemplateRole[], inputs: RoleInput[]): { roles: TemplateRole[]; requestIds: Map<string, string> } {
  const existing = new Set(current.map((role) => role.id));
  const requestIds = new Map<string, string>();
  const roles = inputs.map((input) => {
    const id = input.id !== undefined && (existing.has(input.id) || isUuid(input.id)) ? input.id : uuidv7();
    if (input.id !== undefined) requestIds.set(input.id, id);
    return { id, name: input.name, role: input.role, routingOrder: input.routingOrder };
  });
  return { roles, requestIds };
}

/**
 * The new field list: ids as for envelope fields; `roleId` resolved through the request's role ids;
 * `documentId` as for envelope fields (`envelopes/documents.ts` `storedDocumentId`); the rest stored
 * as envelope fields store it.
 */
function replaceFields(current: TemplateField[], inputs: TemplateFieldInput[], requestIds: Map<string, string>, documents: readonly EnvelopeDocument[], errors: FieldError[]): TemplateField[] {
  const existing = new Set(current.map((field) => field.id));
  return inputs.map(({ id: requested, roleId, documentId, ...properties }, index) =>
    withDocumentId(
      {
        id: requested !== undefined && (existing.has(requested) || isUuid(requested)) ? requested : uuidv7(),
        roleId: requestIds.get(roleId) ?? roleId,
        ...storedFieldProperties(properties),
      },
      storedDocumentId(documentId, documents, `fields.${index}.documentId`, errors, 'template'),
    ),
  );
}
