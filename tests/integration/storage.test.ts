/**
 * The storage design against a real Azurite: envelope rows, status index, audit rows, paging,
 * concurrency, invitation counting, and the due index's tables (README "Storage layout").
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { odata, TableClient } from '@azure/data-tables';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { getServices, type Services } from '../../src/lib/services.js';
import { downloadBlob } from '../../src/lib/storage/download.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';
import { EnvelopeChangedError } from '../../src/lib/storage/envelopeRepository.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { newSigner, type AuditEvent, type EnvelopeRecord, type EnvelopeStatus, type RecipientAction } from '../../src/lib/envelopes/model.js';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { recipientActionRow } from '../../src/lib/storage/envelopeRepository.js';
import { createInvitation } from '../../src/lib/auth/invitations.js';
import { hashInvitationCode } from '../../src/lib/storage/invitationRepository.js';
import { DUE_TABLES, DueIndex, dueIndexOf, type DueEntry, type DueKind } from '../../src/lib/storage/dueIndex.js';
import { REMOVAL_DUE_KIND } from '../../src/lib/removal/removeMember.js';
import { LOG_DUE_KIND } from '../../src/lib/transparency/publicLog.js';
import { IDEMPOTENCY_KEY_DUE_KIND } from '../../src/lib/storage/idempotencyKeyRepository.js';
import { OUTBOX_DUE_KIND } from '../../src/lib/notifications/outboxRepository.js';
import { EXPIRY_DUE_KIND, REMINDER_DUE_KIND } from '../../src/lib/envelopes/routing.js';
import { COMPLETION_DUE_KIND } from '../../src/lib/envelopes/complete.js';

let services: Services;

beforeAll(async () => {
  services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: ['*'] });
});

const at = () => new Date().toISOString();

function record(ownerId: string, overrides: Partial<EnvelopeRecord> = {}): EnvelopeRecord {
  const draft = newDraftEnvelope({ actor: { userId: ownerId, email: 'owner@example.com', emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: 'organization-of-the-tests', role: 'owner' as const }, documentName: 'a.pdf', now: new Date() });
  return { ...draft.record, ...overrides };
}

function event(sequence: number, type: AuditEvent['type'] = 'envelope.created'): AuditEvent {
  return { sequence, type, at: at(), actorId: 'actor', actorEmail: 'actor@example.com', ip: null, userAgent: null, apiKeyId: null, details: {} };
}

async function createMany(ownerId: string, count: number): Promise<EnvelopeRecord[]> {
  const records: EnvelopeRecord[] = [];
  for (let index = 0; index < count; index++) {
    const created = record(ownerId);
    await services.envelopes.create(created, event(1));
    records.push(created);
  }
  return records;
}

describe('envelope repository', () => {
  test('reads back exactly what it stored, including 100 signers with long names (split across properties)', async () => {
    const ownerId = randomUUID();
    const signers = Array.from({ length: 100 }, (_, index) => newSigner({
      id: uuidv7(), email: `${'s'.repeat(200)}${index}@example.com`, name: `名前${'ü'.repeat(190)}${index}`, role: 'signer',
    }));
    const created = record(ownerId, { signers });
    await services.envelopes.create(created, event(1));
    expect((await services.envelopes.read(ownerId, created.id))?.record).toEqual(created);
  });

  test('another owner reads nothing', async () => {
    const created = record(randomUUID());
    await services.envelopes.create(created, event(1));
    expect(await services.envelopes.read(randomUUID(), created.id)).toBeNull();
  });

  test('lists newest first, pages with a cursor without gaps or repeats', async () => {
    const ownerId = randomUUID();
    const records = await createMany(ownerId, 7);
    await createMany(randomUUID(), 3);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await services.envelopes.list(ownerId, { limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      expect(page.records.length).toBeLessThanOrEqual(3);
      seen.push(...page.records.map((entry) => entry.id));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(records.map((entry) => entry.id).reverse());
  });

  test('the status index follows every status change', async () => {
    const ownerId = randomUUID();
    const [first, second] = await createMany(ownerId, 2);
    const stored = (await services.envelopes.read(ownerId, first!.id))!;
    await services.envelopes.replace(stored, { ...stored.record, status: 'sent', version: 2, auditSequence: 2 }, [event(2, 'envelope.sent')]);
    const ids = async (status: EnvelopeStatus) => (await services.envelopes.list(ownerId, { limit: 10, status })).records.map((entry) => entry.id);
    expect(await ids('sent')).toEqual([first!.id]);
    expect(await ids('draft')).toEqual([second!.id]);
    expect((await services.envelopes.list(ownerId, { limit: 10, status: 'sent' })).records[0]!.status).toBe('sent');
  });

  test('of two replaces from the same read, one wins and the other gets EnvelopeChangedError; events stay gapless', async () => {
    const ownerId = randomUUID();
    const [created] = await createMany(ownerId, 1);
    const stored = (await services.envelopes.read(ownerId, created!.id))!;
    const next = { ...stored.record, version: 2, auditSequence: 2 };
    const results = await Promise.allSettled([
      services.envelopes.replace(stored, { ...next, signers: [] }, [event(2, 'envelope.signers_replaced')]),
      services.envelopes.replace(stored, { ...next, status: 'voided' }, [event(2, 'envelope.voided')]),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(EnvelopeChangedError);
    expect((await services.envelopes.events(ownerId, created!.id)).map((entry) => entry.sequence)).toEqual([1, 2]);
  });

  test('the events of one change are stored in as few rows as fit, and read back one by one, gapless', async () => {
    const ownerId = randomUUID();
    const [created] = await createMany(ownerId, 1);
    const stored = (await services.envelopes.read(ownerId, created!.id))!;
    // 101 events with long user agents (a send to 100 recipients): more than one transaction may hold as rows.
    const events = Array.from({ length: 101 }, (_, index) => ({ ...event(index + 2, 'recipient.invited'), userAgent: 'u'.repeat(1024), details: { recipientId: String(index), email: `r${index}@example.com`, resend: false } }));
    await services.envelopes.replace(stored, { ...stored.record, version: 2, auditSequence: 102 }, events);
    const read = await services.envelopes.events(ownerId, created!.id);
    expect(read.map((entry) => entry.sequence)).toEqual(Array.from({ length: 102 }, (_, index) => index + 1));
    expect(read.slice(1)).toEqual(events);
    const rows: string[] = [];
    for await (const entity of services.storage.tables.envelopes.listEntities({ queryOptions: { filter: `PartitionKey eq '${ownerId}'` } })) rows.push(entity.rowKey!);
    const eventRows = rows.filter((row) => row.startsWith('event_'));
    expect(eventRows.length).toBeGreaterThan(1);
    expect(eventRows.length).toBeLessThan(5);
  });

  test('reads event rows and envelope rows of the previous version (one event a row, no recipients fields)', async () => {
    const ownerId = randomUUID();
    const id = uuidv7();
    const inverted = id.replace(/[0-9a-f]/g, (digit) => (15 - Number.parseInt(digit, 16)).toString(16));
    const table = services.storage.tables.envelopes;
    const legacy = {
      partitionKey: ownerId, rowKey: `envelope_${inverted}`, id, ownerId, status: 'draft', documentName: 'old.pdf', blobName: `${id}/old.pdf`,
      createdAt: at(), updatedAt: at(), version: 1, auditSequence: 1, signers: JSON.stringify([{ id: uuidv7(), email: 'old@example.com', name: 'Old', role: 'signer' }]),
    };
    await table.createEntity(legacy);
    await table.createEntity({ partitionKey: ownerId, rowKey: `event_${id}_0000000001`, envelopeId: id, sequence: 1, type: 'envelope.created', at: at(), actorId: ownerId, details: '{"documentName":"old.pdf"}' });
    const read = (await services.envelopes.read(ownerId, id))!.record;
    expect(read).toMatchObject({ fields: [], signingOrder: 'parallel', expiresAt: null, documentSha256: null, ownerEmail: null });
    expect(read.signers[0]).toMatchObject({ routingOrder: 1, status: 'created', lastEmail: null, link: null, remindersSent: 0 });
    expect(await services.envelopes.events(ownerId, id)).toEqual([
      { sequence: 1, type: 'envelope.created', at: expect.any(String), actorId: ownerId, actorEmail: null, ip: null, userAgent: null, apiKeyId: null, details: { documentName: 'old.pdf' } },
    ]);
  });

  test('a recipient\'s action row keeps its values, signature, IP and user agent; 5000-point strokes fit', async () => {
    const ownerId = randomUUID();
    const [created] = await createMany(ownerId, 1);
    const stored = (await services.envelopes.read(ownerId, created!.id))!;
    const strokes = Array.from({ length: 5 }, () => Array.from({ length: 1000 }, () => [Math.random(), Math.random()] as [number, number]));
    const action: RecipientAction = {
      recipientId: uuidv7(), status: 'signed', at: at(), ip: '203.0.113.9', userAgent: 'agent/1.0',
      values: [{ fieldId: uuidv7(), value: { strokes } }, { fieldId: uuidv7(), value: 'x'.repeat(500) }, { fieldId: uuidv7(), value: true }],
      signature: { strokes },
    };
    await services.envelopes.replace(stored, { ...stored.record, version: 2 }, [], [recipientActionRow(stored.record, action)]);
    expect(await services.envelopes.actions(ownerId, created!.id)).toEqual([action]);
  });

  test('a cursor made for another status filter is refused', async () => {
    const ownerId = randomUUID();
    await createMany(ownerId, 3);
    const page = await services.envelopes.list(ownerId, { limit: 1 });
    await expect(services.envelopes.list(ownerId, { limit: 1, status: 'draft', cursor: page.nextCursor! })).rejects.toMatchObject({ code: 'bad_request' });
  });
});

describe('bulk writes (the benchmark\'s seeding)', () => {
  /** Every row of a partition, without what the store adds (ETag, Timestamp), owner ids replaced by `OWNER`. */
  async function rowsOf(ownerId: string): Promise<unknown[]> {
    const rows: unknown[] = [];
    for await (const entity of services.storage.tables.envelopes.listEntities({ queryOptions: { filter: `PartitionKey eq '${ownerId}'` } })) {
      const { etag: _etag, timestamp: _timestamp, ...rest } = entity;
      rows.push(JSON.parse(JSON.stringify(rest).replaceAll(ownerId, 'OWNER')));
    }
    return rows;
  }

  test('createMany writes exactly the rows create writes, for envelopes of several owners, over several transactions', async () => {
    const [one, other, reference] = [randomUUID(), randomUUID(), randomUUID()];
    // 40 envelopes take 120 rows: more than one transaction of 100.
    const items = [...Array.from({ length: 40 }, () => one), ...Array.from({ length: 3 }, () => other)].map((ownerId, index) => ({ record: record(ownerId, { documentName: `d${index}.pdf` }), event: event(1) }));
    await services.envelopes.createMany(items, { concurrency: 3 });
    for (const item of items.filter((entry) => entry.record.ownerId === one)) await services.envelopes.create({ ...item.record, ownerId: reference }, item.event);
    const written = await rowsOf(one);
    expect(written).toHaveLength(120);
    expect(written).toEqual(await rowsOf(reference));
    expect((await services.envelopes.list(other, { limit: 10 })).records.map((entry) => entry.id)).toEqual(items.slice(40).map((entry) => entry.record.id).reverse());
    await expect(services.envelopes.createMany(items.slice(0, 1))).rejects.toMatchObject({ statusCode: 409 });
  });

  test('DueIndex.putMany records what put records, over several transactions and kinds', async () => {
    // Entries far in the future (no sweeper acts on them) of an owner of their own, over more than one
    // transaction of the reminder kind.
    const ownerId = randomUUID();
    const [kind, otherKind] = [REMINDER_DUE_KIND, EXPIRY_DUE_KIND];
    const entries = Array.from({ length: 230 }, (_, index) => ({ kind: index % 10 === 0 ? otherKind : kind, dueAt: new Date(Date.UTC(2090, 0, 1, 0, 0, index)).toISOString(), ownerId, id: uuidv7() }));
    await services.dueIndex.putMany(entries, { concurrency: 2 });
    expect(await dueOf(ownerId, kind)).toEqual(entries.filter((entry) => entry.kind === kind));
    expect(await dueOf(ownerId, otherKind)).toEqual(entries.filter((entry) => entry.kind === otherKind));
    // Re-recording is idempotent, as put is.
    await services.dueIndex.putMany(entries.slice(0, 5));
    expect(await dueOf(ownerId, kind)).toHaveLength(207);
  });
});

