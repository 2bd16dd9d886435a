/**
 * Removing a member ([docs/api.md#removing-a-member](../../docs/api.md#removing-a-member)), over real
 * HTTP against Azurite: who may remove whom (the owner is protected, nobody removes itself, only the
 * owner removes an admin, another organisation's ids are 404, `transferTo` must be a member who is not
 * a viewer); what moves (envelopes of every status with `envelope.owner_changed` in their trails and
 * on the certificate, templates) and what goes (API keys, access tokens, the account, whose address
 * can register again); recipients' links that keep working; the new owner's list, void and complete;
 * a second instance (a process of its own, sharing storage) that sees the removal within a minute and
 * still reaches the moved envelopes through what it remembered; and a removal whose process is killed
 * half-way, after which every envelope has exactly one owner and a repeated DELETE finishes.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { REMOVAL_SETTLE_MS } from '../../src/lib/removal/removeMember.js';
import { getServices } from '../../src/lib/services.js';
import { invertId } from '../../src/lib/storage/envelopeRepository.js';
import { finishRemovals, runSweep } from '../../src/lib/sweeper/sweep.js';
import { MEMBERSHIP_CACHE_MS } from '../../src/lib/storage/organizationRepository.js';
import { organizationIdOf, joinedMember } from '../support/organizations.js';
import { patience, waitUntil } from '../support/patience.js';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, startTestService, type ApiClient, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, sentEnvelope, signingTokenFor } from '../support/signing.js';
import { tempFile, tool } from '../support/tools.js';

let env: TestService;
let other: ServiceProcess;
let owner: TestUser;
/** The owner of another organisation. */
let outsider: TestUser;

beforeAll(async () => {
  env = await startTestService();
  other = await startServiceProcess();
  owner = await env.newUser({ name: 'Olive Owner' });
  outsider = await env.newUser();
}, patience(90_000));
afterAll(async () => {
  await other?.close();
  await env?.close();
});

const remove = (api: ApiClient, by: TestUser, userId: string, json: unknown = {}) => api.request('DELETE', `/organization/members/${userId}`, { token: by.token, json });
const memberIds = async (): Promise<string[]> => ((await env.api.request('GET', '/organization/members', { token: owner.token })).body as { userId: string }[]).map((member) => member.userId);
const flat = (text: string): string => text.replace(/\s+/g, ' ');

/** Every envelope id of the caller's `scope=mine` list, all pages. */
async function mine(api: ApiClient, user: TestUser): Promise<{ id: string; ownerId: string; ownerEmail: string | null; status: string }[]> {
  const all: { id: string; ownerId: string; ownerEmail: string | null; status: string }[] = [];
  let route: string | null = '/envelopes?scope=mine&limit=100';
  while (route !== null) {
    const page: ApiResponse = await api.request('GET', route, { token: user.token });
    expect(page.status).toBe(200);
    all.push(...(page.body as typeof all));
    const link: string | null = page.headers.get('link');
    const next: URL | null = link === null ? null : new URL(/^<([^>]+)>/.exec(link)![1]!);
    route = next === null ? null : `${next.pathname.replace(/^\/api/, '')}${next.search}`;
  }
  return all;
}

describe('who may remove whom', () => {
  test('the owner is protected, nobody removes itself, only the owner removes an admin, other ids are 404, transferTo is a member who is not a viewer; nothing changes', async () => {
    const [admin, secondAdmin, sender, viewer] = await Promise.all([
      joinedMember(env.api, owner, 'admin'),
      joinedMember(env.api, owner, 'admin'),
      joinedMember(env.api, owner, 'sender'),
      joinedMember(env.api, owner, 'viewer'),
    ]);
    const before = await memberIds();
    const to = { transferTo: owner.userId };

    expectType(await remove(env.api, admin, owner.userId, { transferTo: admin.userId }), 409, 'owner-protected');
    expectType(await remove(env.api, owner, owner.userId, { transferTo: admin.userId }), 409, 'owner-protected');
    expectType(await remove(env.api, admin, admin.userId, to), 409, 'self-removal');
    const adminRemovingAdmin = await remove(env.api, admin, secondAdmin.userId, to);
    expectType(adminRemovingAdmin, 403, 'forbidden-role');
    expect(adminRemovingAdmin.body.detail).toContain('owner');
    expectType(await remove(env.api, sender, viewer.userId, to), 403, 'forbidden-role');
    expectType(await remove(env.api, viewer, sender.userId, to), 403, 'forbidden-role');

    // Unknown ids and another organisation's member: 404, as for PATCH.
    expectType(await remove(env.api, owner, randomUUID(), to), 404, 'member-not-found');
    expectType(await remove(env.api, owner, 'not-a-user-id', to), 404, 'member-not-found');
    expectType(await remove(env.api, owner, outsider.userId, to), 404, 'member-not-found');
    expectType(await remove(env.api, outsider, sender.userId, { transferTo: outsider.userId }), 404, 'member-not-found');

    // transferTo: required, a member, not the member removed, not a viewer.
    for (const body of [{}, { transferTo: 'nobody' }, { transferTo: randomUUID() }, { transferTo: outsider.userId }, { transferTo: sender.userId }, { transferTo: viewer.userId }]) {
      const answer = await remove(env.api, owner, sender.userId, body);
      expectType(answer, 400, 'validation-failed');
      expect((answer.body.errors as { path: string }[]).map((error) => error.path)).toEqual(['transferTo']);
    }
    expect((await remove(env.api, owner, sender.userId, { transferTo: viewer.userId })).body.detail).toContain('viewer');

    // Nothing changed: every member is there, and each still works.
    expect(await memberIds()).toEqual(before);
    for (const member of [admin, secondAdmin, sender, viewer]) expect((await env.api.request('GET', '/organization', { token: member.token })).status).toBe(200);
  }, patience(60_000));
});

