/**
 * What members share ([docs/api.md#what-members-share](../../docs/api.md#what-members-share)), over
 * real HTTP against Azurite: a sender reaches its own envelopes only (another member's is 403
 * `forbidden-role` on every envelope route); admins and the owner read and
 * change every envelope of their organisation (which stays its owner's, while the audit trail names
 * the member who acted); viewers read them. `GET /api/envelopes?scope=organization` lists the
 * organisation's envelopes, newest first and paged, for every role but sender (403). Another
 * organisation's envelopes answer 404 to everyone. Envelopes made before the organisation's index
 * existed are found, by id and in lists.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { newDraftEnvelope } from '../../src/lib/envelopes/createUpload.js';
import { getServices } from '../../src/lib/services.js';
import { accountWithoutOrganization, joinedMember } from '../support/organizations.js';
import { patience } from '../support/patience.js';
import { createEnvelopeWithDocument, expectType, startTestService, type TestService, type TestUser } from '../support/service.js';

let env: TestService;
let owner: TestUser;
let admin: TestUser;
let sender: TestUser;
let otherSender: TestUser;
let viewer: TestUser;
/** The owner of another organisation. */
let outsider: TestUser;
/** The sender's envelope, and the other sender's. */
let sendersEnvelope: string;
let otherSendersEnvelope: string;
let outsidersEnvelope: string;

beforeAll(async () => {
  env = await startTestService();
  owner = await env.newUser();
  [admin, sender, otherSender, viewer] = await Promise.all([joinedMember(env.api, owner, 'admin'), joinedMember(env.api, owner, 'sender'), joinedMember(env.api, owner, 'sender'), joinedMember(env.api, owner, 'viewer')]);
  outsider = await env.newUser();
  sendersEnvelope = await createEnvelopeWithDocument(env.api, sender, null, 'sender.pdf');
  otherSendersEnvelope = await createEnvelopeWithDocument(env.api, otherSender, null, 'other.pdf');
  outsidersEnvelope = await createEnvelopeWithDocument(env.api, outsider, null, 'outsider.pdf');
}, patience(60_000));
afterAll(async () => {
  await env?.close();
});

const get = (user: TestUser | string, route: string) => env.api.request('GET', route, { token: typeof user === 'string' ? user : user.token });
const send = (user: TestUser, method: string, route: string, json?: unknown) => env.api.request(method, route, { token: user.token, ...(json === undefined ? {} : { json }) });
const idsOf = (body: unknown) => (body as { id: string }[]).map((envelope) => envelope.id);

/** Every envelope of a list, following its `Link: rel="next"` pages. */
async function everyPage(user: TestUser | string, first: string): Promise<{ id: string; ownerId: string; ownerEmail: string | null }[]> {
  const all: { id: string; ownerId: string; ownerEmail: string | null }[] = [];
  let route: string | null = first;
  while (route !== null) {
    const page = await get(user, route);
    expect(page.status).toBe(200);
    all.push(...(page.body as typeof all));
    const link = page.headers.get('link');
    const next = link === null ? null : new URL(/^<([^>]+)>/.exec(link)![1]!);
    route = next === null ? null : `${next.pathname.replace(/^\/api/, '')}${next.search}`;
  }
  return all;
}

describe('listing', () => {
  test('scope=mine (the default) holds the caller\'s own envelopes whatever its role', async () => {
    for (const [user, own] of [[sender, sendersEnvelope], [otherSender, otherSendersEnvelope]] as const) {
      expect(idsOf((await get(user, '/envelopes')).body)).toEqual([own]);
      expect(idsOf((await get(user, '/envelopes?scope=mine')).body)).toEqual([own]);
    }
    for (const user of [owner, admin, viewer]) expect((await get(user, '/envelopes')).body).toEqual([]);
  });

  test('scope=organization holds every member\'s envelopes, with their owner, for owner, admin and viewer', async () => {
    for (const user of [owner, admin, viewer]) {
      const answer = await get(user, '/envelopes?scope=organization');
      expect(answer.status).toBe(200);
      // Newest first: the other sender's was made after the sender's.
      expect(idsOf(answer.body)).toEqual([otherSendersEnvelope, sendersEnvelope]);
      expect(answer.body[1]).toMatchObject({ id: sendersEnvelope, ownerId: sender.userId, ownerEmail: sender.email, documentName: 'sender.pdf' });
      expect(answer.body[0]).toMatchObject({ ownerId: otherSender.userId, ownerEmail: otherSender.email });
    }
    // Another organisation's list is its own.
    expect(idsOf((await get(outsider, '/envelopes?scope=organization')).body)).toEqual([outsidersEnvelope]);
  });

  test('a sender asking for scope=organization gets 403 forbidden-role; an unknown scope 400', async () => {
    const refused = await get(sender, '/envelopes?scope=organization');
    expectType(refused, 403, 'forbidden-role');
    expect(refused.body.detail).toContain('sender');
    expectType(await get(owner, '/envelopes?scope=everyone'), 400, 'validation-failed');
  });

  test('pages of scope=organization follow each other through Link, keeping the scope and status', async () => {
    const pages = await everyPage(admin, '/envelopes?scope=organization&limit=1');
    expect(pages.map((envelope) => envelope.id)).toEqual([otherSendersEnvelope, sendersEnvelope]);
    const first = await get(admin, '/envelopes?scope=organization&limit=1&status=draft');
    expect(first.headers.get('link')).toMatch(/scope=organization/);
    expect(first.headers.get('link')).toMatch(/status=draft/);
    expect((await get(admin, '/envelopes?scope=organization&status=sent')).body).toEqual([]);
    expectType(await get(admin, '/envelopes?scope=organization&cursor=bm90LWEtY3Vyc29y'), 400, 'invalid-cursor');
  });
});