/** The entries of `ownerId` of `kind` due by 2100 (every one these tests write), oldest first. */
async function dueOf(ownerId: string, kind: DueKind): Promise<DueEntry[]> {
  return (await services.dueIndex.due(kind, new Date(Date.UTC(2100, 0, 1)).toISOString(), Number.MAX_SAFE_INTEGER)).filter((entry) => entry.ownerId === ownerId);
}

/** A table client of the test Azurite for a table of the test's own (created unless `create` is false). */
async function scratchTable(prefix: string, { create = true } = {}): Promise<TableClient> {
  const table = TableClient.fromConnectionString(process.env.STORAGE_CONNECTION_STRING!, `${prefix}${randomUUID().replaceAll('-', '')}`.slice(0, 63), { allowInsecureConnection: true });
  if (create) await table.createTable();
  return table;
}

/** Every row of `table`, as the legacy table held them: kind, row key, entry. */
async function rowsOf(table: TableClient): Promise<{ partitionKey: string; rowKey: string; dueAt: string; ownerId: string; id: string }[]> {
  const rows = [];
  for await (const { partitionKey, rowKey, dueAt, ownerId, id } of table.listEntities<{ dueAt: string; ownerId: string; id: string }>()) rows.push({ partitionKey: partitionKey!, rowKey: rowKey!, dueAt, ownerId, id });
  return rows;
}

