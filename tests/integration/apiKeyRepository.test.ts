/**
 * The API key repository against a real Azurite, with clocks the tests move: how long a key deleted
 * by another instance keeps working there (bounded by API_KEY_CACHE_MS, under the 60 s of
 * docs/api.md#api-keys), and `lastUsedAt` written at most once a minute per key, across instances, without a storage
 * write per request.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { apiKeySha256 } from '../../src/lib/auth/apiKeys.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { getServices, type Services } from '../../src/lib/services.js';
import { API_KEY_CACHE_MS, ApiKeyRepository, LAST_USED_INTERVAL_MS, type ApiKeyRecord } from '../../src/lib/storage/apiKeyRepository.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';

let services: Services;

beforeAll(async () => {
  services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: ['*'] });
});

function newRecord(): { record: ApiKeyRecord; key: string } {
  const key = `esk_${randomUUID().replaceAll('-', '')}${'k'.repeat(11)}`;
  const record: ApiKeyRecord = {
    id: uuidv7(),
    ownerId: randomUUID(),
    name: 'test',
    prefix: key.slice(0, 12),
    keySha256: apiKeySha256(key),
    createdAt: new Date().toISOString(),
    expiresAt: null,
    lastUsedAt: null,
  };
  return { record, key };
}

describe('findForAuthentication', () => {
  test('the cache lifetime keeps the promise of 60 s', () => {
    expect(API_KEY_CACHE_MS).toBeLessThanOrEqual(60_000);
  });

  test('a key deleted by another instance is refused once API_KEY_CACHE_MS has passed, not later', async () => {
    let now = 1_000_000;
    const thisInstance = new ApiKeyRepository(services.storage.tables.apiKeys, () => now);
    const otherInstance = new ApiKeyRepository(services.storage.tables.apiKeys);
    const { record } = newRecord();
    expect(await otherInstance.create(record, 'owner@example.com', 20)).toBe(true);
    const found = { id: record.id, ownerId: record.ownerId, ownerEmail: 'owner@example.com', expiresAt: null };
    expect(await thisInstance.findForAuthentication(record.keySha256)).toEqual(found);

    expect(await otherInstance.delete(record.ownerId, record.id)).toBe(true);
    now += API_KEY_CACHE_MS - 1;
    expect(await thisInstance.findForAuthentication(record.keySha256)).toEqual(found);
    now += 1;
    expect(await thisInstance.findForAuthentication(record.keySha256)).toBeNull();
  });

  test('a key deleted through the same instance is refused at once', async () => {
    const keys = new ApiKeyRepository(services.storage.tables.apiKeys);
    const { record } = newRecord();
    await keys.create(record, 'owner@example.com', 20);
    expect(await keys.findForAuthentication(record.keySha256)).not.toBeNull();
    await keys.delete(record.ownerId, record.id);
    expect(await keys.findForAuthentication(record.keySha256)).toBeNull();
  });

  test('a key refused by the limit leaves nothing that authenticates', async () => {
    const keys = new ApiKeyRepository(services.storage.tables.apiKeys);
    const first = newRecord().record;
    const second = { ...newRecord().record, ownerId: first.ownerId };
    expect(await keys.create(first, 'owner@example.com', 1)).toBe(true);
    expect(await keys.create(second, 'owner@example.com', 1)).toBe(false);
    expect(await keys.findForAuthentication(second.keySha256)).toBeNull();
    expect((await keys.list(first.ownerId)).map((key) => key.id)).toEqual([first.id]);
  });
});

describe('recordUse', () => {
  test('writes lastUsedAt at the first use, then not again until a minute has passed, across instances', async () => {
    let now = Date.parse('2026-11-22T10:00:00.000Z');
    const clock = () => now;
    const table = services.storage.tables.apiKeys;
    const first = new ApiKeyRepository(table, clock);
    const second = new ApiKeyRepository(table, clock);
    const { record } = newRecord();
    await first.create(record, 'owner@example.com', 20);
    const etag = async () => (await table.getEntity(record.ownerId, `apikey_${record.id}`)).etag;

    expect(await first.recordUse(record.ownerId, record.id)).toBe(true);
    expect((await first.read(record.ownerId, record.id))!.lastUsedAt).toBe('2026-11-22T10:00:00.000Z');
    const written = await etag();

    // Within the minute: no write on either instance, whatever the number of requests; the instance
    // that wrote does not even read, the other reads once and then neither.
    now = Date.parse('2026-11-22T10:00:01.000Z');
    expect(first.recordUse(record.ownerId, record.id)).toBeUndefined();
    expect(await second.recordUse(record.ownerId, record.id)).toBe(false);
    for (const seconds of [10, 30, 59]) {
      now = Date.parse('2026-11-22T10:00:00.000Z') + seconds * 1000;
      expect(first.recordUse(record.ownerId, record.id)).toBeUndefined();
      expect(second.recordUse(record.ownerId, record.id)).toBeUndefined();
    }
    expect(await etag()).toBe(written);

    // A minute after the write: the one write of this minute goes to whichever instance comes first.
    now = Date.parse('2026-11-22T10:00:00.000Z') + LAST_USED_INTERVAL_MS;
    const writes = await Promise.all([first.recordUse(record.ownerId, record.id), second.recordUse(record.ownerId, record.id)]);
    expect(writes.filter(Boolean)).toHaveLength(1);
    expect((await first.read(record.ownerId, record.id))!.lastUsedAt).toBe('2026-11-22T10:01:00.000Z');
  });

  test('leaves a deleted key alone', async () => {
    const keys = new ApiKeyRepository(services.storage.tables.apiKeys);
    const { record } = newRecord();
    await keys.create(record, 'owner@example.com', 20);
    await keys.delete(record.ownerId, record.id);
    expect(await keys.recordUse(record.ownerId, record.id)).toBe(false);
    expect(await keys.read(record.ownerId, record.id)).toBeNull();
  });
});
