/**
 * Idempotency keys, in table `envelopes` (docs/api.md#idempotency, the IETF `Idempotency-Key` header
 * draft): PartitionKey = the owner's user id, RowKey = `idempotency_` + the key as sent
 * ({@link textKey}-encoded), so keys of different owners never meet and every lookup is one point
 * read. They share the owner's partition with the envelopes so that an endpoint whose change is one
 * transaction there can write the claim in that transaction (`idempotentClaim.ts`).
 *
 * A row is first a claim (`state: running`), inserted before the request's work starts; the insert
 * is insert-only, so of two requests with the same key, on any instances, exactly one gets it. When
 * the work answers, the claim becomes the kept answer (`state: done`), written with the claim's ETag.
 *
 * Row properties: `state`, `fingerprint` (SHA-256 of method, path and body bytes, base64url),
 * `method`, `path`, `claimedAt`, `leaseUntil` (ISO times: until when the claiming process may still
 * be working), `expiresAt` (ISO: when the key is forgotten); a kept answer adds `status`, `headers`
 * (JSON object, lower-case names), `body` (text, split by `longText.ts` when long; absent for none)
 * and `bodyEncoding` (`base64` for a byte body).
 *
 * Table Storage deletes nothing by itself. An owner's kept answers that expire within the same
 * hour share one due entry (kind {@link IDEMPOTENCY_KEY_DUE_KIND}, due at the end of that hour, id
 * {@link EXPIRED_KEYS_DUE_ID}), written by the first of them on each instance (a process remembers
 * which it wrote), so keeping an answer costs one storage write, not two; the sweeper then deletes
 * every row of the owner whose `expiresAt` has passed ({@link IdempotencyKeyRepository.forgetExpired}),
 * claims left by an interrupted request included. A row past its `expiresAt` counts as absent before
 * that (the next claim replaces it).
 */
import { odata, type TableClient } from '@azure/data-tables';
import { LruCache } from '../lruCache.js';
import { CONFLICT_ATTEMPTS, LostRaceError, retryOnConflict } from '../retryOnConflict.js';
import type { DueIndex } from './dueIndex.js';
import { GroupCommit } from './groupCommit.js';
import { textKey, storageStatus } from './keys.js';
import { readLongText, writeLongText } from './longText.js';

/** An answer as kept for replay: what went on the wire, headers with lower-case names. */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as sent: text, or bytes; `null` for none. */
  body: string | Uint8Array | null;
}

/** What a request with a key is: the same method, path and body bytes give the same fingerprint. */
export interface IdempotentRequest {
  fingerprint: string;
  method: string;
  path: string;
}

interface RowCommon extends IdempotentRequest {
  /** When the key is forgotten (claim time + the retention), ISO 8601. */
  expiresAt: string;
  etag: string;
}

/** A claim: the first request with the key is running, or its process died before it answered. */
export interface RunningKey extends RowCommon {
  state: 'running';
  claimedAt: string;
  /** Until when the claiming process may still be working, ISO 8601; after it, that process is gone. */
  leaseUntil: string;
}

/** The first request's answer, kept. */
export interface DoneKey extends RowCommon {
  state: 'done';
  answer: KeptAnswer;
}

export type IdempotencyKeyRow = RunningKey | DoneKey;

export type ClaimResult = { claimed: true; etag: string } | { claimed: false; existing: IdempotencyKeyRow };

export interface ClaimOptions extends IdempotentRequest {
  now: Date;
  /** How long the key is kept, seconds. */
  retentionSeconds: number;
  /** How long the claim holds before its process counts as gone, seconds. */
  leaseSeconds: number;
}

type Entity = Record<string, unknown> & { partitionKey: string; rowKey: string; etag?: string };

/** The due index's kind for kept answers to delete once expired (`dueIndex.ts`). */
export const IDEMPOTENCY_KEY_DUE_KIND = 'idempotencyKey';
/** The id of an owner's due entries: they name the owner's expired keys, not one key. */
export const EXPIRED_KEYS_DUE_ID = 'expiredKeys';
/** Due entries (owner and hour) a process remembers having written. */
const SCHEDULED_REMEMBERED = 10_000;
/** Rows {@link IdempotencyKeyRepository.forgetExpired} deletes for one due entry in one call. */
const FORGET_LIMIT = 1000;

/** The end of the UTC hour `at` (ISO 8601) falls in: when the keys expiring in that hour are deleted. */
export function expiryHourEnd(at: string): string {
  const hour = 3600_000;
  return new Date(Math.floor(Date.parse(at) / hour) * hour + hour).toISOString();
}

/** The RowKeys' prefix: the rows share the owner's partition of table `envelopes`. */
const ROW_PREFIX = 'idempotency_';

/** The RowKey of `key`'s row. */
export function idempotencyRowKey(key: string): string {
  return ROW_PREFIX + textKey(key);
}

export class IdempotencyKeyRepository {
  /** `<ownerId> <dueAt>` of the due entries this process wrote. */
  private readonly scheduled = new LruCache<string, true>(SCHEDULED_REMEMBERED);
  /** Claims, kept answers and releases: an owner's concurrent writes go out as one transaction. */
  private readonly writes: GroupCommit;

