/**
 * List Envelopes (docs/api.md#list-envelopes): the caller's envelopes, or with `scope=organization`
 * every envelope of its organisation (docs/api.md#what-members-share), newest first, paged.
 */
import { assertRole } from '../organizations/roles.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { decodeCursor, encodeCursor } from '../storage/envelopeRepository.js';
import { indexedPage } from '../storage/organizationIndex.js';
import { ensureOrganizationIndexed } from './access.js';
import type { Actor, EnvelopeRecord, EnvelopeView } from './model.js';
import { DEFAULT_LIST_PAGE, type ListEnvelopesQuery } from './schemas.js';
import { toEnvelopeView } from './view.js';

/** Page size without `limit` (docs/api.md#list-envelopes). */
export const DEFAULT_LIMIT = DEFAULT_LIST_PAGE;

export interface ListEnvelopesOptions {
  services: Services;
  actor: Actor;
  query: ListEnvelopesQuery;
}

export interface EnvelopeListPage {
  envelopes: EnvelopeView[];
  /** Cursor of the next page, when more exist. */
  nextCursor: string | undefined;
}

/**
 * One page of the caller's envelopes (`scope=mine`, the default) or of its organisation's.
 * @throws AppError 403 `forbidden-role` for `scope=organization` asked by a `sender`; 400 for a cursor
 *   that this service did not issue for the same `status` (and scope)
 */
export async function listEnvelopes({ services, actor, query }: ListEnvelopesOptions): Promise<EnvelopeListPage> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  let page: { records: EnvelopeRecord[]; nextCursor: string | undefined };
  if (query.scope === 'organization') {
    assertRole(actor.role, ['owner', 'admin', 'viewer']);
    page = await organizationPage(services, actor.organizationId, query, limit);
  } else {
    page = await services.envelopes.list(actor.userId, {
      limit,
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
    });
  }
  const envelopes = await Promise.all(page.records.map((record) => toEnvelopeView(record, services.storage.sas)));
  return { envelopes, nextCursor: page.nextCursor };
}

/**
 * A page of the organisation's envelopes: a page of its index (`storage/organizationIndex.ts`
 * `indexedPage`), with `status` passing over the envelopes of other statuses.
 */
async function organizationPage(services: Services, organizationId: string, query: ListEnvelopesQuery, limit: number): Promise<{ records: EnvelopeRecord[]; nextCursor: string | undefined }> {
  let after: string | undefined;
  if (query.cursor !== undefined) {
    const rowKey = decodeCursor(query.cursor);
    if (rowKey === null || !rowKey.startsWith('envelope_')) throw problem('invalidCursor');
    after = rowKey;
  }
  await ensureOrganizationIndexed(services, organizationId);
  const page = await indexedPage(services.organizationIndex, organizationId, limit, after, {
    listBetween: async (ownerId, newestId, oldestId) => await services.envelopes.listBetween(ownerId, newestId, oldestId),
    keep: (record) => query.status === undefined || record.status === query.status,
  });
  return { records: page.records, nextCursor: page.nextRowKey === undefined ? undefined : encodeCursor(page.nextRowKey) };
}
