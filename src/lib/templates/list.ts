/**
 * List Templates (docs/api.md#list-read-and-delete-templates): the templates of the caller's
 * organisation it may read (docs/api.md#templates-shared-in-an-organization), newest first, paged: a
 * sender's own and those shared with the organisation; every template of the organisation for an
 * admin, the owner and a viewer.
 */
import type { Actor } from '../envelopes/model.js';
import { DEFAULT_LIST_PAGE } from '../envelopes/schemas.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { encodeCursor } from '../storage/envelopeRepository.js';
import { indexedPage } from '../storage/organizationIndex.js';
import { ensureTemplatesIndexed, templateAccessRefusal } from './access.js';
import type { TemplateView } from './model.js';
import type { ListTemplatesQuery } from './schemas.js';
import { toTemplateViews } from './view.js';

/** Page size without `limit`, as for envelopes (docs/api.md#list-envelopes). */
export const DEFAULT_TEMPLATE_LIMIT = DEFAULT_LIST_PAGE;

/**
 * One page of the templates `actor` may read: a page of the organisation's template index
 * (`storage/organizationIndex.ts` `indexedPage`), passing over the templates the caller may not read.
 * @throws AppError 400 `invalid-cursor` for a cursor this service did not issue for templates
 */
export async function listTemplates(services: Services, actor: Actor, query: ListTemplatesQuery): Promise<{ templates: TemplateView[]; nextCursor: string | undefined }> {
  const after = query.cursor === undefined ? undefined : templateRowOf(query.cursor);
  await ensureTemplatesIndexed(services, actor.organizationId);
  const page = await indexedPage(services.templateIndex, actor.organizationId, query.limit ?? DEFAULT_TEMPLATE_LIMIT, after, {
    listBetween: async (ownerId, newestId, oldestId) => await services.templates.listBetween(ownerId, newestId, oldestId),
    keep: (record) => templateAccessRefusal(actor, record, 'read') === null,
  });
  return {
    templates: await toTemplateViews(services, actor.organizationId, page.records),
    nextCursor: page.nextRowKey === undefined ? undefined : encodeCursor(page.nextRowKey),
  };
}

/**
 * The index RowKey a template list's cursor names (the envelope list's encoding of a RowKey).
 * @throws AppError 400 `invalid-cursor` for anything else
 */
function templateRowOf(cursor: string): string {
  const rowKey = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!/^template_[0-9a-f-]{36}$/.test(rowKey)) throw problem('invalidCursor');
  return rowKey;
}