  constructor(
    private readonly table: TableClient,
    private readonly dueIndex: DueIndex,
  ) {
    this.writes = new GroupCommit(table);
  }

  /**
   * Claims `key` for `ownerId` before the request's work starts: inserts a `running` row, or replaces
   * a row whose `expiresAt` has passed (with its ETag). Otherwise returns the row that holds the key.
   * A row that vanished or changed under the claim is read again (`../retryOnConflict.ts`).
   * @returns `{claimed: true, etag}` when this request may run; else the existing row (done, or running)
   * @throws storage errors other than the insert's conflict; Error when the row kept changing through every round
   */
  async claim(ownerId: string, key: string, options: ClaimOptions): Promise<ClaimResult> {
    const entity = claimEntity(ownerId, key, options);
    return await retryOnConflict<ClaimResult>(async () => {
      try {
        return { claimed: true, etag: (await this.writes.write({ kind: 'create', entity }))! };
      } catch (error) {
        if (storageStatus(error) !== 409) throw error;
      }
      const existing = await this.read(ownerId, key);
      // Released or expired and deleted meanwhile: insert again.
      if (existing === null) throw new LostRaceError('The idempotency key row');
      if (Date.parse(existing.expiresAt) > options.now.getTime()) return { claimed: false, existing };
      try {
        return { claimed: true, etag: (await this.writes.write({ kind: 'update', entity, mode: 'Replace', etag: existing.etag }))! };
      } catch (error) {
        const status = storageStatus(error);
        if (status === 412 || status === 404) throw new LostRaceError('The idempotency key row');
        throw error;
      }
    }, {
      exhausted: () => {
        throw new Error(`The idempotency key row of ${ownerId} kept changing during ${CONFLICT_ATTEMPTS} claims.`);
      },
    });
  }

  /**
   * The claim row {@link claim} inserts, for a transaction of the request's own to insert instead
   * (`idempotentClaim.ts`); the ETag it gets there is the claim's.
   */
  claimRow(ownerId: string, key: string, options: ClaimOptions): Entity {
    return claimEntity(ownerId, key, options);
  }

  /** The row of `key`, or `null`. One point read. */
  async read(ownerId: string, key: string): Promise<IdempotencyKeyRow | null> {
    try {
      return fromEntity(await this.table.getEntity<Entity>(ownerId, idempotencyRowKey(key)));
    } catch (error) {
      if (storageStatus(error) === 404) return null;
      throw error;
    }
  }

  /**
   * The row of a kept answer (`state: done`), for {@link keep} to write over the claim, or for a
   * transaction of the request's own to insert as its claim (`idempotentClaim.ts`): the answer then
   * lands with the work, and the key is never left as a bare claim.
   */
  doneRow(ownerId: string, key: string, row: IdempotentRequest & { expiresAt: string; answer: KeptAnswer }): Entity {
    const entity: Entity = {
      partitionKey: ownerId,
      rowKey: idempotencyRowKey(key),
      state: 'done',
      fingerprint: row.fingerprint,
      method: row.method,
      path: row.path,
      expiresAt: row.expiresAt,
      status: row.answer.status,
      headers: JSON.stringify(row.answer.headers),
    };
    const body = row.answer.body;
    if (body instanceof Uint8Array) {
      writeLongText(entity, 'body', Buffer.from(body).toString('base64'));
      entity.bodyEncoding = 'base64';
    } else if (body !== null) {
      writeLongText(entity, 'body', body);
    }
    return entity;
  }

