/**
 * API keys, table `apiKeys` (docs/api.md#api-keys). Two kinds of rows:
 *
 * - PartitionKey = the owner's user id: RowKey `apikey_<id>` for each key (`id`, `name`, `prefix`,
 *   `keySha256`, `createdAt`, `expiresAt` and `lastUsedAt`, absent for none), and `count` for the
 *   number of keys the owner has ({@link CountedRows}: concurrent creations never pass the limit).
 * - PartitionKey = `sha256_<hex SHA-256 of the key>`, RowKey `key`: what a request with the key is
 *   authenticated by (`id`, `ownerId`, `ownerEmail`, `expiresAt`), one point read.
 *
 * No key is ever stored, only its SHA-256. The two rows of a key are in different partitions, so no
 * transaction holds both: creation writes the lookup row first and removes it again when the owner
 * is at the limit (a crash in between leaves a row for a key nobody was ever shown), and deletion
 * removes the lookup row first, so the key stops working before it leaves the list.
 *
 * Lookups are answered from memory for {@link API_KEY_CACHE_MS} after a read found the key
 * ({@link RecentLookups}), so a key deleted on another instance is refused there within that time,
 * and at once on the instance that deleted it. `lastUsedAt` is written at most once a minute per key
 * ({@link LAST_USED_INTERVAL_MS}), across instances: each instance reads the row at most once a
 * minute per key, and writes only when the stored time is a minute old, with the row's ETag.
 */
import { odata, type TableClient } from '@azure/data-tables';
import { AppError } from '../errors.js';
import { RecentLookups } from '../recentLookups.js';
import { CountedRows } from './countedRows.js';
import { entityOrNull, ownedRow, storageStatus } from './keys.js';
import { problem } from '../problems.js';

/**
 * How long an instance answers a key's lookup from memory after reading it, milliseconds: the longest
 * a key deleted on another instance keeps working there (docs/api.md#api-keys allows 60 s).
 */
export const API_KEY_CACHE_MS = 15_000;
/** Most keys an instance remembers at once (the oldest go first). */
export const API_KEY_CACHE_ENTRIES = 10_000;
/** Shortest time between two writes of a key's `lastUsedAt`, milliseconds (docs/api.md#api-keys). */
export const LAST_USED_INTERVAL_MS = 60_000;

const PREFIX = 'apikey_';
const LOOKUP_ROW = 'key';

/** A key as stored (never the key itself). */
export interface ApiKeyRecord {
  id: string;
  ownerId: string;
  name: string;
  /** The key's first 12 characters (`esk_` and 8 more). */
  prefix: string;
  /** Lower-case hex SHA-256 of the key. */
  keySha256: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** What a request with a key needs: whose key it is, and until when it works. */
export interface ApiKeyLookup {
  id: string;
  ownerId: string;
  ownerEmail: string;
  expiresAt: string | null;
}

type ApiKeyEntity = {
  partitionKey: string;
  rowKey: string;
  id: string;
  name: string;
  prefix: string;
  keySha256: string;
  createdAt: string;
  expiresAt?: string;
  lastUsedAt?: string;
};

type LookupEntity = {
  partitionKey: string;
  rowKey: string;
  id: string;
  ownerId: string;
  ownerEmail: string;
  expiresAt?: string;
};

function lookupPartition(keySha256: string): string {
  return `sha256_${keySha256}`;
}

function contended(): AppError {
  return problem('apikeysContended');
}

export class ApiKeyRepository {
  private readonly counted: CountedRows;
  private readonly lookups: RecentLookups<ApiKeyLookup>;
  /** Per key id: the earliest time (epoch ms) this instance looks at the key's `lastUsedAt` again. */
  private readonly nextUseCheck = new Map<string, number>();

  /** @param now the clock, epoch milliseconds (tests move it) */
  constructor(
    private readonly table: TableClient,
    private readonly now: () => number = Date.now,
  ) {
    this.counted = new CountedRows(table, contended);
    this.lookups = new RecentLookups<ApiKeyLookup>(API_KEY_CACHE_MS, API_KEY_CACHE_ENTRIES, now);
  }

  /**
   * Stores a new key, and counts it, if its owner has fewer than `limit`.
   * @param ownerEmail the owner's address: requests with the key act as this account while it exists
   * @returns `false` (nothing kept) when the owner already has `limit` keys
   * @throws AppError 409 `apikeys-contended` when concurrent changes kept winning
   */
  async create(key: ApiKeyRecord, ownerEmail: string, limit: number): Promise<boolean> {
    const lookup: LookupEntity = {
      partitionKey: lookupPartition(key.keySha256),
      rowKey: LOOKUP_ROW,
      id: key.id,
      ownerId: key.ownerId,
      ownerEmail,
      ...(key.expiresAt === null ? {} : { expiresAt: key.expiresAt }),
    };
    await this.table.createEntity(lookup);
    let counted = false;
    try {
      counted = await this.counted.insert(toEntity(key), limit);
    } finally {
      if (!counted) await this.deleteLookup(key.keySha256);
    }
    return counted;
  }