describe('reading another member\'s envelope', () => {
  test('owner, admin and viewer read it and its audit trail; its owner and owner e-mail show', async () => {
    for (const user of [owner, admin, viewer]) {
      const read = await get(user, `/envelopes/${sendersEnvelope}`);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ id: sendersEnvelope, ownerId: sender.userId, ownerEmail: sender.email });
      const audit = await get(user, `/envelopes/${sendersEnvelope}/audit`);
      expect(audit.status).toBe(200);
      expect(audit.body[0]).toMatchObject({ type: 'envelope.created', actorId: sender.userId });
    }
    expect((await get(sender, `/envelopes/${sendersEnvelope}`)).body).toMatchObject({ ownerId: sender.userId, ownerEmail: sender.email });
  });

  test('another sender is refused (403 forbidden-role, naming the roles that read it)', async () => {
    expectType(await get(otherSender, `/envelopes/${sendersEnvelope}`), 403, 'forbidden-role');
    expectType(await get(otherSender, `/envelopes/${sendersEnvelope}/audit`), 403, 'forbidden-role');
    expect((await get(otherSender, `/envelopes/${sendersEnvelope}`)).body).toMatchObject({ detail: expect.stringContaining('an admin, the owner or a viewer reads it; you are a sender') });
  });

  test('another organisation\'s envelope is 404 to every role, and ours to its owner', async () => {
    for (const user of [owner, admin, viewer, sender]) {
      expectType(await get(user, `/envelopes/${outsidersEnvelope}`), 404, 'envelope-not-found');
      expectType(await get(user, `/envelopes/${outsidersEnvelope}/audit`), 404, 'envelope-not-found');
    }
    expectType(await send(admin, 'PATCH', `/envelopes/${outsidersEnvelope}`, { remindEveryDays: 2 }), 404, 'envelope-not-found');
    expectType(await send(owner, 'DELETE', `/envelopes/${outsidersEnvelope}`), 404, 'envelope-not-found');
    expectType(await get(outsider, `/envelopes/${sendersEnvelope}`), 404, 'envelope-not-found');
    expect((await get(outsider, `/envelopes/${outsidersEnvelope}`)).status).toBe(200);
  });
});

