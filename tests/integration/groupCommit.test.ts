/**
 * Group commit (`src/lib/storage/groupCommit.ts`) against Azurite: concurrent writes of one partition
 * go out together and each gets its own answer, as a plain request would give it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { TableClient } from '@azure/data-tables';
import { GroupCommit } from '../../src/lib/storage/groupCommit.js';
import { storageStatus } from '../../src/lib/storage/keys.js';

let table: TableClient;

beforeAll(async () => {
  table = TableClient.fromConnectionString(process.env.STORAGE_CONNECTION_STRING!, `groupCommit${randomUUID().replaceAll('-', '').slice(0, 12)}`, { allowInsecureConnection: true });
  await table.createTable();
});
afterAll(async () => {
  await table.deleteTable();
});

/** Settles `promise` as `{etag}` or `{status}` of its storage error. */
async function outcome(promise: Promise<string | undefined>): Promise<{ etag?: string; status?: number }> {
  try {
    return { etag: (await promise) ?? '' };
  } catch (error) {
    return { status: storageStatus(error) ?? -1 };
  }
}

describe('GroupCommit', () => {
  test('concurrent inserts of one partition: each gets an ETag that conditions its next update; an insert of an existing row alone gets 409', async () => {
    const writes = new GroupCommit(table);
    const partitionKey = randomUUID();
    await table.createEntity({ partitionKey, rowKey: 'taken', n: 0 });
    const rows = Array.from({ length: 12 }, (_, index) => `row${index}`);
    const created = await Promise.all([...rows, 'taken'].map((rowKey) => outcome(writes.write({ kind: 'create', entity: { partitionKey, rowKey, n: 1 } }))));
    expect(created.at(-1)).toEqual({ status: 409 });
    for (const result of created.slice(0, -1)) expect(result.etag).toMatch(/^W\/"datetime'/);

    const updated = await Promise.all(
      rows.map((rowKey, index) => outcome(writes.write({ kind: 'update', entity: { partitionKey, rowKey, n: 2 }, mode: 'Replace', etag: index === 0 ? 'W/"datetime\'2000-01-01T00%3A00%3A00Z\'"' : created[index]!.etag! }))),
    );
    expect(updated[0]).toEqual({ status: 412 });
    for (const result of updated.slice(1)) expect(result.etag).toMatch(/^W\/"datetime'/);
    // The ETags a transaction answered condition the next writes as a plain request's do.
    const again = await Promise.all(rows.slice(1).map((rowKey, index) => outcome(writes.write({ kind: 'update', entity: { partitionKey, rowKey, n: 2 }, mode: 'Merge', etag: updated[index + 1]!.etag! }))));
    for (const result of again) expect(result.etag).toMatch(/^W\/"datetime'/);
    const fresh = Array.from({ length: 8 }, (_, index) => `fresh${index}`);
    const inserted = await Promise.all(fresh.map((rowKey) => outcome(writes.write({ kind: 'create', entity: { partitionKey, rowKey, n: 1 } }))));
    const replaced = await Promise.all(fresh.map((rowKey, index) => outcome(writes.write({ kind: 'update', entity: { partitionKey, rowKey, n: 2 }, mode: 'Replace', etag: inserted[index]!.etag! }))));
    for (const result of replaced) expect(result.etag).toMatch(/^W\/"datetime'/);
    const stored = new Map<string, unknown>();
    for await (const entity of table.listEntities<{ n: number }>({ queryOptions: { filter: `PartitionKey eq '${partitionKey}'` } })) stored.set(entity.rowKey!, entity.n);
    expect(stored.get('row0')).toBe(1);
    for (const rowKey of [...rows.slice(1), ...fresh]) expect(stored.get(rowKey)).toBe(2);
  });

  test('two inserts of the same row at once: exactly one succeeds; a delete with a stale ETag is refused', async () => {
    const writes = new GroupCommit(table);
    const partitionKey = randomUUID();
    const results = await Promise.all(Array.from({ length: 6 }, () => outcome(writes.write({ kind: 'create', entity: { partitionKey, rowKey: 'same' } }))));
    expect(results.filter((result) => result.etag !== undefined)).toHaveLength(1);
    expect(results.filter((result) => result.status === 409)).toHaveLength(5);
    expect(await outcome(writes.write({ kind: 'delete', partitionKey, rowKey: 'same', etag: 'W/"datetime\'2000-01-01T00%3A00%3A00Z\'"' }))).toEqual({ status: 412 });
    const etag = results.find((result) => result.etag !== undefined)!.etag!;
    expect(await outcome(writes.write({ kind: 'delete', partitionKey, rowKey: 'same', etag }))).toEqual({ etag: '' });
  });
});
