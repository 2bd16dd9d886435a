/**
 * Organisations ([docs/api.md#organizations](../../docs/api.md#organizations)), over real HTTP and
 * a real Azurite: Register makes the new account the owner of an organisation of its own; an account
 * made before organisations becomes, on its first request, the owner of one named after its address,
 * exactly once however many first requests race on however many instances, with everything it had
 * where it was; invitations (7 days, single use, at most 100 pending, an address with an account
 * refused); members and their roles (nobody changes the owner's role: 409 `owner-protected`; only the owner makes admins);
 * handing the organisation over; another organisation's ids answered 404.
 */
import { randomUUID } from 'node:crypto';
import { odata } from '@azure/data-tables';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createApiKey } from '../../src/lib/auth/apiKeys.js';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { getServices } from '../../src/lib/services.js';
import { waitForEmail } from '../support/mail.js';
import { accountWithoutOrganization, invitationTokenOf, joinedMember } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { expectType, startTestService, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let owner: TestUser;

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser({ name: 'Ada Owner' });
});
afterAll(async () => {
  await env?.close();
});

const get = (user: TestUser, route: string) => env.api.request('GET', route, { token: user.token });
const send = (user: TestUser, method: string, route: string, json?: unknown) => env.api.request(method, route, { token: user.token, ...(json === undefined ? {} : { json }) });

describe('Register', () => {
  test('makes the new account the owner of an organization of its own, named after its address', async () => {
    const organization = await get(owner, '/organization');
    expect(organization.status).toBe(200);
    expect(organization.body).toEqual({ id: expect.any(String), name: owner.email, createdAt: expect.any(String), memberCount: 1, role: 'owner', locale: 'en', disclosure: {}, retentionDays: null });
    const members = await get(owner, '/organization/members');
    expect(members.status).toBe(200);
    expect(members.body).toEqual([{ userId: owner.userId, email: owner.email, name: 'Ada Owner', role: 'owner', joinedAt: expect.any(String) }]);
    // Another account: another organization.
    const other = await env.newUser();
    expect((await get(other, '/organization')).body.id).not.toBe(organization.body.id);
  });
});

describe('an account made before organizations', () => {
  let instance: ServiceProcess | undefined;
  afterAll(async () => {
    await instance?.close();
  });

  test('becomes, on its first requests, the owner of exactly one organization, with everything it had where it was', async () => {
    const services = getServices();
    const legacy = await accountWithoutOrganization();
    // What it had: an envelope in its partition, and an API key, written as that code wrote them.
    const draft = newDraftEnvelope({ actor: { userId: legacy.userId, email: legacy.email, emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: 'none', role: 'owner' }, documentName: 'old.pdf', now: new Date() });
    // Before the chained audit trail: neither the record nor its event carries a hash (nor the event an organisation).
    const { auditHead: _head, ...record } = draft.record;
    const { organizationId: _organization, prevHash: _prev, hash: _hash, ...event } = draft.event;
    await services.envelopes.create(record, event);
    const key = (await createApiKey({ services, owner: { userId: legacy.userId, email: legacy.email }, request: { name: 'old key' } })).key;
    const login = await env.api.request('POST', '/Login', { json: { email: legacy.email, password: legacy.password } });
    expect(login.status).toBe(200);
    const token = login.body.token as string;

    // First requests at once: three on this instance (access token), two on another (API key).
    instance = await startServiceProcess();
    const answers = await Promise.all([
      env.api.request('GET', '/organization', { token }),
      env.api.request('GET', '/organization', { token }),
      env.api.request('GET', '/envelopes', { token }),
      instance.api.request('GET', '/organization', { token: key }),
      instance.api.request('GET', '/organization/members', { token: key }),
    ]);
    for (const answer of answers) expect(answer.status).toBe(200);
    const ids = new Set([answers[0]!, answers[1]!, answers[3]!].map((answer) => answer.body.id as string));
    expect(ids.size).toBe(1);
    expect(answers[0]!.body).toMatchObject({ name: legacy.email, memberCount: 1, role: 'owner' });
    expect(answers[4]!.body).toEqual([{ userId: legacy.userId, email: legacy.email, name: null, role: 'owner', joinedAt: expect.any(String) }]);

    // Exactly one organization row names the account as its owner.
    const rows = [];
    for await (const row of services.storage.tables.organizations.listEntities({ queryOptions: { filter: odata`RowKey eq 'organization' and ownerId eq ${legacy.userId}` } })) rows.push(row);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.partitionKey).toBe(`org_${[...ids][0]!}`);

    // Its envelope is where it was: the same id in its own partition, listed and readable.
    expect(answers[2]!.body.map((envelope: { id: string }) => envelope.id)).toEqual([draft.record.id]);
    expect((await services.envelopes.read(legacy.userId, draft.record.id))?.record.id).toBe(draft.record.id);
    expect((await env.api.request('GET', `/envelopes/${draft.record.id}`, { token: key })).status).toBe(200);
    // Later requests find the same organization.
    expect((await instance.api.request('GET', '/organization', { token })).body.id).toBe([...ids][0]);
  }, patience(90_000));
});