describe('changing another member\'s envelope', () => {
  test('an admin and the owner change it; it stays its owner\'s; the audit trail names who acted', async () => {
    const byAdmin = await send(admin, 'PATCH', `/envelopes/${sendersEnvelope}`, { remindEveryDays: 3 });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toMatchObject({ remindEveryDays: 3, ownerId: sender.userId, ownerEmail: sender.email });
    const byOwner = await send(owner, 'PUT', `/envelopes/${sendersEnvelope}`, { remindEveryDays: 4 });
    expect(byOwner.status).toBe(200);
    expect((await get(sender, `/envelopes/${sendersEnvelope}`)).body).toMatchObject({ remindEveryDays: 4 });
    const events = (await get(sender, `/envelopes/${sendersEnvelope}/audit`)).body as { type: string; actorId: string; actorEmail: string }[];
    expect(events.filter((event) => event.type === 'envelope.settings_changed').map((event) => [event.actorId, event.actorEmail])).toEqual([
      [admin.userId, admin.email],
      [owner.userId, owner.email],
    ]);
    // Still the sender's: in its own list, not in the admin's or the owner's.
    expect(idsOf((await get(sender, '/envelopes')).body)).toEqual([sendersEnvelope]);
    expect(idsOf((await get(admin, '/envelopes')).body)).toEqual([]);
  });

  test('a viewer and another sender are refused (403); the envelope is unchanged', async () => {
    expectType(await send(viewer, 'PATCH', `/envelopes/${sendersEnvelope}`, { remindEveryDays: 9 }), 403, 'forbidden-role');
    expectType(await send(viewer, 'DELETE', `/envelopes/${sendersEnvelope}`), 403, 'forbidden-role');
    expectType(await send(otherSender, 'PATCH', `/envelopes/${sendersEnvelope}`, { remindEveryDays: 9 }), 403, 'forbidden-role');
    expectType(await send(otherSender, 'DELETE', `/envelopes/${sendersEnvelope}`), 403, 'forbidden-role');
    expectType(await send(otherSender, 'POST', `/envelopes/${sendersEnvelope}/complete`), 403, 'forbidden-role');
    expect((await get(sender, `/envelopes/${sendersEnvelope}`)).body).toMatchObject({ remindEveryDays: 4 });
  });

  /** Every route a sender reaches with an envelope id: `[method, route after /envelopes/{id}, body]`. */
  const envelopeRoutes: readonly (readonly [string, string, unknown])[] = [
    ['GET', '', undefined],
    ['GET', '/audit', undefined],
    ['PUT', '', { remindEveryDays: 9 }],
    ['PATCH', '', { status: 'voided', voidedReason: 'not mine' }],
    ['DELETE', '', undefined],
    ['POST', '/complete', undefined],
    ['POST', '/fields/detect', undefined],
    ['POST', `/recipients/${'0193a5c4-0000-7000-8000-000000000001'}/resend`, undefined],
    ['POST', `/recipients/${'0193a5c4-0000-7000-8000-000000000001'}/views`, {}],
  ];

  test.each(envelopeRoutes)('%s /envelopes/{id}%s: another member\'s envelope is 403 to a sender, another organisation\'s 404', async (method, tail, body) => {
    const mine = await send(otherSender, method, `/envelopes/${sendersEnvelope}${tail}`, body);
    expectType(mine, 403, 'forbidden-role');
    const needed = method === 'GET' ? 'an admin, the owner or a viewer reads it' : 'an admin or the owner changes it';
    expect(mine.body).toMatchObject({ detail: `This envelope is another member's: only they, ${needed}; you are a sender of your organization.` });
    expectType(await send(otherSender, method, `/envelopes/${outsidersEnvelope}${tail}`, body), 404, 'envelope-not-found');
    expect((await get(sender, `/envelopes/${sendersEnvelope}`)).body).toMatchObject({ status: 'draft', remindEveryDays: 4 });
  });

  test('an admin deletes another member\'s draft: gone for its owner and from the organisation\'s list', async () => {
    const draft = await createEnvelopeWithDocument(env.api, otherSender, null, 'doomed.pdf');
    expect(idsOf((await get(owner, '/envelopes?scope=organization')).body)).toContain(draft);
    expect((await send(admin, 'DELETE', `/envelopes/${draft}`)).status).toBe(204);
    expectType(await get(otherSender, `/envelopes/${draft}`), 404, 'envelope-not-found');
    expectType(await get(admin, `/envelopes/${draft}`), 404, 'envelope-not-found');
    expect(idsOf((await get(owner, '/envelopes?scope=organization')).body)).not.toContain(draft);
    expect(idsOf((await get(otherSender, '/envelopes')).body)).toEqual([otherSendersEnvelope]);
  });
});

describe('envelopes made before the organisation\'s index', () => {
  /** An account as before organisations, with an envelope written as that code wrote it (no index row). */
  async function legacyWithEnvelope(): Promise<{ token: string; userId: string; email: string; envelopeId: string }> {
    const services = getServices();
    const legacy = await accountWithoutOrganization();
    const draft = newDraftEnvelope({ actor: { userId: legacy.userId, email: legacy.email, emailVerified: true, ip: null, userAgent: null, apiKeyId: null, organizationId: 'none', role: 'owner' }, documentName: 'old.pdf', now: new Date() });
    // Made before organisations: the record names none (the actor's organisation above is a placeholder),
    // and, as before the chained audit trail, neither the record nor its event carries a hash.
    const { auditHead: _head, ...record } = draft.record;
    const { organizationId: _organization, prevHash: _prev, hash: _hash, ...event } = draft.event;
    await services.envelopes.create({ ...record, organizationId: null }, event);
    const login = await env.api.request('POST', '/Login', { json: { email: legacy.email, password: legacy.password } });
    expect(login.status).toBe(200);
    return { token: login.body.token as string, userId: legacy.userId, email: legacy.email, envelopeId: draft.record.id };
  }

  test('an admin reads one by id first, then lists it; an envelope made since is listed with it', async () => {
    const legacy = await legacyWithEnvelope();
    const legacyOwner = { ...legacy, password: '' };
    const member = await joinedMember(env.api, legacyOwner, 'admin');
    const read = await get(member, `/envelopes/${legacy.envelopeId}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: legacy.envelopeId, ownerId: legacy.userId });
    const made = await createEnvelopeWithDocument(env.api, member, null);
    expect(idsOf((await get(member, '/envelopes?scope=organization')).body)).toEqual([made, legacy.envelopeId]);
  });

  test('the organisation\'s list holds them at its first use, and again (the migration is idempotent)', async () => {
    const legacy = await legacyWithEnvelope();
    for (let round = 0; round < 2; round += 1) {
      expect(idsOf((await get(legacy.token, '/envelopes?scope=organization')).body)).toEqual([legacy.envelopeId]);
    }
    const member = await joinedMember(env.api, { ...legacy, password: '' }, 'viewer');
    expect((await get(member, '/envelopes?scope=organization')).body).toMatchObject([{ id: legacy.envelopeId, ownerId: legacy.userId, ownerEmail: legacy.email }]);
    expect((await get(member, `/envelopes/${legacy.envelopeId}/audit`)).status).toBe(200);
  });
});
