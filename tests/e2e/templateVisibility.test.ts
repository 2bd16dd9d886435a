/**
 * Templates shared in an organisation
 * ([docs/api.md#templates-shared-in-an-organization](../../docs/api.md#templates-shared-in-an-organization)),
 * over real HTTP against Azurite: for every role (owner, admin, sender, viewer) and every kind of
 * template (its own `private` one, another member's `private` one, another member's `organization`
 * one), what listing, reading, changing, deleting and using it answers: admins and the owner reach
 * every template; a viewer reads every template and changes none; a sender reads and uses the shared
 * ones and changes only its own; what a role may not reach is 403 `forbidden-role`, another
 * organisation's template 404. An envelope made from another member's template is the caller's.
 * `visibility` is set at creation and by PATCH, refused when unknown, and shown in every answer with
 * the creator (`ownerId`, `ownerEmail`). A template made before `visibility` (and before the
 * organisation's template index) reads as `private` and is found, listed and indexed once.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { uuidv7 } from '../../src/lib/ids.js';
import type { Role } from '../../src/lib/organizations/roles.js';
import { getServices } from '../../src/lib/services.js';
import { invertId } from '../../src/lib/storage/envelopeRepository.js';
import { newTemplateContent } from '../../src/lib/templates/model.js';
import { accountWithoutOrganization, joinedMember, organizationIdOf } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { corpusPdf, expectType, putToSas, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let pdf: Buffer;
/** The organisation's members, one per role, and a second sender who makes the "other member's" templates. */
const members = {} as Record<Role, TestUser>;
let creator: TestUser;
/** The owner of another organisation. */
let outsider: TestUser;

beforeAll(async () => {
  env = await startTestService();
  pdf = await corpusPdf('normal.pdf');
  members.owner = await env.newUser();
  [members.admin, members.sender, creator, members.viewer] = await Promise.all([
    joinedMember(env.api, members.owner, 'admin'),
    joinedMember(env.api, members.owner, 'sender'),
    joinedMember(env.api, members.owner, 'sender'),
    // A viewer that was a sender first (below): it has templates of its own.
    joinedMember(env.api, members.owner, 'sender'),
  ]);
  outsider = await env.newUser();
}, patience(60_000));
afterAll(async () => {
  await env?.close();
});

const call = (user: TestUser | string, method: string, route: string, json?: unknown): Promise<ApiResponse<any>> =>
  env.api.request(method, route, { token: typeof user === 'string' ? user : user.token, ...(json === undefined ? {} : { json }) });

/** An active template of `user` with one signer role and a signature field, of this visibility (none sent: the default). */
async function activeTemplate(user: TestUser, name: string, visibility?: 'private' | 'organization'): Promise<any> {
  const created = await call(user, 'POST', '/templates', { name, filename: 'nda.pdf', mimetype: 'application/pdf', ...(visibility === undefined ? {} : { visibility }) });
  expect(created.status).toBe(201);
  expect(created.body.template).toMatchObject({ visibility: visibility ?? 'private', ownerId: user.userId, ownerEmail: user.email });
  const id = created.body.template.id as string;
  expect((await putToSas(created.body.uploadUrl, pdf)).status).toBe(201);
  const roles = await call(user, 'PATCH', `/templates/${id}`, { roles: [{ id: 'client', name: 'Client' }], fields: [{ roleId: 'client', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.3, height: 0.06 }] });
  expect(roles.status).toBe(200);
  const activated = await call(user, 'PATCH', `/templates/${id}`, { status: 'active' });
  expect(activated.status).toBe(200);
  return activated.body;
}

/** The ids of every template `user` lists. */
async function listedIds(user: TestUser | string): Promise<string[]> {
  const answer = await call(user, 'GET', '/templates');
  expect(answer.status).toBe(200);
  return (answer.body as { id: string }[]).map((template) => template.id);
}

type Kind = 'own private' | 'other\'s private' | 'other\'s organization';
type Operation = 'list' | 'get' | 'patch' | 'use' | 'delete';
/** `true`: allowed (listed, 200, 201, 204); `false`: not listed, or 403 `forbidden-role`. */
type Expected = Record<Operation, boolean>;

const ALL: Expected = { list: true, get: true, patch: true, use: true, delete: true };
const READS: Expected = { list: true, get: true, patch: false, use: false, delete: false };
const NOTHING: Expected = { list: false, get: false, patch: false, use: false, delete: false };

