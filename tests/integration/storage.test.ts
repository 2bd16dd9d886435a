/**
 * The storage design against a real Azurite: envelope rows, status index, audit rows, paging,
 * concurrency, and invitation counting (README "Storage layout").
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { getServices, type Services } from '../../src/lib/services.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';
import { EnvelopeChangedError } from '../../src/lib/storage/envelopeRepository.js';
import { uuidv7 } from '../../src/lib/ids.js';
import type { AuditEvent, EnvelopeRecord, EnvelopeStatus } from '../../src/lib/envelopes/model.js';
import { createInvitation } from '../../src/lib/auth/invitations.js';
import { hashInvitationCode } from '../../src/lib/storage/invitationRepository.js';

let services: Services;

beforeAll(async () => {
  services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: ['*'] });
});

const at = () => new Date().toISOString();

function record(ownerId: string, overrides: Partial<EnvelopeRecord> = {}): EnvelopeRecord {
  const id = uuidv7();
  return {
    id, ownerId, status: 'draft', documentName: 'a.pdf', blobName: `${id}/a.pdf`, signers: [], createdAt: at(), updatedAt: at(),
    completedAt: null, hash: null, originalSha256: null, version: 1, auditSequence: 1, ...overrides,
  };
}

function event(sequence: number, type: AuditEvent['type'] = 'envelope.created'): AuditEvent {
  return { sequence, type, at: at(), actorId: 'actor', ip: null, userAgent: null, details: {} };
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
    const signers = Array.from({ length: 100 }, (_, index) => ({
      id: uuidv7(), email: `${'s'.repeat(200)}${index}@example.com`, name: `名前${'ü'.repeat(190)}${index}`, role: 'signer' as const,
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

  test('a cursor made for another status filter is refused', async () => {
    const ownerId = randomUUID();
    await createMany(ownerId, 3);
    const page = await services.envelopes.list(ownerId, { limit: 1 });
    await expect(services.envelopes.list(ownerId, { limit: 1, status: 'draft', cursor: page.nextCursor! })).rejects.toMatchObject({ code: 'bad_request' });
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
