/**
 * `PUT`/`PATCH /api/templates/{id}` (docs/api.md#templates): name, roles, fields by role, settings and
 * activation. `{status: "active"}` checks and freezes every document with the code that sends an
 * envelope (`envelopes/freezePacket.ts`: the same checks, the same cleaning, the frozen copies in
 * `originals`), after which the documents never change; every field must fit its document's pages,
 * then and at any later change.
 * Read-modify-write conditional on the row's ETag, retried, so no concurrent update is lost.
 */
import { randomBytes } from 'node:crypto';
import type { FieldError } from '../errors.js';
import type { Actor } from '../envelopes/model.js';
import { documentsOf, setDocuments, storedDocumentId, withDocumentId } from '../envelopes/documents.js';
import { freezePacket, refreshPacket } from '../envelopes/freezePacket.js';
import { assertFieldsFitDocuments, ifMatchSatisfied, storedFieldProperties, validationFailed } from '../envelopes/lifecycle.js';
import type { EnvelopeDocument } from '../envelopes/model.js';
import { isUuid, uuidv7 } from '../ids.js';
import type { Services } from '../services.js';
import { templateETag, type PublicLinkSettings, type TemplateField, type TemplateRecord, type TemplateRole } from './model.js';
import type { PublicLinkInput, RoleInput, TemplateFieldInput, UpdateTemplateRequest } from './schemas.js';
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
 *   naming no role of role `signer`; a public link whose roles do not fit); 409 `template-not-active` (a public link on a draft); 409 `invalid-transition` (an active template back to draft),
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
    next.publicLink = await nextPublicLink(services, stored.record, next, request.publicLink, activates, actor);
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
    const before = stored.record.publicLink?.publicId ?? null;
    // Disabled, or enabled again under another id: the old URL is dead for good (the template already says so).
    if (before !== null && before !== next.publicLink?.publicId) await services.publicLinks.deleteLink(before);
    return next;
  }, { ifMatch });
}

/**
 * The template's public link after an update (docs/api.md#public-links): the request's settings
 * checked against the template's roles as they will be, or the current ones checked again when the
 * roles change. Enabling a link that was off gives it a new `publicId` (22 random base64url
 * characters) and writes its row in `publicLinks` before the template names it, so that the template
 * never names a link without a row; a row whose template write loses is named by nothing and never
 * answers.
 * @throws AppError 409 `template-not-active` (a public link on a draft); 400 `validation-failed`
 *   naming `publicLink.roleName` or `publicLink.recipients...`
 */
async function nextPublicLink(services: Services, current: TemplateRecord, next: TemplateRecord, input: PublicLinkInput | undefined, activates: boolean, actor: Actor): Promise<PublicLinkSettings | null> {
  if (input === undefined) {
    if (current.publicLink?.enabled === true && JSON.stringify(current.roles) !== JSON.stringify(next.roles)) {
      checkPublicLink(next.roles, current.publicLink, 'publicLink');
    }
    return current.publicLink;
  }
  if (current.status !== 'active' && !activates) {
    throw problem('templateNotActive', { detail: 'A public link is for an active template: activate it (status "active") first, or in the same request.' });
  }
  const settings: PublicLinkSettings = {
    enabled: input.enabled,
    publicId: null,
    roleName: input.roleName.trim(),
    maxUses: input.maxUses ?? null,
    expiresAt: input.expiresAt ?? null,
    recipients: (input.recipients ?? []).map((recipient) => ({ roleName: recipient.roleName.trim(), email: recipient.email, name: recipient.name })),
  };
  checkPublicLink(next.roles, settings, 'publicLink');
  if (!settings.enabled) return settings;
  const kept = current.publicLink?.enabled === true ? current.publicLink.publicId : null;
  if (kept !== null) return { ...settings, publicId: kept };
  const publicId = randomBytes(16).toString('base64url');
  await services.publicLinks.create({ publicId, ownerId: current.ownerId, templateId: current.id, organizationId: actor.organizationId });
  return { ...settings, publicId };
}

/**
 * Checks a public link against the template's roles (docs/api.md#public-links): `roleName` names one
 * role, not of role `cc`; `recipients` give every other role exactly one fixed recipient, and no more.
 * @throws AppError 400 `validation-failed`, paths under `path`
 */
function checkPublicLink(roles: readonly TemplateRole[], link: Pick<PublicLinkSettings, 'roleName' | 'recipients'>, path: string): void {
  const errors: FieldError[] = [];
  const byName = (name: string): TemplateRole | undefined => roles.find((role) => role.name.toLowerCase() === name.toLowerCase());
  const open = byName(link.roleName);
  if (open === undefined) errors.push({ path: `${path}.roleName`, message: `is "${link.roleName}", which names no role of this template` });
  else if (open.role === 'cc') errors.push({ path: `${path}.roleName`, message: `names role "${open.name}", of role cc: the person who opens the link must have something to sign` });
  const given = new Map<string, number>();
  link.recipients.forEach((recipient, index) => {
    const role = byName(recipient.roleName);
    if (role === undefined) errors.push({ path: `${path}.recipients.${index}.roleName`, message: `is "${recipient.roleName}", which names no role of this template` });
    else if (role === open) errors.push({ path: `${path}.recipients.${index}.roleName`, message: `names the open role "${role.name}", which whoever opens the link takes` });
    else if (given.has(role.id)) errors.push({ path: `${path}.recipients.${index}.roleName`, message: `repeats role "${role.name}" of recipient ${given.get(role.id)}: each role takes exactly one recipient` });
    else given.set(role.id, index);
  });
  for (const role of roles) {
    if (role !== open && !given.has(role.id)) errors.push({ path: `${path}.recipients`, message: `has no fixed recipient for role "${role.name}": every role but the open one needs one` });
  }
  if (errors.length > 0) throw validationFailed(errors);
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
