/**
 * List Envelopes (docs/api.md#list-envelopes): the caller's envelopes, or with `scope=organization`
 * every envelope of its organisation (docs/api.md#what-members-share), newest first, paged.
 */
import { forEachConcurrently } from '../concurrency.js';
import { assertRole } from '../organizations/roles.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { decodeCursor, encodeCursor } from '../storage/envelopeRepository.js';
import type { IndexedEnvelope } from '../storage/organizationIndex.js';
import { ensureOrganizationIndexed } from './access.js';
import type { Actor, EnvelopeRecord, EnvelopeView } from './model.js';
import { DEFAULT_LIST_PAGE, type ListEnvelopesQuery } from './schemas.js';
import { toEnvelopeView } from './view.js';

/** Page size without `limit` (docs/api.md#list-envelopes). */
export const DEFAULT_LIMIT = DEFAULT_LIST_PAGE;
/** Owners' partitions read at once for one page of the organisation's envelopes. */
const OWNER_READS_IN_FLIGHT = 8;

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
 * A page of the organisation's envelopes: a range of its index (newest first), then for each owner in
 * it one range query on the owner's partition; with `status`, further ranges until the page is full.
 * Its cost grows with the page and the owners in it, never with the organisation's total.
 */
async function organizationPage(services: Services, organizationId: string, query: ListEnvelopesQuery, limit: number): Promise<{ records: EnvelopeRecord[]; nextCursor: string | undefined }> {
  let after: string | undefined;
  if (query.cursor !== undefined) {
    const rowKey = decodeCursor(query.cursor);
    if (rowKey === null || !rowKey.startsWith('envelope_')) throw problem('invalidCursor');
    after = rowKey;
  }
  await ensureOrganizationIndexed(services, organizationId);
  const found: { record: EnvelopeRecord; rowKey: string }[] = [];
  for (;;) {
    const { rows, more } = await services.organizationIndex.page(organizationId, limit + 1 - found.length, after);
    const records = await readIndexed(services, rows);
    for (const row of rows) {
      const record = records.get(row.envelopeId);
      // A row whose envelope was never written, or is deleted, names nothing.
      if (record === undefined || (query.status !== undefined && record.status !== query.status)) continue;
      found.push({ record, rowKey: row.rowKey });
    }
    if (found.length > limit || !more || rows.length === 0) break;
    after = rows.at(-1)!.rowKey;
  }
  const pageRows = found.slice(0, limit);
  return { records: pageRows.map((row) => row.record), nextCursor: found.length > limit ? encodeCursor(pageRows.at(-1)!.rowKey) : undefined };
}

/** The envelopes of `rows`, by id: one range query per owner, from its newest to its oldest in `rows`. */
async function readIndexed(services: Services, rows: readonly IndexedEnvelope[]): Promise<Map<string, EnvelopeRecord>> {
  const byOwner = new Map<string, IndexedEnvelope[]>();
  for (const row of rows) {
    const owned = byOwner.get(row.ownerId);
    if (owned === undefined) byOwner.set(row.ownerId, [row]);
    else owned.push(row);
  }
  const wanted = new Set(rows.map((row) => row.envelopeId));
  const records = new Map<string, EnvelopeRecord>();
  await forEachConcurrently([...byOwner.entries()], OWNER_READS_IN_FLIGHT, async ([ownerId, owned]) => {
    for (const record of await services.envelopes.listBetween(ownerId, owned[0]!.envelopeId, owned.at(-1)!.envelopeId)) {
      if (wanted.has(record.id)) records.set(record.id, record);
    }
  });
  return records;
}