/** The rule of docs/api.md#templates-shared-in-an-organization, role by role and kind by kind. */
const table: Record<Role, Record<Kind, Expected>> = {
  owner: { 'own private': ALL, 'other\'s private': ALL, 'other\'s organization': ALL },
  admin: { 'own private': ALL, 'other\'s private': ALL, 'other\'s organization': ALL },
  sender: { 'own private': ALL, 'other\'s private': NOTHING, 'other\'s organization': { list: true, get: true, patch: false, use: true, delete: false } },
  viewer: { 'own private': READS, 'other\'s private': READS, 'other\'s organization': READS },
};

describe('every role and every kind of template', () => {
  const roles: Role[] = ['owner', 'admin', 'sender', 'viewer'];
  /** Each role's own template, made before the viewer became one. */
  const own: Partial<Record<Role, any>> = {};

  beforeAll(async () => {
    for (const role of roles) own[role] = await activeTemplate(members[role], `Own of the ${role}`);
    expect((await call(members.owner, 'PATCH', `/organization/members/${members.viewer.userId}`, { role: 'viewer' })).status).toBe(200);
  }, patience(120_000));

  for (const role of roles) {
    for (const kind of ['own private', 'other\'s private', 'other\'s organization'] as Kind[]) {
      test(`${role}, ${kind}: list, get, patch, use, delete`, async () => {
        const caller = members[role];
        const expected = table[role][kind];
        const template = kind === 'own private' ? own[role] : await activeTemplate(creator, `${kind} for the ${role}`, kind === 'other\'s private' ? 'private' : 'organization');
        const id = template.id as string;
        const ownerId = kind === 'own private' ? caller.userId : creator.userId;
        const refused = (answer: ApiResponse<any>) => {
          expectType(answer, 403, 'forbidden-role');
          expect(answer.body.detail).toContain(role);
        };

        expect((await listedIds(caller)).includes(id)).toBe(expected.list);

        const read = await call(caller, 'GET', `/templates/${id}`);
        if (expected.get) expect(read.body).toMatchObject({ id, ownerId, visibility: template.visibility, status: 'active' });
        else refused(read);

        const patched = await call(caller, 'PATCH', `/templates/${id}`, { name: `Renamed by the ${role}` });
        if (expected.patch) {
          expect(patched.status).toBe(200);
          // It stays its creator's, whoever changes it.
          expect(patched.body).toMatchObject({ name: `Renamed by the ${role}`, ownerId });
        } else {
          refused(patched);
        }
        const creatorOf = kind === 'own private' ? caller : creator;
        expect((await call(creatorOf, 'GET', `/templates/${id}`)).body.name).toBe(expected.patch ? `Renamed by the ${role}` : template.name);

        const used = await call(caller, 'POST', `/templates/${id}/envelopes`, { recipients: [{ roleName: 'Client', email: `client-${role}@example.com`, name: 'Carol Client' }], send: false });
        if (expected.use) {
          expect(used.status).toBe(201);
          // The envelope is the caller's, whoever made the template.
          expect(used.body).toMatchObject({ ownerId: caller.userId, ownerEmail: caller.email, templateId: id, status: 'draft' });
          expect((await call(caller, 'GET', '/envelopes')).body.map((envelope: { id: string }) => envelope.id)).toContain(used.body.id);
        } else {
          refused(used);
        }

        const deleted = await call(caller, 'DELETE', `/templates/${id}`);
        if (expected.delete) {
          expect(deleted.status).toBe(204);
          expectType(await call(creatorOf, 'GET', `/templates/${id}`), 404, 'template-not-found');
          expect(await listedIds(members.admin)).not.toContain(id);
        } else {
          refused(deleted);
          expect((await call(creatorOf, 'GET', `/templates/${id}`)).status).toBe(200);
        }
      }, patience(60_000));
    }
  }

  test('detecting fields changes a template: another sender and a viewer get 403', async () => {
    const created = await call(creator, 'POST', '/templates', { name: 'Shared draft', filename: 'nda.pdf', mimetype: 'application/pdf', visibility: 'organization' });
    const id = created.body.template.id as string;
    expectType(await call(members.sender, 'POST', `/templates/${id}/fields/detect`), 403, 'forbidden-role');
    expectType(await call(members.viewer, 'POST', `/templates/${id}/fields/detect`), 403, 'forbidden-role');
    // An admin reaches it (not uploaded: the document's own answer, past the role).
    expectType(await call(members.admin, 'POST', `/templates/${id}/fields/detect`), 409, 'document-not-uploaded');
  });
});