describe('invitations', () => {
  test('an invited address registers into the organization with its role, once; its address counts as verified', async () => {
    const email = `grace-${randomUUID()}@example.com`;
    const before = Date.now();
    const invited = await send(owner, 'POST', '/organization/invitations', { email: `  ${email.toUpperCase()} `, role: 'sender' });
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({ id: expect.any(String), email, role: 'sender', expiresAt: expect.any(String) });
    const expiresIn = Date.parse(invited.body.expiresAt as string) - before;
    expect(expiresIn).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(expiresIn).toBeLessThanOrEqual(7 * 86_400_000 + 60_000);
    expect((await get(owner, '/organization/invitations')).body).toContainEqual(invited.body);

    const token = invitationTokenOf(invited.body.id as string);
    // The e-mail: in the organization's language (English until changed), from the inviter, with the link.
    const email0 = await waitForEmail(email, { subject: /^Join / });
    expect(email0.subject).toBe(`Join ${owner.email} on the envelope signing service`);
    expect(email0.text).toContain(`Ada Owner <${owner.email}> invites you to join ${owner.email}`);
    expect(email0.text).toContain(`${env.service.publicBaseUrl}/api/console#join=${token}`);
    expect(email0.html).toContain(`/api/console#join=${token}`);
    const registered = await env.api.request('POST', '/Register', { json: { email, password: 'correct horse battery', organizationInvitation: token, name: 'Grace' } });
    expect(registered.status).toBe(201);
    const login = await env.api.request('POST', '/Login', { json: { email, password: 'correct horse battery' } });
    expect(login.body.user.emailVerified).toBe(true);
    const grace = { email, password: 'correct horse battery', userId: registered.body.userId as string, token: login.body.token as string };
    const organization = await get(grace, '/organization');
    expect(organization.body).toMatchObject({ id: (await get(owner, '/organization')).body.id, role: 'sender' });
    expect((await get(owner, '/organization/members')).body).toContainEqual({ userId: grace.userId, email, name: 'Grace', role: 'sender', joinedAt: expect.any(String) });

    // Used up: not listed, and its token refused.
    expect((await get(owner, '/organization/invitations')).body).not.toContainEqual(invited.body);
    const again = await env.api.request('POST', '/Register', { json: { email: `other-${randomUUID()}@example.com`, password: 'correct horse battery', organizationInvitation: token } });
    expectType(again, 403, 'invalid-invitation');
  });

  test('the e-mail is in the organization\'s language', async () => {
    const polyglot = await env.newUser();
    const changed = await send(polyglot, 'PATCH', '/organization', { locale: 'de', name: 'Kanzlei Lovelace' });
    expect(changed.body).toMatchObject({ locale: 'de', name: 'Kanzlei Lovelace' });
    expectType(await send(polyglot, 'PATCH', '/organization', { locale: 'xx' }), 400, 'validation-failed');
    const email = `hanna-${randomUUID()}@example.com`;
    const invited = await send(polyglot, 'POST', '/organization/invitations', { email, role: 'viewer' });
    const caught = await waitForEmail(email, { subject: /Kanzlei Lovelace/ });
    expect(caught.subject).toBe('Treten Sie Kanzlei Lovelace beim Umschlag-Signaturdienst bei');
    expect(caught.text).toContain(`/api/console#join=${invitationTokenOf(invited.body.id as string)}`);
  });

  test('an address that registers with another address\'s invitation joins, unverified', async () => {
    const invited = await send(owner, 'POST', '/organization/invitations', { email: `invited-${randomUUID()}@example.com`, role: 'viewer' });
    const email = `someone-${randomUUID()}@example.com`;
    const registered = await env.api.request('POST', '/Register', { json: { email, password: 'correct horse battery', organizationInvitation: invitationTokenOf(invited.body.id as string) } });
    expect(registered.status).toBe(201);
    const login = await env.api.request('POST', '/Login', { json: { email, password: 'correct horse battery' } });
    expect(login.body.user.emailVerified).toBe(false);
    expect((await env.api.request('GET', '/organization', { token: login.body.token as string })).body.role).toBe('viewer');
  });

  test('refused: an address with an account (409), the role owner (400), both codes or neither at Register (400)', async () => {
    const existing = await env.newUser();
    expectType(await send(owner, 'POST', '/organization/invitations', { email: existing.email, role: 'sender' }), 409, 'account-exists');
    expectType(await send(owner, 'POST', '/organization/invitations', { email: `x-${randomUUID()}@example.com`, role: 'owner' }), 400, 'validation-failed');
    const invited = await send(owner, 'POST', '/organization/invitations', { email: `y-${randomUUID()}@example.com`, role: 'sender' });
    const both = await env.api.request('POST', '/Register', { json: { email: `z-${randomUUID()}@example.com`, password: 'correct horse battery', organizationInvitation: invitationTokenOf(invited.body.id as string), invitationCode: await env.invitation() } });
    expectType(both, 400, 'validation-failed');
    const neither = await env.api.request('POST', '/Register', { json: { email: `z-${randomUUID()}@example.com`, password: 'correct horse battery' } });
    expectType(neither, 400, 'validation-failed');
    expectType(await env.api.request('POST', '/Register', { json: { email: `z-${randomUUID()}@example.com`, password: 'correct horse battery', organizationInvitation: 'oinv_unknown' } }), 403, 'invalid-invitation');
  });

  test('a deleted invitation\'s token is refused; another organization\'s invitation is 404', async () => {
    const invited = await send(owner, 'POST', '/organization/invitations', { email: `del-${randomUUID()}@example.com`, role: 'sender' });
    const stranger = await env.newUser();
    expectType(await send(stranger, 'DELETE', `/organization/invitations/${invited.body.id as string}`), 404, 'invitation-not-found');
    expect((await send(owner, 'DELETE', `/organization/invitations/${invited.body.id as string}`)).status).toBe(204);
    expectType(await send(owner, 'DELETE', `/organization/invitations/${invited.body.id as string}`), 404, 'invitation-not-found');
    const register = await env.api.request('POST', '/Register', { json: { email: `del2-${randomUUID()}@example.com`, password: 'correct horse battery', organizationInvitation: invitationTokenOf(invited.body.id as string) } });
    expectType(register, 403, 'invalid-invitation');
  });

  test('an expired invitation\'s token is refused at Register, and it is no longer listed as pending', async () => {
    const invited = await send(owner, 'POST', '/organization/invitations', { email: `exp-${randomUUID()}@example.com`, role: 'sender' });
    expect(invited.status).toBe(201);
    // Its seven days pass: the stored expiry moves into the past.
    const table = getServices().storage.tables.organizations;
    const rows = [];
    for await (const row of table.listEntities({ queryOptions: { filter: odata`id eq ${invited.body.id as string}` } })) rows.push(row);
    expect(rows).toHaveLength(1);
    await table.updateEntity({ partitionKey: rows[0]!.partitionKey!, rowKey: rows[0]!.rowKey!, expiresAt: new Date(Date.now() - 1000).toISOString() }, 'Merge');
    expect(((await send(owner, 'GET', '/organization/invitations')).body as { id: string }[]).map((pending) => pending.id)).not.toContain(invited.body.id);
    const register = await env.api.request('POST', '/Register', { json: { email: invited.body.email as string, password: 'correct horse battery', organizationInvitation: invitationTokenOf(invited.body.id as string) } });
    expectType(register, 403, 'invalid-invitation');
  });

  test('at most 100 are pending per organization', async () => {
    const admin = await env.newUser();
    for (let index = 0; index < 100; index++) {
      expect((await send(admin, 'POST', '/organization/invitations', { email: `many-${index}-${randomUUID()}@example.com`, role: 'viewer' })).status).toBe(201);
    }
    expectType(await send(admin, 'POST', '/organization/invitations', { email: `one-more-${randomUUID()}@example.com`, role: 'viewer' }), 409, 'invitation-limit');
    expect((await get(admin, '/organization/invitations')).body).toHaveLength(100);
  }, patience(120_000));
});

