/**
 * Which templates of its organisation a member reaches, and for what
 * (docs/api.md#templates-shared-in-an-organization): its own, all of them; an `admin` or the `owner`,
 * every template of the organisation (read, use, change, delete); a `viewer` reads every template and
 * changes none; a `sender` reads and uses the templates whose `visibility` is `organization`, and
 * changes only its own. What a role may not reach inside the organisation is 403 `forbidden-role`;
 * another organisation's template ids stay 404, exactly as unknown ones. A template stays in its
 * creator's partition; the organisation's template index (`storage/organizationIndex.ts`) says which
 * partition that is.
 */
import type { Actor } from '../envelopes/model.js';
import { isUuid } from '../ids.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import type { StoredTemplate } from '../storage/templateRepository.js';
import type { TemplateRecord } from './model.js';
import { templateNotFound } from './view.js';

/** What a request does with a template: `read` it (GET, lists), `use` it (make an envelope), `change` it (update, detect fields, delete). */
export type TemplateAccess = 'read' | 'use' | 'change';

/**
 * Why `actor` may not `access` `record`, a template of its own organisation, or `null` when it may
 * (docs/api.md#templates-shared-in-an-organization).
 * @returns the `detail` of the 403 `forbidden-role`, naming the roles that may
 */
export function templateAccessRefusal(actor: Pick<Actor, 'userId' | 'role'>, record: Pick<TemplateRecord, 'ownerId' | 'visibility'>, access: TemplateAccess): string | null {
  if (actor.role === 'owner' || actor.role === 'admin') return null;
  if (actor.role === 'viewer') {
    return access === 'read' ? null : 'This needs the role owner, admin or sender; you are a viewer of your organization.';
  }
  if (record.ownerId === actor.userId) return null;
  if (access === 'change') return 'Only the member who made this template, an admin or the owner changes it; you are a sender of your organization.';
  if (record.visibility === 'organization') return null;
  return 'This template is private to the member who made it: only they, an admin or the owner reach it; you are a sender of your organization.';
}

/**
 * The organisation's template `templateId` as stored, for `actor` to `access`: first a point read in
 * the actor's own partition (its own templates cost nothing more); else the organisation's template
 * index names the creator's partition (one point read the first time per instance; the first miss
 * indexes the organisation's older templates, once).
 * @throws AppError 404 `template-not-found` for an unknown or malformed id, or another organisation's
 *   template; 403 `forbidden-role` for a template of the organisation the actor's role may not `access`
 */
export async function readTemplateFor(services: Services, actor: Actor, templateId: string, access: TemplateAccess): Promise<StoredTemplate> {
  if (!isUuid(templateId)) throw templateNotFound();
  const own = await services.templates.read(actor.userId, templateId);
  const stored = own ?? (await readOthers(services, actor, templateId));
  if (stored === null) throw templateNotFound();
  const refusal = templateAccessRefusal(actor, stored.record, access);
  if (refusal !== null) throw problem('forbiddenRole', { detail: refusal });
  return stored;
}

/** Another member's template of the actor's organisation, or `null`. */
async function readOthers(services: Services, actor: Actor, templateId: string): Promise<StoredTemplate | null> {
  const index = services.templateIndex;
  let ownerId = await index.owner(actor.organizationId, templateId);
  if (ownerId === null) {
    // Not indexed: perhaps made before the index existed. Index those (once), then look again.
    await ensureTemplatesIndexed(services, actor.organizationId);
    ownerId = await index.owner(actor.organizationId, templateId);
  }
  if (ownerId === null || ownerId === actor.userId) return null;
  const stored = await services.templates.read(ownerId, templateId);
  if (stored !== null) return stored;
  // Remembered from before its creator was removed and the template moved: ask the index again.
  const current = await index.currentOwner(actor.organizationId, templateId);
  if (current === null || current === ownerId || current === actor.userId) return null;
  return await services.templates.read(current, templateId);
}

/**
 * Indexes the templates the organisation's members made before the index existed, once per
 * organisation (idempotent; `storage/organizationIndex.ts` `ensureIndexed`).
 */
export async function ensureTemplatesIndexed(services: Services, organizationId: string): Promise<void> {
  await services.templateIndex.ensureIndexed(
    organizationId,
    async () => (await services.organizations.members(organizationId)).map((member) => member.userId),
    (ownerId) => services.templates.idsOf(ownerId),
  );
}