describe('another organisation\'s templates', () => {
  test('are 404 to every role, whatever their visibility, and never listed', async () => {
    const theirs = await activeTemplate(outsider, 'Outsider\'s shared', 'organization');
    for (const role of ['owner', 'admin', 'sender', 'viewer'] as Role[]) {
      const caller = members[role];
      expectType(await call(caller, 'GET', `/templates/${theirs.id}`), 404, 'template-not-found');
      expect(await listedIds(caller)).not.toContain(theirs.id);
      if (role === 'viewer') continue;
      expectType(await call(caller, 'PATCH', `/templates/${theirs.id}`, { name: 'Taken' }), 404, 'template-not-found');
      expectType(await call(caller, 'POST', `/templates/${theirs.id}/envelopes`, { recipients: [{ roleName: 'Client', email: 'c@example.com', name: 'C' }], send: false }), 404, 'template-not-found');
      expectType(await call(caller, 'DELETE', `/templates/${theirs.id}`), 404, 'template-not-found');
    }
    expect((await call(outsider, 'GET', `/templates/${theirs.id}`)).body).toMatchObject({ name: 'Outsider\'s shared', ownerId: outsider.userId });
  });
});

describe('visibility', () => {
  test('is private by default, set at creation and by PATCH, and shown in every answer with the creator', async () => {
    const created = await call(creator, 'POST', '/templates', { name: 'Plain', filename: 'plain.pdf', mimetype: 'application/pdf' });
    expect(created.status).toBe(201);
    const id = created.body.template.id as string;
    expect(created.body.template).toMatchObject({ visibility: 'private', ownerId: creator.userId, ownerEmail: creator.email });
    expect((await call(creator, 'GET', `/templates/${id}`)).body).toMatchObject({ visibility: 'private', ownerId: creator.userId, ownerEmail: creator.email });
    expect(await listedIds(members.sender)).not.toContain(id);

    const shared = await call(creator, 'PATCH', `/templates/${id}`, { visibility: 'organization' });
    expect(shared.status).toBe(200);
    expect(shared.body).toMatchObject({ visibility: 'organization', ownerId: creator.userId, ownerEmail: creator.email });
    const listed = (await call(members.sender, 'GET', '/templates')).body.find((template: { id: string }) => template.id === id);
    expect(listed).toMatchObject({ visibility: 'organization', ownerId: creator.userId, ownerEmail: creator.email, name: 'Plain' });

    // An admin makes it private again; the sender no longer reaches it.
    expect((await call(members.admin, 'PUT', `/templates/${id}`, { visibility: 'private' })).body).toMatchObject({ visibility: 'private', ownerId: creator.userId });
    expect(await listedIds(members.sender)).not.toContain(id);
    expectType(await call(members.sender, 'GET', `/templates/${id}`), 403, 'forbidden-role');
  });

  test('an unknown visibility is 400 naming the field, at creation and by PATCH, and changes nothing', async () => {
    const refused = await call(creator, 'POST', '/templates', { name: 'Bad', filename: 'bad.pdf', mimetype: 'application/pdf', visibility: 'public' });
    expectType(refused, 400, 'validation-failed');
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'visibility' })]);
    const created = await call(creator, 'POST', '/templates', { name: 'Good', filename: 'good.pdf', mimetype: 'application/pdf', visibility: 'organization' });
    const id = created.body.template.id as string;
    const patched = await call(creator, 'PATCH', `/templates/${id}`, { visibility: 'everyone' });
    expectType(patched, 400, 'validation-failed');
    expect(patched.body.errors).toEqual([expect.objectContaining({ path: 'visibility' })]);
    expect((await call(creator, 'GET', `/templates/${id}`)).body.visibility).toBe('organization');
  });

  test('GET /api/templates lists a sender\'s own and the shared ones, and everything for admin, owner and viewer, newest first', async () => {
    const before = new Set(await listedIds(members.admin));
    const mine = await call(members.sender, 'POST', '/templates', { name: 'Sender\'s', filename: 'a.pdf', mimetype: 'application/pdf' });
    const hidden = await call(creator, 'POST', '/templates', { name: 'Creator\'s private', filename: 'b.pdf', mimetype: 'application/pdf' });
    const shared = await call(creator, 'POST', '/templates', { name: 'Creator\'s shared', filename: 'c.pdf', mimetype: 'application/pdf', visibility: 'organization' });
    const made = [mine, hidden, shared].map((answer) => answer.body.template.id as string);
    const fresh = (ids: string[]) => ids.filter((id) => !before.has(id));
    expect(fresh(await listedIds(members.sender))).toEqual([made[2], made[0]]);
    for (const role of ['owner', 'admin', 'viewer'] as Role[]) expect(fresh(await listedIds(members[role]))).toEqual([made[2], made[1], made[0]]);
    // Pages follow each other through Link; a sender's pages pass over what it may not read.
    const pages: string[] = [];
    let route: string | null = '/templates?limit=1';
    while (route !== null) {
      const page: ApiResponse<any> = await call(members.sender, 'GET', route);
      expect(page.status).toBe(200);
      expect(page.body.length).toBeLessThanOrEqual(1);
      pages.push(...(page.body as { id: string }[]).map((template) => template.id));
      const link = page.headers.get('link');
      const next = link === null ? null : new URL(/^<([^>]+)>/.exec(link)![1]!);
      route = next === null ? null : `${next.pathname.replace(/^\/api/, '')}${next.search}`;
    }
    expect(pages).toEqual(await listedIds(members.sender));
    expectType(await call(members.sender, 'GET', '/templates?cursor=bm90LWEtY3Vyc29y'), 400, 'invalid-cursor');
  });
});