describe('what a removal moves and ends', () => {
  test('envelopes of every status and templates go to transferTo, keys and sessions end on both instances, the account goes, links keep working', async () => {
    const leaver = await joinedMember(env.api, owner, 'sender', 'Lee Leaver');
    const heir = await joinedMember(env.api, owner, 'sender', 'Hal Heir');
    const admin = await joinedMember(env.api, owner, 'admin');
    const pdf = await corpusPdf('normal.pdf');
    const signer = { email: `sam-${randomUUID()}@example.com`, name: 'Sam Signer' };

    // The leaver's things: a draft ready to complete, envelopes sent, one finished, a template, an API key.
    const draft = await createEnvelopeWithDocument(env.api, leaver, pdf, 'draft.pdf');
    expect((await env.api.request('PUT', `/envelopes/${draft}`, { token: leaver.token, json: { signers: [{ id: randomUUID(), ...signer }], fields: [] } })).status).toBe(200);
    const toSign = await sentEnvelope(env.api, leaver, { signers: [signer] });
    const toVoid = await sentEnvelope(env.api, leaver, { signers: [{ email: `tia-${randomUUID()}@example.com`, name: 'Tia' }] });
    const finished = await sentEnvelope(env.api, leaver, { signers: [{ email: `fin-${randomUUID()}@example.com`, name: 'Fin' }] });
    const finishedToken = await signingTokenFor(leaver.userId, finished.id, finished.envelope.signers[0].email as string);
    expect((await env.api.request('POST', '/signing/complete', { token: finishedToken, json: { consent: true } })).body.envelope.status).toBe('completed');
    const template = await env.api.request('POST', '/templates', { token: leaver.token, json: { name: 'Leaver template', filename: 'nda.pdf', mimetype: 'application/pdf', visibility: 'organization' } });
    expect(template.status).toBe(201);
    const templateId = template.body.template.id as string;
    const key = await env.api.request('POST', '/apikeys', { token: leaver.token, json: { name: 'leaver key' } });
    expect(key.status).toBe(201);
    const withKey = { ...leaver, token: key.body.key as string };
    // The recipient's link, as e-mailed before the removal.
    const link = await signingTokenFor(leaver.userId, toSign.id, signer.email);
    const moved = [draft, toSign.id, toVoid.id, finished.id];

    // The other instance serves the leaver (remembers its membership and key) and the admin (remembers
    // which partition the envelope is in).
    expect((await other.api.request('GET', '/envelopes', { token: leaver.token })).status).toBe(200);
    expect((await other.api.request('GET', '/envelopes', { token: withKey.token })).status).toBe(200);
    expect((await other.api.request('GET', `/envelopes/${toVoid.id}`, { token: admin.token })).body.ownerId).toBe(leaver.userId);
    expect((await other.api.request('GET', `/templates/${templateId}`, { token: admin.token })).body.ownerId).toBe(leaver.userId);

    expect((await remove(env.api, owner, leaver.userId, { transferTo: heir.userId })).status).toBe(204);

    // Refused at once here, within a minute by the other instance.
    expectType(await env.api.request('GET', '/envelopes', { token: leaver.token }), 401, 'invalid-token');
    expectType(await env.api.request('GET', '/envelopes', { token: withKey.token }), 401, 'invalid-token');
    expect(MEMBERSHIP_CACHE_MS * 2).toBeLessThanOrEqual(60_000);
    const started = Date.now();
    await waitUntil(
      async () => (await other.api.request('GET', '/envelopes', { token: leaver.token })).status === 401 && (await other.api.request('GET', '/envelopes', { token: withKey.token })).status === 401,
      60_000,
      'the other instance to refuse the removed member',
      { everyMs: 1000 },
    );
    expect(Date.now() - started).toBeLessThanOrEqual(60_000);
    expectType(await other.api.request('GET', '/envelopes', { token: withKey.token }), 401, 'invalid-token');

    // The member and its account are gone; its address registers again, as a new account.
    expect(await memberIds()).not.toContain(leaver.userId);
    expect((await env.api.request('POST', '/Login', { json: { email: leaver.email, password: leaver.password } })).status).toBe(401);
    expect(await getServices().apiKeys.list(leaver.userId)).toEqual([]);
    const again = await env.api.request('POST', '/Register', { json: { email: leaver.email, password: `pw-${randomUUID()}`, invitationCode: await env.invitation() } });
    expect(again.status).toBe(201);
    expect(again.body.userId).not.toBe(leaver.userId);

    // Every envelope is the heir's, in its own list, with one owner_changed event by the owner.
    const heirs = await mine(env.api, heir);
    for (const id of moved) expect(heirs.find((envelope) => envelope.id === id)).toMatchObject({ ownerId: heir.userId, ownerEmail: heir.email });
    expect(heirs.filter((envelope) => moved.includes(envelope.id)).map((envelope) => envelope.status).sort()).toEqual(['completed', 'draft', 'sent', 'sent']);
    for (const id of moved) {
      const changes = (await auditTrail(env.api, heir, id)).filter((event) => event.type === 'envelope.owner_changed');
      expect(changes).toEqual([
        expect.objectContaining({ actorId: owner.userId, actorEmail: owner.email, details: { from: { userId: leaver.userId, email: leaver.email }, to: { userId: heir.userId, email: heir.email } } }),
      ]);
    }
    // Each trail stays one chain: the move's event follows the last one before it.
    for (const id of moved) {
      const trail = await auditTrail(env.api, heir, id);
      const at = trail.findIndex((event) => event.type === 'envelope.owner_changed');
      expect(at).toBeGreaterThan(0);
      expect(trail[at]!.prevHash).toBe(trail[at - 1]!.hash);
      expect(new Set(trail.map((event) => event.hash)).size).toBe(trail.length);
    }
    const templates = await env.api.request('GET', '/templates', { token: heir.token });
    expect((templates.body as { id: string; ownerId?: string }[]).find((entry) => entry.id === templateId)).toMatchObject({ ownerId: heir.userId, visibility: 'organization' });
    // The other instance remembered the template's former owner: it finds it at the heir's.
    const templateSeenByOther = await other.api.request('GET', `/templates/${templateId}`, { token: admin.token });
    expect(templateSeenByOther.status).toBe(200);
    expect(templateSeenByOther.body).toMatchObject({ id: templateId, ownerId: heir.userId });

    // The recipient's old link opens and signs; the certificate tells of the move.
    const view = await env.api.request('GET', '/signing', { token: link });
    expect(view.status).toBe(200);
    expect(view.body.envelope).toMatchObject({ id: toSign.id, ownerEmail: heir.email });
    const signed = await env.api.request('POST', '/signing/complete', { token: link, json: { consent: true } });
    expect(signed.status).toBe(200);
    expect(signed.body.envelope.status).toBe('completed');
    const certificate = flat((await tool('pdftotext', [await tempFile(Buffer.from(await (await fetch(signed.body.signedUrl as string)).arrayBuffer())), '-'])).stdout);
    expect(certificate).toContain(`Envelope handed over from ${leaver.email} to ${heir.email} by ${owner.email}`);

    // The heir completes the draft and voids a sent one; the other instance, which remembered the
    // former owner, reads the moved envelope and voids through it too.
    const completed = await env.api.request('POST', `/envelopes/${draft}/complete`, { token: heir.token });
    expect(completed.status).toBe(200);
    expect(typeof completed.body.hash).toBe('string');
    expect((await env.api.request('GET', `/envelopes/${draft}`, { token: heir.token })).body).toMatchObject({ status: 'completed', ownerId: heir.userId });
    const seenByOther = await other.api.request('GET', `/envelopes/${toVoid.id}`, { token: admin.token });
    expect(seenByOther.body).toMatchObject({ id: toVoid.id, ownerId: heir.userId, status: 'sent' });
    const voided = await other.api.request('PATCH', `/envelopes/${toVoid.id}`, { token: admin.token, json: { status: 'voided' } });
    expect(voided.status).toBe(200);
    expect((await env.api.request('GET', `/envelopes/${toVoid.id}`, { token: heir.token })).body.status).toBe('voided');

    // Once no instance can accept its credentials, the sweeper forgets the member for good.
    const organizationId = await organizationIdOf(owner);
    expect(await getServices().organizations.member(organizationId, leaver.userId)).toMatchObject({ removal: { transferTo: heir.userId } });
    await runSweep({ services: getServices(), now: new Date(Date.now() + REMOVAL_SETTLE_MS), steps: [finishRemovals] });
    expect(await getServices().organizations.member(organizationId, leaver.userId)).toBeNull();
    expectType(await other.api.request('GET', '/envelopes', { token: leaver.token }), 401, 'invalid-token');
  }, patience(180_000));
});

