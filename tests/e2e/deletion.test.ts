/**
 * Deleting (docs/api.md#delete-an-envelope-or-purge-its-documents) over real HTTP against real Azurite, every response checked against the
 * OpenAPI document: a draft goes with its upload and audit trail; a sent envelope is refused; a
 * finished envelope is purged (its blobs gone from Azurite, its audit trail, hash and verification
 * kept, its signing links dead), once; another owner's is answered as missing. A deletion that a crash
 * interrupted is finished by its retry, and a deleted draft's due-index entries do not trouble the sweeper.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { odata } from '@azure/data-tables';
import { Change, commitChange } from '../../src/lib/envelopes/change.js';
import { runSweep } from '../../src/lib/sweeper/sweep.js';
import { getServices } from '../../src/lib/services.js';
import { DUE_TABLES, type DueEntry } from '../../src/lib/storage/dueIndex.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, startTestService, type ApiResponse, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, sentEnvelope, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { patience } from '../support/patience.js';

let azurite: RunningAzurite;
let env: TestService;
let owner: TestUser;
let stranger: TestUser;
const savedConnectionString = process.env.STORAGE_CONNECTION_STRING;

// An Azurite of its own and no timer functions: the sweeper test below runs the only sweep of its due index.
beforeAll(async () => {
  azurite = await startAzurite();
  process.env.STORAGE_CONNECTION_STRING = azurite.connectionString;
  env = await startTestService({ triggers: false });
  [owner, stranger] = await Promise.all([env.newUser(), env.newUser()]);
});
afterAll(async () => {
  await env?.close();
  await azurite?.stop();
  process.env.STORAGE_CONNECTION_STRING = savedConnectionString;
});

const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };
const remove = (id: string, user: TestUser = owner) => env.api.request('DELETE', `/envelopes/${id}`, { token: user.token });
const get = (id: string, user: TestUser = owner) => env.api.request('GET', `/envelopes/${id}`, { token: user.token });

/** Which of the envelope's blobs exist in Azurite, by container. */
async function blobs(blobName: string): Promise<Record<'documents' | 'originals' | 'sealed', boolean>> {
  const { containers } = getServices().storage;
  const [documents, originals, sealed] = await Promise.all([containers.documents, containers.originals, containers.sealed].map(async (container) => await container.getBlockBlobClient(blobName).exists()));
  return { documents: documents!, originals: originals!, sealed: sealed! };
}

/** Every row of the owner's partition that belongs to the envelope (envelope, status, events, actions), by RowKey prefix. */
async function rowsOf(ownerId: string, id: string): Promise<string[]> {
  const rows: string[] = [];
  const filter = odata`PartitionKey eq ${ownerId}`;
  for await (const entity of getServices().storage.tables.envelopes.listEntities<{ id?: string; envelopeId?: string }>({ queryOptions: { filter } })) {
    if (entity.id === id || entity.envelopeId === id) rows.push(entity.rowKey!.replace(/_.*/, ''));
  }
  return rows.sort();
}

/** A draft with its document uploaded and a signer named (so its audit trail has two events). */
async function draft(): Promise<{ id: string; blobName: string }> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
  expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).status).toBe(200);
  return { id, blobName: (await storedEnvelope(owner.userId, id)).blobName };
}

/**
 * An envelope sent to its signer and completed by her signature (sealed; she keeps a link to download
 * it). A draft the owner completes gives its recipients no link (docs/api.md#completing-as-the-owner).
 */
async function completed(): Promise<{ id: string; blobName: string; hash: string }> {
  const { id, blobName } = await draft();
  expect((await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'sent' } })).status).toBe(200);
  const token = await signingTokenFor(owner.userId, id, ada.email);
  const response = await env.api.request('POST', '/signing/complete', { token, json: { consent: true, signature: { typed: ada.name } } });
  expect(response.status).toBe(200);
  expect(response.body.envelope.status).toBe('completed');
  const envelope = await get(id);
  expect(envelope.body.hash).toMatch(/^[0-9a-f]{64}$/);
  return { id, blobName, hash: envelope.body.hash };
}