describe('templates made before visibility and the organisation\'s template index', () => {
  /**
   * An account as before organisations, logged in, with a draft template written as the code before
   * `visibility` wrote it: no visibility, no owner address, no row in any index.
   */
  async function legacyWithTemplate(name: string): Promise<{ legacy: TestUser; id: string }> {
    const services = getServices();
    const account = await accountWithoutOrganization();
    const id = uuidv7();
    const at = new Date().toISOString();
    await services.templates.create({ id, ownerId: account.userId, ownerEmail: null, name, status: 'draft', documentName: 'old.pdf', blobName: `${id}/old.pdf`, ...newTemplateContent(), createdAt: at, updatedAt: at, version: 1 });
    const table = services.storage.tables.templates;
    const { etag: _etag, timestamp: _timestamp, visibility: _visibility, ...row } = await table.getEntity<Record<string, unknown>>(account.userId, rowKeyOf(id));
    await table.updateEntity({ ...row, partitionKey: account.userId, rowKey: rowKeyOf(id) }, 'Replace');
    expect((await table.getEntity<Record<string, unknown>>(account.userId, rowKeyOf(id))).visibility).toBeUndefined();
    const login = await env.api.request('POST', '/Login', { json: { email: account.email, password: account.password } });
    expect(login.status).toBe(200);
    return { legacy: { ...account, token: login.body.token as string }, id };
  }

  test('read as private, are listed with their creator, and are found by id at the organisation\'s first use', async () => {
    const services = getServices();
    const { legacy, id } = await legacyWithTemplate('Old lease');
    const admin = await joinedMember(env.api, legacy, 'admin');
    const sender = await joinedMember(env.api, legacy, 'sender');
    // The admin's first request finds it by id, the organisation's older templates being indexed then.
    expect((await call(admin, 'GET', `/templates/${id}`)).body).toMatchObject({ id, visibility: 'private', ownerId: legacy.userId, ownerEmail: legacy.email, name: 'Old lease' });
    expect(await listedIds(admin)).toEqual([id]);
    expect((await call(legacy, 'GET', '/templates')).body).toMatchObject([{ id, visibility: 'private', ownerEmail: legacy.email }]);
    // Private: another sender does not list it, and is refused it.
    expect(await listedIds(sender)).toEqual([]);
    expectType(await call(sender, 'GET', `/templates/${id}`), 403, 'forbidden-role');
    // Indexed once: the marker is written, and the index names its creator.
    const organizationId = await organizationIdOf(legacy);
    expect(await services.templateIndex.owner(organizationId, id)).toBe(legacy.userId);
    expect((await services.storage.tables.organizations.getEntity<{ indexedAt: string }>(`templates_${organizationId}`, 'indexed')).indexedAt).toEqual(expect.any(String));
  });

  test('the index is made at the first list too, and again without harm', async () => {
    const { legacy, id } = await legacyWithTemplate('Older still');
    for (let round = 0; round < 2; round += 1) expect(await listedIds(legacy)).toEqual([id]);
    const viewer = await joinedMember(env.api, legacy, 'viewer');
    expect((await call(viewer, 'GET', '/templates')).body).toMatchObject([{ id, ownerId: legacy.userId, ownerEmail: legacy.email, visibility: 'private' }]);
  });
});

/** The templates table's RowKey of a template (`storage/templateRepository.ts`). */
function rowKeyOf(id: string): string {
  return `template_${invertId(id)}`;
}