describe('a removal killed half-way', () => {
  const ENVELOPES = 150;

  test('leaves every envelope with exactly one owner, and a repeated DELETE on a restarted instance finishes it', async () => {
    const leaver = await joinedMember(env.api, owner, 'sender');
    const heir = await joinedMember(env.api, owner, 'admin');
    const ids: string[] = [];
    for (let start = 0; start < ENVELOPES; start += 10) {
      ids.push(...(await Promise.all(Array.from({ length: Math.min(10, ENVELOPES - start) }, () => createEnvelopeWithDocument(env.api, leaver, null)))));
    }
    const services = getServices();
    const movedCount = async () => (await Promise.all(ids.map(async (id) => (await services.envelopes.placeOf(leaver.userId, id)).state === 'moved'))).filter(Boolean).length;

    // The removal runs on an instance of its own, killed as soon as some envelopes moved.
    const doomed = await startServiceProcess();
    const request = remove(doomed.api, owner, leaver.userId, { transferTo: heir.userId }).then(
      (answer) => answer.status,
      () => 'killed',
    );
    await waitUntil(async () => (await services.envelopes.list(heir.userId, { limit: 1 })).records.length > 0, 30_000, 'the first envelope to move', { everyMs: 5 });
    await doomed.kill();
    expect(await request).toBe('killed');
    const movedAtKill = await movedCount();
    expect(movedAtKill).toBeGreaterThan(0);
    expect(movedAtKill).toBeLessThan(ENVELOPES);

    // Every envelope has exactly one owner: still the leaver's, or the heir's (a move whose new rows
    // were not written yet is completed by the first read).
    for (const id of ids) {
      const at = await services.envelopes.placeOf(leaver.userId, id);
      const read = await services.envelopes.read(leaver.userId, id);
      expect(read).not.toBeNull();
      if (at.state === 'here') {
        expect(read!.record.ownerId).toBe(leaver.userId);
        expect((await services.envelopes.placeOf(heir.userId, id)).state).toBe('missing');
      } else {
        expect(at).toEqual({ state: 'moved', to: heir.userId });
        expect(read!.record.ownerId).toBe(heir.userId);
        expect((await services.envelopes.placeOf(heir.userId, id)).state).toBe('here');
      }
    }
    // The member is being removed: left out of the list, and refused (this instance served it less
    // than a minute ago, so within a minute).
    expect(await memberIds()).not.toContain(leaver.userId);
    await waitUntil(async () => (await env.api.request('GET', '/envelopes', { token: leaver.token })).status === 401, 60_000, 'the member being removed to be refused', { everyMs: 1000 });

    // A restarted instance: the DELETE again finishes the removal.
    const restarted = await startServiceProcess();
    try {
      expect((await remove(restarted.api, owner, leaver.userId, { transferTo: heir.userId })).status).toBe(204);
    } finally {
      await restarted.close();
    }
    const heirs = (await mine(env.api, heir)).map((envelope) => envelope.id);
    expect(heirs.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    expect((await services.envelopes.list(leaver.userId, { limit: 1000 })).records).toEqual([]);
    // Every move is finished: the index names the heir, and no forwarding row still waits.
    expect(await services.envelopes.unfinishedMoves(leaver.userId)).toEqual([]);
    const organizationId = await organizationIdOf(owner);
    // (Read from storage: this process's own service remembers the owner it indexed the envelopes with.)
    for (const id of ids) expect((await services.storage.tables.organizations.getEntity<{ ownerId: string }>(`envelopes_${organizationId}`, `envelope_${invertId(id)}`)).ownerId).toBe(heir.userId);
    for (const id of ids) {
      expect((await services.envelopes.placeOf(leaver.userId, id)).state).toBe('moved');
      expect((await auditTrail(env.api, heir, id)).filter((event) => event.type === 'envelope.owner_changed')).toHaveLength(1);
    }
    expect((await env.api.request('POST', '/Login', { json: { email: leaver.email, password: leaver.password } })).status).toBe(401);
  }, patience(240_000));
});
