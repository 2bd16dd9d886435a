/**
 * The purge log (docs/api.md#the-purge-log): `GET /api/organization/purges`, every purge of the caller's
 * organisation's envelopes, by `DELETE` or by the retention period, newest first, paged as the envelope
 * list is (`limit`, `cursor`, `Link: <...>; rel="next"`). Ids and hashes only: the log names no person
 * and no document.
 */
import type { Actor } from './model.js';
import { DEFAULT_LIST_PAGE, type ListPurgesQuery } from './schemas.js';
import { problem } from '../problems.js';
import type { Services } from '../services.js';
import { encodeCursor } from '../storage/envelopeRepository.js';
import type { PurgeRecord } from '../storage/retentionRepository.js';

/** One purge as `GET /api/organization/purges` shows it. */
export interface PurgeView {
  envelopeId: string;
  /** ISO 8601 UTC with milliseconds: the envelope's `purgedAt`. */
  purgedAt: string;
  /** Lower-case hex SHA-256 of the sealed PDF; `null` for an envelope that was never sealed. */
  sealedSha256: string | null;
  reason: 'retention' | 'delete';
  /** When storage keeps the sealed PDF until its immutability period ends: that date (docs/api.md#sealed-pdfs-are-immutable); else `null`. */
  sealedImmutableUntil: string | null;
}

/**
 * One page of the organisation's purge log, newest first.
 * @throws AppError 400 `invalid-cursor` for a cursor this service did not issue for the purge log
 */
export async function listPurges(services: Pick<Services, 'retention'>, caller: Pick<Actor, 'organizationId'>, query: ListPurgesQuery): Promise<{ purges: PurgeView[]; nextCursor: string | undefined }> {
  const after = query.cursor === undefined ? undefined : purgeRowOf(query.cursor);
  const page = await services.retention.purges(caller.organizationId, query.limit ?? DEFAULT_LIST_PAGE, after);
  return { purges: page.purges.map(toView), nextCursor: page.nextRowKey === undefined ? undefined : encodeCursor(page.nextRowKey) };
}

function toView(purge: PurgeRecord): PurgeView {
  return { envelopeId: purge.envelopeId, purgedAt: purge.purgedAt, sealedSha256: purge.sealedSha256, reason: purge.reason, sealedImmutableUntil: purge.sealedImmutableUntil };
}

/**
 * The purge log RowKey a cursor names (the envelope list's encoding of a RowKey).
 * @throws AppError 400 `invalid-cursor` for anything else
 */
function purgeRowOf(cursor: string): string {
  const rowKey = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!/^[0-9]{15}_[0-9a-f-]{36}$/.test(rowKey)) throw problem('invalidCursor');
  return rowKey;
}
