/**
 * List Envelopes (docs/api.md#list-envelopes): the caller's envelopes, newest first, paged.
 */
import type { Services } from '../services.js';
import type { EnvelopeView } from './model.js';
import { DEFAULT_LIST_PAGE, type ListEnvelopesQuery } from './schemas.js';
import { toEnvelopeView } from './view.js';

/** Page size without `limit` (docs/api.md#list-envelopes). */
export const DEFAULT_LIMIT = DEFAULT_LIST_PAGE;

export interface ListEnvelopesOptions {
  services: Services;
  ownerId: string;
  query: ListEnvelopesQuery;
}

export interface EnvelopeListPage {
  envelopes: EnvelopeView[];
  /** Cursor of the next page, when more exist. */
  nextCursor: string | undefined;
}

/**
 * One page of the owner's envelopes.
 * @throws AppError 400 for a cursor that this service did not issue for the same `status`
 */
export async function listEnvelopes({ services, ownerId, query }: ListEnvelopesOptions): Promise<EnvelopeListPage> {
  const page = await services.envelopes.list(ownerId, {
    limit: query.limit ?? DEFAULT_LIMIT,
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
  });
  const envelopes = await Promise.all(page.records.map((record) => toEnvelopeView(record, services.storage.sas)));
  return { envelopes, nextCursor: page.nextCursor };
}