describe('DELETE /api/envelopes/{id}: a draft (docs/api.md#delete-an-envelope-or-purge-its-documents)', () => {
  test('is deleted with its upload and its audit trail: 204, then 404 like any unknown envelope', async () => {
    const { id, blobName } = await draft();
    expect(await blobs(blobName)).toEqual({ documents: true, originals: false, sealed: false });
    expect(await rowsOf(owner.userId, id)).toEqual(['envelope', 'event', 'event', 'status']);

    const response = await remove(id);
    expect(response.status).toBe(204);
    expect(response.text).toBe('');

    expect(await blobs(blobName)).toEqual({ documents: false, originals: false, sealed: false });
    expect(await rowsOf(owner.userId, id)).toEqual([]);
    const unknown = await get('01937f3c-0000-7000-8000-000000000000');
    for (const answer of [await get(id), await env.api.request('GET', `/envelopes/${id}/audit`, { token: owner.token }), await remove(id)]) {
      expectType(answer, 404, 'envelope-not-found');
      expect(answer.body).toEqual(unknown.body);
    }
    const listed = await env.api.request('GET', '/envelopes?status=draft', { token: owner.token });
    expect(listed.body.map((envelope: { id: string }) => envelope.id)).not.toContain(id);
  });

  test('a draft never uploaded is deleted too', async () => {
    const id = await createEnvelopeWithDocument(env.api, owner, null);
    expect((await remove(id)).status).toBe(204);
    expectType(await get(id), 404, 'envelope-not-found');
  });

  test('a deletion a crash interrupted (the draft out of view, its documents and rows still there) is finished by its retry', async () => {
    const { id, blobName } = await draft();
    const services = getServices();
    // What the first request did before the process died: the ETag-conditional step only.
    const stored = (await services.envelopes.read(owner.userId, id))!;
    await services.envelopes.startDeletion(stored, new Date().toISOString());
    expectType(await get(id), 404, 'envelope-not-found');
    expect((await env.api.request('GET', '/envelopes', { token: owner.token })).body.map((envelope: { id: string }) => envelope.id)).not.toContain(id);
    expect(await blobs(blobName)).toMatchObject({ documents: true });

    expect((await remove(id)).status).toBe(204);
    expect(await blobs(blobName)).toEqual({ documents: false, originals: false, sealed: false });
    expect(await rowsOf(owner.userId, id)).toEqual([]);
    expectType(await remove(id), 404, 'envelope-not-found');
  });

  test('an update that read the draft before it was deleted cannot bring it back: 404', async () => {
    const { id } = await draft();
    const services = getServices();
    const before = (await services.envelopes.read(owner.userId, id))!;
    expect((await remove(id)).status).toBe(204);
    const change = new Change(before.record, new Date());
    change.record.remindEveryDays = 3;
    change.touch();
    await expect(commitChange(services, before, change)).rejects.toThrow('The envelope changed since it was read');
    expect(await rowsOf(owner.userId, id)).toEqual([]);
  });

  test('due-index entries the draft left (a send that failed after writing them) are dropped by the sweeper, which runs clean', async () => {
    const { id } = await draft();
    const services = getServices();
    const past = new Date(Date.now() - 60_000).toISOString();
    const entries: DueEntry[] = (['expiry', 'reminder', 'completion', 'outbox'] as const).map((kind) => ({ kind, dueAt: past, ownerId: owner.userId, id }));
    for (const entry of entries) await services.dueIndex.put(entry);
    expect((await remove(id)).status).toBe(204);

    const report = await runSweep({ services });
    expect(report).toMatchObject({ expiry: 1, reminders: 1, completions: 1, outbox: 1 });
    for (const entry of entries) {
      const left: string[] = [];
      for await (const row of services.storage.tables[DUE_TABLES[entry.kind]].listEntities<{ id: string }>()) if (row.id === id) left.push(row.rowKey!);
      expect([entry.kind, left]).toEqual([entry.kind, []]);
    }
    expect(await runSweep({ services })).toMatchObject({ expiry: 0, reminders: 0, completions: 0, outbox: 0 });
  });
});

describe('DELETE /api/envelopes/{id}: refusals', () => {
  test('a sent envelope: 409 envelope-locked (void it first), nothing changed', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const { blobName } = await storedEnvelope(owner.userId, id);
    const before = await get(id);
    const trail = await auditTrail(env.api, owner, id);
    const response = await remove(id);
    expectType(response, 409, 'envelope-locked');
    expect(response.body.detail).toContain('void it first');
    expect((await get(id)).headers.get('etag')).toBe(before.headers.get('etag'));
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
    expect(await blobs(blobName)).toEqual({ documents: true, originals: true, sealed: false });
  });

  test('another owner\'s envelope, draft or finished: 404 as for a missing one, nothing changed', async () => {
    const { id, blobName } = await draft();
    const done = await completed();
    const unknown = await get('01937f3c-0000-7000-8000-000000000000', stranger);
    for (const target of [id, done.id]) {
      const response = await remove(target, stranger);
      expectType(response, 404, 'envelope-not-found');
      expect(response.body).toEqual(unknown.body);
    }
    expect(await blobs(blobName)).toMatchObject({ documents: true });
    expect(await blobs(done.blobName)).toEqual({ documents: true, originals: true, sealed: true });
    expect((await get(done.id)).body.purgedAt).toBeNull();
  });

  test('a malformed id: 404', async () => {
    expectType(await remove('not-a-uuid'), 404, 'envelope-not-found');
  });
});