describe('due index: one table per kind of due work', () => {
  const kinds: DueKind[] = [OUTBOX_DUE_KIND, EXPIRY_DUE_KIND, REMINDER_DUE_KIND, COMPLETION_DUE_KIND, IDEMPOTENCY_KEY_DUE_KIND, REMOVAL_DUE_KIND, LOG_DUE_KIND];

  test('each kind has a table of its own, and an entry of one kind is never returned for another', async () => {
    expect(new Set(kinds)).toEqual(new Set(Object.keys(DUE_TABLES)));
    expect(new Set(Object.values(DUE_TABLES)).size).toBe(kinds.length);
    const ownerId = randomUUID();
    const id = uuidv7();
    const dueAt = new Date(Date.UTC(2090, 0, 1)).toISOString();
    // The same owner, id and time for every kind: only the kind tells them apart.
    for (const kind of kinds) await services.dueIndex.put({ kind, dueAt, ownerId, id });
    for (const kind of kinds) {
      expect(await dueOf(ownerId, kind)).toEqual([{ kind, dueAt, ownerId, id }]);
      for (const table of Object.values(DUE_TABLES)) {
        const rows = [];
        for await (const row of services.storage.tables[table].listEntities({ queryOptions: { filter: odata`ownerId eq ${ownerId}` } })) rows.push(row);
        expect(rows.map((row) => row.partitionKey)).toEqual([Object.entries(DUE_TABLES).find(([, name]) => name === table)![0]]);
      }
    }
    await services.dueIndex.remove({ kind: EXPIRY_DUE_KIND, dueAt, ownerId, id });
    expect(await dueOf(ownerId, EXPIRY_DUE_KIND)).toEqual([]);
    for (const kind of kinds.filter((kind) => kind !== EXPIRY_DUE_KIND)) expect(await dueOf(ownerId, kind)).toHaveLength(1);
  });

  test('an unknown kind is a programming error, named, and nothing is written', async () => {
    const unknown = { kind: 'expiries' as DueKind, dueAt: new Date(Date.UTC(2090, 0, 1)).toISOString(), ownerId: randomUUID(), id: uuidv7() };
    const named = /unknown kind "expiries"; the kinds are outbox, expiry, reminder, completion/;
    await expect(services.dueIndex.put(unknown)).rejects.toThrow(named);
    await expect(services.dueIndex.putMany([{ ...unknown, kind: EXPIRY_DUE_KIND }, unknown])).rejects.toThrow(named);
    await expect(services.dueIndex.remove(unknown)).rejects.toThrow(named);
    await expect(services.dueIndex.due(unknown.kind, new Date().toISOString(), 10)).rejects.toThrow(named);
    expect(await dueOf(unknown.ownerId, EXPIRY_DUE_KIND)).toEqual([]);
  });

  describe('moving the legacy single table (dueIndex) of earlier versions', () => {
    /** Entries of every kind, as an earlier version wrote them to its one table (more than a transaction's 100 of one kind). */
    async function legacyWith(count: number): Promise<{ legacy: TableClient; entries: DueEntry[] }> {
      const legacy = await scratchTable('legacyDue');
      // An earlier version's DueIndex: every kind in the one table, PartitionKey = kind.
      const earlier = new DueIndex({ outbox: legacy, expiry: legacy, reminder: legacy, completion: legacy, idempotencyKey: legacy, removal: legacy, log: legacy });
      const ownerId = randomUUID();
      const entries = Array.from({ length: count }, (_, index): DueEntry => ({ kind: kinds[index % 7 === 0 ? index % 4 : 1]!, dueAt: new Date(Date.UTC(2090, 0, 1, 0, 0, index)).toISOString(), ownerId, id: uuidv7() }));
      await earlier.putMany(entries);
      expect(await rowsOf(legacy)).toHaveLength(count);
      return { legacy, entries };
    }

    const sorted = (entries: DueEntry[]) => [...entries].sort((a, b) => (a.dueAt < b.dueAt ? -1 : 1));

    test('moves every entry to the table of its kind and empties the legacy table; then stops looking', async () => {
      const { legacy, entries } = await legacyWith(1150);
      const dueIndex = dueIndexOf({ tables: services.storage.tables, legacyTables: { dueIndex: legacy } });
      expect(await dueIndex.moveLegacyEntries({ concurrency: 3 })).toBe(1150);
      expect(await rowsOf(legacy)).toEqual([]);
      for (const kind of kinds) expect(await dueOf(entries[0]!.ownerId, kind)).toEqual(sorted(entries.filter((entry) => entry.kind === kind)));
      // Found empty: this process never reads the legacy table again, even if something appears there.
      const [late] = entries;
      await legacy.upsertEntity({ partitionKey: late!.kind, rowKey: `${late!.dueAt}_${late!.ownerId}_late`, dueAt: late!.dueAt, ownerId: late!.ownerId, id: 'late' });
      expect(await dueIndex.moveLegacyEntries()).toBe(0);
      expect(await rowsOf(legacy)).toHaveLength(1);
      // A new process (a new DueIndex) does.
      expect(await dueIndexOf({ tables: services.storage.tables, legacyTables: { dueIndex: legacy } }).moveLegacyEntries()).toBe(1);
      await legacy.deleteTable();
    });

    test('two instances moving at once lose nothing and fail nothing', async () => {
      const { legacy, entries } = await legacyWith(450);
      const instances = [1, 2].map(() => dueIndexOf({ tables: services.storage.tables, legacyTables: { dueIndex: legacy } }));
      const moved = await Promise.all(instances.map((instance) => instance.moveLegacyEntries({ concurrency: 2 })));
      expect(moved[0]! + moved[1]!).toBeGreaterThanOrEqual(450);
      expect(await rowsOf(legacy)).toEqual([]);
      for (const kind of kinds) expect(await dueOf(entries[0]!.ownerId, kind)).toEqual(sorted(entries.filter((entry) => entry.kind === kind)));
      await legacy.deleteTable();
    });

    test('a missing legacy table is not an error, and is not created', async () => {
      const legacy = await scratchTable('legacyDue', { create: false });
      expect(await dueIndexOf({ tables: services.storage.tables, legacyTables: { dueIndex: legacy } }).moveLegacyEntries()).toBe(0);
      const named = [];
      for await (const table of services.storage.tableService.listTables({ queryOptions: { filter: odata`TableName eq ${legacy.tableName}` } })) named.push(table.name);
      expect(named).toEqual([]);
    });

    test('rows of no known kind are named and left; the others are moved', async () => {
      const { legacy, entries } = await legacyWith(3);
      await legacy.upsertEntity({ partitionKey: 'webhook', rowKey: `2090-01-01T00:00:00.000Z_${randomUUID()}_x`, dueAt: '2090-01-01T00:00:00.000Z', ownerId: randomUUID(), id: 'x' });
      const dueIndex = dueIndexOf({ tables: services.storage.tables, legacyTables: { dueIndex: legacy } });
      await expect(dueIndex.moveLegacyEntries()).rejects.toThrow(`legacy table ${legacy.tableName} holds rows of no known kind (PartitionKey "webhook")`);
      expect((await rowsOf(legacy)).map((row) => row.partitionKey)).toEqual(['webhook']);
      for (const kind of kinds) expect(await dueOf(entries[0]!.ownerId, kind)).toEqual(entries.filter((entry) => entry.kind === kind));
      // Not found empty: the next call looks again (and says so again).
      await expect(dueIndex.moveLegacyEntries()).rejects.toThrow(/no known kind/);
      await legacy.deleteTable();
    });
  });
});