  /** The owner's keys, newest first (ids are UUIDv7). */
  async list(ownerId: string): Promise<ApiKeyRecord[]> {
    const filter = odata`PartitionKey eq ${ownerId} and RowKey ge ${PREFIX} and RowKey lt ${`${PREFIX}~`}`;
    const keys: ApiKeyRecord[] = [];
    for await (const entity of this.table.listEntities<ApiKeyEntity>({ queryOptions: { filter } })) keys.push(fromEntity(ownerId, entity));
    return keys.reverse();
  }

  /** The owner's key with this id, or `null` (also for another owner's). */
  async read(ownerId: string, id: string): Promise<ApiKeyRecord | null> {
    const entity = await entityOrNull<ApiKeyEntity>(this.table, ownerId, PREFIX + id);
    return entity === null ? null : fromEntity(ownerId, entity);
  }

  /**
   * Deletes the owner's key: first what authenticates it (so it stops working at once here, and
   * within {@link API_KEY_CACHE_MS} everywhere), then its row, uncounted.
   * @returns `false` when the owner has no key with this id
   * @throws AppError 409 `apikeys-contended` when concurrent changes kept winning
   */
  async delete(ownerId: string, id: string): Promise<boolean> {
    const key = await this.read(ownerId, id);
    if (key === null) return false;
    await this.deleteLookup(key.keySha256);
    return await this.counted.delete(ownerId, PREFIX + id);
  }

  /**
   * The key with this SHA-256, for authenticating a request: as stored, or from memory when read
   * less than {@link API_KEY_CACHE_MS} ago (concurrent lookups of one key share one read); `null`
   * when there is none (never remembered).
   */
  async findForAuthentication(keySha256: string): Promise<ApiKeyLookup | null> {
    return await this.lookups.get(keySha256, async () => {
      try {
        const entity = await this.table.getEntity<LookupEntity>(lookupPartition(keySha256), LOOKUP_ROW);
        return { id: entity.id, ownerId: entity.ownerId, ownerEmail: entity.ownerEmail, expiresAt: entity.expiresAt ?? null };
      } catch (error) {
        if (storageStatus(error) === 404) return null;
        throw error;
      }
    });
  }

  /**
   * Records that a request used the key now, without a storage write per request: at most one read
   * per {@link LAST_USED_INTERVAL_MS} per key on this instance, and a write (conditional on the row's
   * ETag) only when the stored `lastUsedAt` is absent or at least that old, so across instances the
   * stored time changes at most once per interval. A key deleted meanwhile is left alone.
   * @returns `undefined` at once (no storage request, no promise: this runs on every request with a
   *   key) when this instance looked at the key less than an interval ago; else whether it wrote
   */
  recordUse(ownerId: string, id: string): Promise<boolean> | undefined {
    const now = this.now();
    if ((this.nextUseCheck.get(id) ?? 0) > now) return undefined;
    if (this.nextUseCheck.size >= API_KEY_CACHE_ENTRIES) this.nextUseCheck.delete(this.nextUseCheck.keys().next().value!);
    this.nextUseCheck.set(id, now + LAST_USED_INTERVAL_MS);
    return this.writeLastUsed(ownerId, id, now);
  }

  private async writeLastUsed(ownerId: string, id: string, now: number): Promise<boolean> {
    let entity;
    try {
      entity = await this.table.getEntity<ApiKeyEntity>(ownerId, PREFIX + id);
    } catch (error) {
      if (storageStatus(error) === 404) return false;
      throw error;
    }
    const stored = entity.lastUsedAt === undefined ? null : Date.parse(entity.lastUsedAt);
    if (stored !== null && now - stored < LAST_USED_INTERVAL_MS) {
      // Another instance wrote it recently: look again once that write is an interval old.
      this.nextUseCheck.set(id, stored + LAST_USED_INTERVAL_MS);
      return false;
    }
    try {
      await this.table.updateEntity({ partitionKey: ownerId, rowKey: PREFIX + id, lastUsedAt: new Date(now).toISOString() }, 'Merge', { etag: entity.etag });
      return true;
    } catch (error) {
      // 412: another instance wrote it first; 404: the key was deleted meanwhile.
      if (storageStatus(error) === 412 || storageStatus(error) === 404) return false;
      throw error;
    }
  }

  private async deleteLookup(keySha256: string): Promise<void> {
    this.lookups.forget(keySha256);
    try {
      await this.table.deleteEntity(lookupPartition(keySha256), LOOKUP_ROW);
    } catch (error) {
      if (storageStatus(error) !== 404) throw error;
    } finally {
      // A lookup that read the row before it was deleted may have been remembered meanwhile.
      this.lookups.forget(keySha256);
    }
  }
}

function toEntity(key: ApiKeyRecord): ApiKeyEntity {
  return {
    ...ownedRow(PREFIX, key),
    name: key.name,
    prefix: key.prefix,
    keySha256: key.keySha256,
    createdAt: key.createdAt,
    ...(key.expiresAt === null ? {} : { expiresAt: key.expiresAt }),
    ...(key.lastUsedAt === null ? {} : { lastUsedAt: key.lastUsedAt }),
  };
}

function fromEntity(ownerId: string, entity: ApiKeyEntity): ApiKeyRecord {
  return {
    id: entity.id,
    ownerId,
    name: entity.name,
    prefix: entity.prefix,
    keySha256: entity.keySha256,
    createdAt: entity.createdAt,
    expiresAt: entity.expiresAt ?? null,
    lastUsedAt: entity.lastUsedAt ?? null,
  };
}