describe('DELETE /api/envelopes/{id}: a finished envelope is purged (docs/api.md#delete-an-envelope-or-purge-its-documents)', () => {
  test('completed: its documents go; purgedAt, hash, audit trail and verification stay; its signing links stop working', async () => {
    const { id, blobName, hash } = await completed();
    const token = await signingTokenFor(owner.userId, id, ada.email);
    expect((await env.api.request('GET', '/signing', { token })).status).toBe(200);
    expect(await blobs(blobName)).toEqual({ documents: true, originals: true, sealed: true });
    const trail = await auditTrail(env.api, owner, id);

    const response = await remove(id);
    expect(response.status).toBe(204);

    expect(await blobs(blobName)).toEqual({ documents: false, originals: false, sealed: false });
    const envelope = await get(id);
    expect(envelope.status).toBe(200);
    expect(envelope.body).toMatchObject({ status: 'completed', hash, documentUrl: null, signedUrl: null, purgedAt: expect.any(String) });
    expect(Date.parse(envelope.body.purgedAt)).toBeGreaterThanOrEqual(Date.parse(envelope.body.completedAt));
    const listed = (await env.api.request('GET', '/envelopes?status=completed', { token: owner.token })).body.find((entry: { id: string }) => entry.id === id);
    expect(listed).toMatchObject({ purgedAt: envelope.body.purgedAt, documentUrl: null, signedUrl: null });

    const after = await auditTrail(env.api, owner, id);
    expect(after.slice(0, -1)).toEqual(trail);
    expect(after.at(-1)).toMatchObject({ sequence: trail.length + 1, type: 'envelope.purged', actorId: owner.userId, actorEmail: owner.email, details: {} });

    const verified = await env.api.request('GET', `/verify/${hash}`);
    expect(verified.status).toBe(200);
    expect(verified.body.envelopeId).toBe(id);

    for (const answer of [await env.api.request('GET', '/signing', { token }), await env.api.request('POST', '/signing/complete', { token, json: { consent: true } })]) {
      expectType(answer, 401, 'invalid-token');
      expect(answer.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }

    // Completing it again is still safe: the same hash, and no document to offer.
    const again = await env.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ hash, signedUrl: null });
  }, patience(60_000));

  test('purging twice: 204, nothing changes (no second event)', async () => {
    const { id } = await completed();
    expect((await remove(id)).status).toBe(204);
    const first = await get(id);
    const trail = await auditTrail(env.api, owner, id);
    expect((await remove(id)).status).toBe(204);
    const second = await get(id);
    expect(second.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(second.body.purgedAt).toBe(first.body.purgedAt);
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
  }, patience(60_000));

  test('voided (after send): its upload and frozen copy go, its signing links stop working', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const { blobName } = await storedEnvelope(owner.userId, id);
    expect((await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { status: 'voided' } })).status).toBe(200);
    const token = await signingTokenFor(owner.userId, id, ada.email);
    expect((await env.api.request('GET', '/signing', { token })).status).toBe(200);

    expect((await remove(id)).status).toBe(204);
    expect(await blobs(blobName)).toEqual({ documents: false, originals: false, sealed: false });
    expect((await get(id)).body).toMatchObject({ status: 'voided', documentUrl: null, signedUrl: null, hash: null, purgedAt: expect.any(String) });
    expect((await auditTrail(env.api, owner, id)).map((event) => event.type).slice(-2)).toEqual(['envelope.voided', 'envelope.purged']);
    expectType(await env.api.request('GET', '/signing', { token }), 401, 'invalid-token');
  });

  test('declined: purged the same way', async () => {
    const { id } = await sentEnvelope(env.api, owner, { signers: [ada] });
    const token = await signingTokenFor(owner.userId, id, ada.email);
    expect((await env.api.request('POST', '/signing/decline', { token, json: { reason: 'Not today.' } })).status).toBe(200);
    expect((await remove(id)).status).toBe(204);
    expect((await get(id)).body).toMatchObject({ status: 'declined', documentUrl: null, purgedAt: expect.any(String) });
    expectType(await env.api.request('GET', '/signing', { token }), 401, 'invalid-token');
  });

  test('a purge a crash interrupted (purgedAt recorded, documents still there) is finished by its retry, without a second event', async () => {
    const { id, blobName } = await completed();
    const services = getServices();
    // What the first request did before the process died: the commit of purgedAt and its event.
    const stored = (await services.envelopes.read(owner.userId, id))!;
    const change = new Change(stored.record, new Date());
    change.record.purgedAt = change.at;
    change.event('envelope.purged', { id: owner.userId, email: owner.email, ip: null, userAgent: null, apiKeyId: null }, {});
    await commitChange(services, stored, change);
    expect(await blobs(blobName)).toEqual({ documents: true, originals: true, sealed: true });
    const trail = await auditTrail(env.api, owner, id);

    expect((await remove(id)).status).toBe(204);
    expect(await blobs(blobName)).toEqual({ documents: false, originals: false, sealed: false });
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
  }, patience(60_000));
});