describe('members and roles', () => {
  let boss: TestUser;
  let admin: TestUser;
  let sender: TestUser;

  beforeAll(async () => {
    boss = await env.newUser();
    admin = await joinedMember(env.api, boss, 'admin');
    sender = await joinedMember(env.api, boss, 'sender');
  });

  test('the owner and admins change roles; nobody changes the owner\'s; only the owner makes or unmakes admins', async () => {
    const changed = await send(admin, 'PATCH', `/organization/members/${sender.userId}`, { role: 'viewer' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ userId: sender.userId, role: 'viewer' });
    expect((await get(sender, '/organization')).body.role).toBe('viewer');
    expect((await send(admin, 'PATCH', `/organization/members/${sender.userId}`, { role: 'sender' })).status).toBe(200);

    const makeAdmin = await send(admin, 'PATCH', `/organization/members/${sender.userId}`, { role: 'admin' });
    expectType(makeAdmin, 403, 'forbidden-role');
    expect(makeAdmin.body.detail).toMatch(/owner/);
    expectType(await send(admin, 'PATCH', `/organization/members/${admin.userId}`, { role: 'viewer' }), 403, 'forbidden-role');
    // The owner's role is protected (409), from an admin and from the owner itself.
    const byAdmin = await send(admin, 'PATCH', `/organization/members/${boss.userId}`, { role: 'viewer' });
    expectType(byAdmin, 409, 'owner-protected');
    expect(byAdmin.body.detail).toMatch(/transfer/);
    expectType(await send(boss, 'PATCH', `/organization/members/${boss.userId}`, { role: 'admin' }), 409, 'owner-protected');
    expectType(await send(boss, 'PATCH', `/organization/members/${sender.userId}`, { role: 'owner' }), 400, 'validation-failed');
    // Naming `owner` in the body is refused as a bad value, whoever it names.
    const ownerRole = await send(admin, 'PATCH', `/organization/members/${boss.userId}`, { role: 'owner' });
    expectType(ownerRole, 400, 'validation-failed');
    expect(ownerRole.body.errors).toEqual([expect.objectContaining({ path: 'role' })]);
    expect((await get(boss, '/organization/members')).body.map((member: { userId: string; role: string }) => [member.userId, member.role])).toEqual([
      [boss.userId, 'owner'],
      [admin.userId, 'admin'],
      [sender.userId, 'sender'],
    ]);
    // Another organization's member, and an unknown id: 404 alike.
    const stranger = await env.newUser();
    expectType(await send(boss, 'PATCH', `/organization/members/${stranger.userId}`, { role: 'viewer' }), 404, 'member-not-found');
    expectType(await send(boss, 'PATCH', '/organization/members/not-a-user', { role: 'viewer' }), 404, 'member-not-found');
  });

  test('an admin or the owner renames the organization', async () => {
    const renamed = await send(admin, 'PATCH', '/organization', { name: '  Lovelace & Partners ' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Lovelace & Partners', memberCount: 3, role: 'admin' });
    expect((await get(sender, '/organization')).body.name).toBe('Lovelace & Partners');
    expectType(await send(admin, 'PATCH', '/organization', { name: '   ' }), 400, 'validation-failed');
    expectType(await send(admin, 'PATCH', '/organization', { name: 'x'.repeat(101) }), 400, 'validation-failed');
  });

  test('the owner hands the organization over: the member becomes the owner, the caller an admin', async () => {
    const stranger = await env.newUser();
    expectType(await send(boss, 'POST', '/organization/transfer', { userId: stranger.userId }), 404, 'member-not-found');
    expectType(await send(boss, 'POST', '/organization/transfer', { userId: boss.userId }), 409, 'invalid-transfer-target');
    const transferred = await send(boss, 'POST', '/organization/transfer', { userId: admin.userId });
    expect(transferred.status).toBe(200);
    expect(transferred.body.role).toBe('admin');
    expect((await get(admin, '/organization')).body.role).toBe('owner');
    expect((await get(boss, '/organization')).body.role).toBe('admin');
    expectType(await send(boss, 'POST', '/organization/transfer', { userId: boss.userId }), 403, 'forbidden-role');
    // The new owner's role is as fixed as the old one's was.
    expectType(await send(boss, 'PATCH', `/organization/members/${admin.userId}`, { role: 'sender' }), 409, 'owner-protected');
    // And hands it back.
    expect((await send(admin, 'POST', '/organization/transfer', { userId: boss.userId })).status).toBe(200);
    expect((await get(boss, '/organization')).body.role).toBe('owner');
  });
});