describe('invitation repository', () => {
  test('stores only the hash of the code', async () => {
    const { code } = await createInvitation({ invitations: services.invitations });
    const rows: Record<string, unknown>[] = [];
    for await (const entity of services.storage.tables.invitations.listEntities()) rows.push(entity);
    expect(rows.some((row) => row.partitionKey === hashInvitationCode(code))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  test('twenty concurrent consumers of a single-use code: exactly one succeeds', async () => {
    const { code } = await createInvitation({ invitations: services.invitations });
    const results = await Promise.all(Array.from({ length: 20 }, () => services.invitations.consume(code, new Date())));
    expect(results.filter((result) => result === 'consumed')).toHaveLength(1);
    expect((await services.invitations.find(code))?.uses).toBe(1);
  });

  test('a released use can be taken again; an expired code cannot be taken', async () => {
    const { code } = await createInvitation({ invitations: services.invitations });
    expect(await services.invitations.consume(code, new Date())).toBe('consumed');
    await services.invitations.release(code);
    expect(await services.invitations.consume(code, new Date())).toBe('consumed');
    const expiring = await createInvitation({ invitations: services.invitations, expiresInSeconds: 60 });
    expect(await services.invitations.consume(expiring.code, new Date(Date.now() + 61_000))).toBe('invalid');
  });
});

describe('downloadBlob: a whole blob in one GET', () => {
  const blobNamed = (name: string) => services.storage.containers.documents.getBlockBlobClient(`download-test/${randomUUID()}/${name}`);
  const uploaded = async (bytes: Uint8Array) => {
    const blob = blobNamed('shared.bin');
    await blob.uploadData(bytes);
    return blob;
  };

  test('returns every byte of an empty, a small and a multi-chunk blob', async () => {
    for (const size of [0, 1, 5 * 1024 * 1024 + 7]) {
      const blob = blobNamed(`size-${size}.bin`);
      const bytes = randomBytes(size);
      await blob.uploadData(bytes);
      const read = await downloadBlob(blob);
      expect(read.byteLength).toBe(size);
      expect(read.equals(bytes)).toBe(true);
    }
  });

  test('lands the bytes in shared memory, so that a message to the seal worker shares them instead of copying', async () => {
    const read = await downloadBlob(await uploaded(randomBytes(1024)));
    expect(read.buffer).toBeInstanceOf(SharedArrayBuffer);
    const { port1, port2 } = new MessageChannel();
    const received = new Promise<Uint8Array>((resolve) => port2.once('message', resolve));
    port1.postMessage(read);
    const other = await received;
    port1.close();
    port2.close();
    // A change through one view shows through the other: one memory, not a copy.
    read[0] = read[0]! ^ 0xff;
    expect(other[0]).toBe(read[0]);
  });

  test('checkSize sees the size before the body and can refuse it', async () => {
    const blob = blobNamed('refused.bin');
    await blob.uploadData(randomBytes(4096));
    const seen: number[] = [];
    await expect(
      downloadBlob(blob, {
        checkSize: (size) => {
          seen.push(size);
          throw new Error('too big for this test');
        },
      }),
    ).rejects.toThrow('too big for this test');
    expect(seen).toEqual([4096]);
  });

  test('a missing blob is the SDK\'s 404', async () => {
    await expect(downloadBlob(blobNamed('missing.bin'))).rejects.toMatchObject({ statusCode: 404 });
  });
});
