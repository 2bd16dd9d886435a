/**
 * The organisation repository against a real Azurite (docs/api.md#accounts-made-before-organizations):
 * an account gets exactly one organisation however many repositories (instances) make it at once; a
 * process that died between the writes leaves rows the next call completes, never a second
 * organisation; a role change made by one instance is seen by another once its memory of the
 * membership (MEMBERSHIP_CACHE_MS, at most 60 s) runs out, with clocks the test moves. The index of
 * an organisation's envelopes written in bulk (`OrganizationIndex.addMany`) is the one
 * `add` writes row by row.
 */
import { randomUUID } from 'node:crypto';
import { odata } from '@azure/data-tables';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { uuidv7 } from '../../src/lib/ids.js';
import { getServices, type Services } from '../../src/lib/services.js';
import { OrganizationIndex } from '../../src/lib/storage/organizationIndex.js';
import { MEMBERSHIP_CACHE_MS, OrganizationRepository } from '../../src/lib/storage/organizationRepository.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';

let services: Services;

beforeAll(async () => {
  services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: ['*'] });
});

const account = () => ({ userId: uuidv7(), email: `acct-${randomUUID()}@example.com`, name: null });

async function organizationsOwnedBy(userId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const row of services.storage.tables.organizations.listEntities({ queryOptions: { filter: odata`RowKey eq 'organization' and ownerId eq ${userId}` } })) found.push(row.partitionKey!);
  return found;
}

describe('ensureMembership', () => {
  test('ten instances making one account\'s organization at once make one', async () => {
    const who = account();
    const instances = Array.from({ length: 10 }, () => new OrganizationRepository(services.storage.tables.organizations));
    const memberships = await Promise.all(instances.map((instance) => instance.membershipForRequest(who)));
    expect(new Set(memberships.map((membership) => membership.organizationId)).size).toBe(1);
    expect(memberships.every((membership) => membership.role === 'owner' && !membership.removing)).toBe(true);
    expect(await organizationsOwnedBy(who.userId)).toEqual([`org_${memberships[0]!.organizationId}`]);
    const organization = await instances[0]!.find(memberships[0]!.organizationId);
    expect(organization).toMatchObject({ name: who.email, ownerId: who.userId, locale: 'en' });
    expect(await instances[0]!.members(memberships[0]!.organizationId)).toEqual([{ userId: who.userId, email: who.email, name: null, role: 'owner', joinedAt: expect.any(String), removal: null }]);
  });

  test('a process that died after deciding the organization, before writing it, is completed by the next call, with the same organization', async () => {
    const who = account();
    const decided = uuidv7();
    // What a dead process left: the membership row alone.
    await services.storage.tables.organizations.createEntity({ partitionKey: `user_${who.userId}`, rowKey: 'membership', organizationId: decided, joinedAs: 'owner', createdAt: new Date().toISOString() });
    const membership = await new OrganizationRepository(services.storage.tables.organizations).membershipForRequest(who);
    expect(membership).toEqual({ organizationId: decided, role: 'owner', removing: false });
    expect(await organizationsOwnedBy(who.userId)).toEqual([`org_${decided}`]);
  });

  test('an invited account whose Register died after its membership keeps the invited organization and role', async () => {
    const owner = account();
    const repository = new OrganizationRepository(services.storage.tables.organizations);
    const { organizationId } = await repository.membershipForRequest(owner);
    const invited = account();
    await services.storage.tables.organizations.createEntity({ partitionKey: `user_${invited.userId}`, rowKey: 'membership', organizationId, joinedAs: 'viewer', createdAt: new Date().toISOString() });
    expect(await new OrganizationRepository(services.storage.tables.organizations).membershipForRequest(invited)).toEqual({ organizationId, role: 'viewer', removing: false });
    expect(await organizationsOwnedBy(invited.userId)).toEqual([]);
    expect((await repository.members(organizationId)).map((member) => [member.userId, member.role])).toEqual([
      [owner.userId, 'owner'],
      [invited.userId, 'viewer'],
    ]);
  });
});

describe('what an instance remembers', () => {
  test('a role changed by one instance is seen by another once MEMBERSHIP_CACHE_MS has passed, at once by the first', async () => {
    expect(MEMBERSHIP_CACHE_MS).toBeLessThanOrEqual(60_000);
    let now = Date.now();
    const first = new OrganizationRepository(services.storage.tables.organizations, () => now);
    const second = new OrganizationRepository(services.storage.tables.organizations, () => now);
    const owner = account();
    const { organizationId } = await first.membershipForRequest(owner);
    const member = account();
    await first.ensureMembership(member, 'sender', organizationId);
    expect((await second.membershipForRequest(member)).role).toBe('sender');
    const row = (await first.member(organizationId, member.userId))!;
    expect(await first.updateMembers(organizationId, [{ ...row, role: 'viewer' }])).toBe(true);
    expect((await first.membershipForRequest(member)).role).toBe('viewer');
    now += MEMBERSHIP_CACHE_MS - 1;
    expect((await second.membershipForRequest(member)).role).toBe('sender');
    now += 2;
    expect((await second.membershipForRequest(member)).role).toBe('viewer');
    // A write based on a stale read changes nothing.
    expect(await first.updateMembers(organizationId, [{ ...row, role: 'admin' }])).toBe(false);
    expect((await first.member(organizationId, member.userId))!.role).toBe('viewer');
  });
});

describe('the index of an organization\'s envelopes', () => {
  test('addMany writes, over several transactions, the rows add writes: pages newest first, each envelope\'s owner found by another instance', async () => {
    const organizationId = uuidv7();
    const owners = [uuidv7(), uuidv7(), uuidv7()];
    const bulk = Array.from({ length: 250 }, (_, index) => ({ id: uuidv7(), ownerId: owners[index % owners.length]! }));
    const single = { id: uuidv7(), ownerId: owners[0]! };
    await new OrganizationIndex(services.storage.tables.organizations, 'envelope').addMany(organizationId, bulk, { concurrency: 2 });
    await new OrganizationIndex(services.storage.tables.organizations, 'envelope').add(organizationId, single.id, single.ownerId);
    const reader = new OrganizationIndex(services.storage.tables.organizations, 'envelope');
    const newestFirst = [single, ...[...bulk].reverse()];
    const first = await reader.page(organizationId, 200, undefined);
    expect(first.more).toBe(true);
    const rest = await reader.page(organizationId, 200, first.rows.at(-1)!.rowKey);
    expect(rest.more).toBe(false);
    expect([...first.rows, ...rest.rows].map(({ id, ownerId }) => ({ id, ownerId }))).toEqual(newestFirst);
    for (const envelope of [single, bulk[0]!, bulk[100]!, bulk[249]!]) expect(await reader.owner(organizationId, envelope.id)).toBe(envelope.ownerId);
    expect(await reader.owner(organizationId, uuidv7())).toBeNull();
    // Rows for new envelopes only: a transaction holding an indexed one fails and writes nothing.
    const fresh = { id: uuidv7(), ownerId: owners[1]! };
    await expect(reader.addMany(organizationId, [fresh, single])).rejects.toMatchObject({ statusCode: 409 });
    expect(await new OrganizationIndex(services.storage.tables.organizations, 'envelope').owner(organizationId, fresh.id)).toBeNull();
  });
});