  /**
   * Turns the claim (`etag`) into the kept answer, and makes sure the sweeper deletes it after
   * `expiresAt` ({@link scheduleForgetting}).
   * @returns `false` when the claim is no longer this request's (its row changed or is gone)
   * @throws storage errors (an answer too large for one entity, 1 MiB, among them)
   */
  async keep(ownerId: string, key: string, etag: string, row: IdempotentRequest & { expiresAt: string; answer: KeptAnswer }): Promise<boolean> {
    try {
      await Promise.all([this.writes.write({ kind: 'update', entity: this.doneRow(ownerId, key, row), mode: 'Replace', etag }), this.scheduleForgetting(ownerId, row.expiresAt)]);
      return true;
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 404) return false;
      throw error;
    }
  }

  /**
   * Makes sure the sweeper deletes the owner's rows that expire at `expiresAt`: the owner's due entry
   * of the end of that hour, written unless this process wrote it already (then no storage request).
   * @throws storage errors
   */
  async scheduleForgetting(ownerId: string, expiresAt: string): Promise<void> {
    const dueAt = expiryHourEnd(expiresAt);
    const scheduledKey = `${ownerId} ${dueAt}`;
    if (this.scheduled.find(scheduledKey) !== undefined) return;
    await this.dueIndex.put({ kind: IDEMPOTENCY_KEY_DUE_KIND, dueAt, ownerId, id: EXPIRED_KEYS_DUE_ID });
    this.scheduled.set(scheduledKey, true);
  }

  /**
   * Deletes the owner's rows whose `expiresAt` has passed by `now`, at most 1000 (each with its ETag:
   * a row a later request claimed since, with a new `expiresAt`, stays).
   * @returns whether every expired row is gone (`false`: more remain for another call)
   */
  async forgetExpired(ownerId: string, now: Date): Promise<boolean> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey gt ${ROW_PREFIX} and RowKey lt ${`${ROW_PREFIX}~`} and expiresAt le ${now.toISOString()}`;
    let deleted = 0;
    for await (const entity of this.table.listEntities<Entity>({ queryOptions: { filter, select: ['RowKey', 'expiresAt'] } })) {
      if (deleted >= FORGET_LIMIT) return false;
      try {
        await this.table.deleteEntity(ownerId, entity.rowKey, { etag: entity.etag! });
      } catch (error) {
        const status = storageStatus(error);
        if (status !== 412 && status !== 404) throw error;
      }
      deleted++;
    }
    return true;
  }

  /**
   * Takes over the claim `existing` left by a request whose lease passed (its process died), for an
   * endpoint that runs again under the same claim (`idempotency: 'resumable'`, docs/api.md#idempotency):
   * the row keeps its `claimedAt` and `expiresAt` (what the run's ids derive from) and gets a new lease
   * of `leaseSeconds` from `now`. ETag-conditional, so of two retries exactly one takes it.
   * @returns the claim's new ETag, or `null` when another request changed or removed the row first
   * @throws storage errors other than that
   */
  async takeOver(ownerId: string, key: string, existing: RunningKey, options: { now: Date; leaseSeconds: number }): Promise<string | null> {
    const entity: Entity = {
      partitionKey: ownerId,
      rowKey: idempotencyRowKey(key),
      state: 'running',
      fingerprint: existing.fingerprint,
      method: existing.method,
      path: existing.path,
      claimedAt: existing.claimedAt,
      leaseUntil: new Date(options.now.getTime() + options.leaseSeconds * 1000).toISOString(),
      expiresAt: existing.expiresAt,
    };
    try {
      return (await this.writes.write({ kind: 'update', entity, mode: 'Replace', etag: existing.etag }))!;
    } catch (error) {
      const status = storageStatus(error);
      if (status === 412 || status === 404) return null;
      throw error;
    }
  }

  /**
   * Ends the lease of the claim (`etag`) now, keeping the row: the next request with the key takes it
   * over at once and runs again under the same claim ({@link takeOver}). For a resumable endpoint's
   * answer that is not kept (5xx, 429), where deleting the claim would give the retry other ids.
   * Nothing when the claim is no longer this request's.
   * @throws storage errors
   */
  async endLease(ownerId: string, key: string, etag: string, now: Date): Promise<void> {
    try {
      await this.writes.write({ kind: 'update', entity: { partitionKey: ownerId, rowKey: idempotencyRowKey(key), leaseUntil: now.toISOString() }, mode: 'Merge', etag });
    } catch (error) {
      const status = storageStatus(error);
      if (status !== 412 && status !== 404) throw error;
    }
  }

  /** Deletes the claim (`etag`), so that a retry runs again; nothing when it is no longer this request's. */
  async release(ownerId: string, key: string, etag: string): Promise<void> {
    try {
      await this.writes.write({ kind: 'delete', partitionKey: ownerId, rowKey: idempotencyRowKey(key), etag });
    } catch (error) {
      const status = storageStatus(error);
      if (status !== 412 && status !== 404) throw error;
    }
  }
}

function claimEntity(ownerId: string, key: string, options: ClaimOptions): Entity {
  const now = options.now.getTime();
  return {
    partitionKey: ownerId,
    rowKey: idempotencyRowKey(key),
    state: 'running',
    fingerprint: options.fingerprint,
    method: options.method,
    path: options.path,
    claimedAt: options.now.toISOString(),
    leaseUntil: new Date(now + options.leaseSeconds * 1000).toISOString(),
    expiresAt: new Date(now + options.retentionSeconds * 1000).toISOString(),
  };
}

function fromEntity(entity: Entity): IdempotencyKeyRow {
  const common = {
    fingerprint: String(entity.fingerprint),
    method: String(entity.method),
    path: String(entity.path),
    expiresAt: String(entity.expiresAt),
    etag: entity.etag!,
  };
  if (entity.state !== 'done') {
    return { ...common, state: 'running', claimedAt: String(entity.claimedAt), leaseUntil: String(entity.leaseUntil) };
  }
  const hasBody = entity.body !== undefined || entity.bodyParts !== undefined;
  const text = hasBody ? readLongText(entity, 'body') : null;
  const body = text !== null && entity.bodyEncoding === 'base64' ? new Uint8Array(Buffer.from(text, 'base64')) : text;
  return {
    ...common,
    state: 'done',
    answer: { status: Number(entity.status), headers: JSON.parse(String(entity.headers)) as Record<string, string>, body },
  };
}
