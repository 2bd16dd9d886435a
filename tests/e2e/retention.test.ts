/**
 * Retention and immutable seals (docs/api.md#retention, docs/api.md#the-purge-log,
 * docs/api.md#sealed-pdfs-are-immutable) over real HTTP against a real Azurite of this file's own.
 *
 * The test host's clock: `RETENTION_DAY_SECONDS=1` makes a day of `retentionDays` last one second
 * (accepted only because this is a test process on the local host), and each sweep is run here with
 * the `now` the test gives it (`runSweep`); no timer sweep runs (`SWEEP_SCHEDULE` once a year).
 *
 * Azurite does not implement immutability policies. The WORM refusals are tested through a loopback
 * proxy in front of Azurite's Blob service (`tests/support/immutableBlobProxy.ts`) that answers a
 * DELETE of a locked sealed blob exactly as Azure Storage does: 409, `x-ms-error-code:
 * BlobImmutableDueToPolicy` and Azure's XML error body; and its properties with
 * `x-ms-immutability-policy-until-date`. Everything else reaches Azurite unchanged.
 */
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { commitPurge } from '../../src/lib/envelopes/delete.js';
import { claimSealedBlob, readSealedMetadata, refreshSealClaim, SealContendedError } from '../../src/lib/envelopes/sealClaim.js';
import { getServices } from '../../src/lib/services.js';
import { runSweep } from '../../src/lib/sweeper/sweep.js';
import { startAzurite, type RunningAzurite } from '../../src/local/azurite.js';
import { startImmutableBlobProxy, type ImmutableBlobProxy } from '../support/immutableBlobProxy.js';
import { patience } from '../support/patience.js';
import { createEnvelopeWithDocument, corpusPdf, expectType, startTestService, type TestService, type TestUser } from '../support/service.js';
import { auditTrail, outboxMessages, signingTokenFor, storedEnvelope } from '../support/signing.js';
import { startReceiver, type Receiver } from '../support/webhookReceiver.js';

const SETTINGS: Record<string, string> = {
  RETENTION_DAY_SECONDS: '1',
  OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
  WEBHOOK_RETRY_SECONDS: '1,1',
  // Once a year: every sweep of this file is one the test runs, at the time it gives.
  SWEEP_SCHEDULE: '0 0 0 1 1 *',
};
const saved = Object.fromEntries(['STORAGE_CONNECTION_STRING', ...Object.keys(SETTINGS)].map((name) => [name, process.env[name]]));

let azurite: RunningAzurite;
let proxy: ImmutableBlobProxy;
let env: TestService;
const receivers: Receiver[] = [];

beforeAll(async () => {
  azurite = await startAzurite();
  proxy = await startImmutableBlobProxy(azurite.connectionString);
  Object.assign(process.env, { STORAGE_CONNECTION_STRING: proxy.connectionString, ...SETTINGS });
  env = await startTestService({ logHandler: () => undefined, queueSettings: { minPollingIntervalMs: 25, maxPollingIntervalMs: 200 } });
}, patience(60_000));

afterAll(async () => {
  await env?.close();
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await proxy?.close();
  await azurite?.stop();
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };
const RETENTION_DAYS = 30;
/** A retention "day" of this file, milliseconds. */
const DAY_MS = 1000;

/** A new owner (of a new organisation) with `retentionDays`, and a webhook receiving its `envelope.purged` events. */
async function organization(retentionDays: number | null = RETENTION_DAYS): Promise<{ owner: TestUser; receiver: Receiver }> {
  const owner = await env.newUser();
  if (retentionDays !== null) expect((await env.api.request('PATCH', '/organization', { token: owner.token, json: { retentionDays } })).body.retentionDays).toBe(retentionDays);
  const receiver = await startReceiver({ kind: 'status', status: 204 });
  receivers.push(receiver);
  expect((await env.api.request('POST', '/webhooks', { token: owner.token, json: { url: receiver.url, events: ['envelope.purged'] } })).status).toBe(201);
  return { owner, receiver };
}

/** A sent envelope with one signer (and, for `expiresAt`, that expiry). */
async function sent(owner: TestUser, settings: Record<string, unknown> = {}): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, owner, await corpusPdf('normal.pdf'));
  const response = await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada], status: 'sent', ...settings } });
  expect(response.status).toBe(200);
  return id;
}

/** An envelope in `status`: completed by its signer's signature, declined by her, or voided by its owner. */
async function finished(owner: TestUser, status: 'completed' | 'declined' | 'voided'): Promise<string> {
  const id = await sent(owner);
  const token = await signingTokenFor(owner.userId, id, ada.email);
  const response =
    status === 'completed'
      ? await env.api.request('POST', '/signing/complete', { token, json: { consent: true, signature: { typed: ada.name } } })
      : status === 'declined'
        ? await env.api.request('POST', '/signing/decline', { token, json: { reason: 'The amount is wrong.' } })
        : await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { status: 'voided', voidedReason: 'Replaced.' } });
  expect(response.status).toBe(200);
  expect((await storedEnvelope(owner.userId, id)).status).toBe(status);
  return id;
}

/** Which of the envelope's blobs exist in Azurite, by container. */
async function blobs(owner: TestUser, id: string): Promise<Record<'documents' | 'originals' | 'sealed', boolean>> {
  const { blobName } = await storedEnvelope(owner.userId, id);
  const { containers } = getServices().storage;
  const [documents, originals, sealed] = await Promise.all([containers.documents, containers.originals, containers.sealed].map(async (container) => await container.getBlockBlobClient(blobName).exists()));
  return { documents: documents!, originals: originals!, sealed: sealed! };
}

/** When the envelope finished, milliseconds. */
async function closedAt(owner: TestUser, id: string): Promise<number> {
  return Date.parse((await storedEnvelope(owner.userId, id)).closedAt!);
}

/** A sweep at `now`, with what it logged. */
async function sweepAt(now: number): Promise<string[]> {
  const logged: string[] = [];
  await runSweep({ services: getServices(), now: new Date(now), log: (message) => logged.push(message) });
  return logged;
}

async function purgeLog(owner: TestUser, query = ''): Promise<any> {
  const response = await env.api.request('GET', `/organization/purges${query}`, { token: owner.token });
  expect(response.status).toBe(200);
  return response;
}

/** The `envelope.purged` events the receiver got, parsed. */
function purgedEvents(receiver: Receiver): { type: string; data: { envelopeId: string; status: string; hash?: string; reason?: string } }[] {
  return receiver.requests.map((request) => JSON.parse(request.body));
}

describe('retentionDays (docs/api.md#retention)', () => {
  test('PATCH /api/organization sets it (30 to 3650) and null removes it; GET shows it; anything else is 400', async () => {
    const owner = await env.newUser();
    expect((await env.api.request('GET', '/organization', { token: owner.token })).body.retentionDays).toBeNull();
    for (const retentionDays of [29, 3651, 30.5, '30', 0]) {
      expectType(await env.api.request('PATCH', '/organization', { token: owner.token, json: { retentionDays } }), 400, 'validation-failed');
    }
    expect((await env.api.request('PATCH', '/organization', { token: owner.token, json: { retentionDays: 30 } })).body.retentionDays).toBe(30);
    expect((await env.api.request('PATCH', '/organization', { token: owner.token, json: { retentionDays: 3650 } })).body.retentionDays).toBe(3650);
    // A change of another setting leaves it.
    expect((await env.api.request('PATCH', '/organization', { token: owner.token, json: { name: 'Kept' } })).body.retentionDays).toBe(3650);
    expect((await env.api.request('GET', '/organization', { token: owner.token })).body.retentionDays).toBe(3650);
    expect((await env.api.request('PATCH', '/organization', { token: owner.token, json: { retentionDays: null } })).body.retentionDays).toBeNull();
    expect((await env.api.request('GET', '/organization', { token: owner.token })).body.retentionDays).toBeNull();
  });

  test('the sweeper purges each finished state once its period passed, never an unfinished envelope nor another organisation\'s; the purge log and envelope.purged say so', async () => {
    const { owner, receiver } = await organization();
    const other = await organization(null);
    const completed = await finished(owner, 'completed');
    const declined = await finished(owner, 'declined');
    const voided = await finished(owner, 'voided');
    const unfinished = await sent(owner);
    const expiring = await sent(owner, { expiresAt: new Date(Date.now() + 60_000).toISOString() });
    const othersCompleted = await finished(other.owner, 'completed');
    const hash = (await storedEnvelope(owner.userId, completed)).hash!;
    const closed = await Promise.all([completed, declined, voided].map(async (id) => await closedAt(owner, id)));
    const last = Math.max(...closed);

    // One retention "day" short of the period of the first to finish: nothing is purged.
    await sweepAt(Math.min(...closed) + (RETENTION_DAYS - 1) * DAY_MS);
    expect(await blobs(owner, completed)).toEqual({ documents: true, originals: true, sealed: true });
    expect(await blobs(owner, declined)).toEqual({ documents: true, originals: true, sealed: false });
    expect((await purgeLog(owner)).body).toEqual([]);

    const logged = await sweepAt(last + (RETENTION_DAYS + 1) * DAY_MS);
    for (const id of [completed, declined, voided]) {
      expect([id, await blobs(owner, id)]).toEqual([id, { documents: false, originals: false, sealed: false }]);
      const envelope = (await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body;
      expect(envelope.purgedAt).not.toBeNull();
      expect(envelope.signedUrl).toBeNull();
      const trail = await auditTrail(env.api, owner, id);
      expect(trail.at(-1)).toMatchObject({ type: 'envelope.purged', actorId: 'system', details: {} });
      expect(trail.filter((event: { type: string }) => event.type === 'envelope.purged')).toHaveLength(1);
      expect(logged.some((line) => line.includes(id))).toBe(true);
    }
    // The sealed PDF's hash is still verifiable.
    expect((await env.api.request('GET', `/verify/${hash}`)).status).toBe(200);
    // Not finished, or finished too recently, or another organisation's: untouched.
    expect(await blobs(owner, unfinished)).toEqual({ documents: true, originals: true, sealed: false });
    expect((await storedEnvelope(owner.userId, unfinished)).purgedAt).toBeNull();
    expect(await blobs(other.owner, othersCompleted)).toEqual({ documents: true, originals: true, sealed: true });
    expect((await purgeLog(other.owner)).body).toEqual([]);

    // The expiring envelope expires in a later sweep; it is due only a period after that.
    const expiresAt = Date.parse((await storedEnvelope(owner.userId, expiring)).expiresAt!);
    await sweepAt(expiresAt + 1000);
    expect((await storedEnvelope(owner.userId, expiring)).status).toBe('expired');
    expect((await storedEnvelope(owner.userId, expiring)).purgedAt).toBeNull();
    await sweepAt((await closedAt(owner, expiring)) + (RETENTION_DAYS + 1) * DAY_MS);
    expect(await blobs(owner, expiring)).toEqual({ documents: false, originals: false, sealed: false });
    expect(await blobs(owner, unfinished)).toEqual({ documents: true, originals: true, sealed: false });

    // The purge log: newest first, ids and hashes only.
    const log = (await purgeLog(owner)).body as { envelopeId: string; purgedAt: string; sealedSha256: string | null; reason: string; sealedImmutableUntil: string | null }[];
    expect(log.map((entry) => entry.envelopeId).sort()).toEqual([completed, declined, voided, expiring].sort());
    expect(log[0]!.envelopeId).toBe(expiring);
    for (const entry of log) {
      expect(entry).toEqual({ envelopeId: entry.envelopeId, purgedAt: (await storedEnvelope(owner.userId, entry.envelopeId)).purgedAt, sealedSha256: entry.envelopeId === completed ? hash : null, reason: 'retention', sealedImmutableUntil: null });
    }
    // Paged as the envelope list is.
    const first = await purgeLog(owner, '?limit=3');
    expect(first.body).toEqual(log.slice(0, 3));
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')![1]!;
    expect((await purgeLog(owner, next.slice(next.indexOf('?')))).body).toEqual(log.slice(3));
    expectType(await env.api.request('GET', '/organization/purges?cursor=bm90LWEtY3Vyc29y', { token: owner.token }), 400, 'invalid-cursor');

    // One envelope.purged webhook per purge, with the reason and the sealed hash.
    await receiver.waitForRequests(4, patience(20_000));
    const events = purgedEvents(receiver);
    expect(events.map((event) => event.data.envelopeId).sort()).toEqual([completed, declined, voided, expiring].sort());
    expect(events.find((event) => event.data.envelopeId === completed)).toMatchObject({ type: 'envelope.purged', data: { status: 'completed', hash, reason: 'retention' } });
    expect(events.find((event) => event.data.envelopeId === declined)!.data).toEqual({ envelopeId: declined, status: 'declined', reason: 'retention' });
    expect(other.receiver.requests).toEqual([]);

    // A later DELETE changes nothing: the log keeps one row, with its reason.
    expect((await env.api.request('DELETE', `/envelopes/${completed}`, { token: owner.token })).status).toBe(204);
    expect((await purgeLog(owner)).body).toEqual(log);
  }, patience(120_000));

  test('a manual DELETE is in the purge log too (reason delete), and tells envelope.purged', async () => {
    const { owner, receiver } = await organization(null);
    const id = await finished(owner, 'voided');
    expect((await env.api.request('DELETE', `/envelopes/${id}`, { token: owner.token })).status).toBe(204);
    const [entry] = (await purgeLog(owner)).body;
    expect(entry).toEqual({ envelopeId: id, purgedAt: (await storedEnvelope(owner.userId, id)).purgedAt, sealedSha256: null, reason: 'delete', sealedImmutableUntil: null });
    await receiver.waitForRequests(1, patience(20_000));
    expect(purgedEvents(receiver)[0]!.data).toEqual({ envelopeId: id, status: 'voided', reason: 'delete' });
  });

  test('a sweep re-run after a crash mid-purge (purge committed, documents and log row not yet) finishes it, recording nothing twice', async () => {
    const { owner } = await organization();
    const id = await finished(owner, 'completed');
    const services = getServices();
    const at = (await closedAt(owner, id)) + (RETENTION_DAYS + 1) * DAY_MS;
    // What the dead sweep did: the first step of the purge only.
    await commitPurge(services, (await services.envelopes.read(owner.userId, id))!, { reason: 'retention', now: new Date(at) });
    expect(await blobs(owner, id)).toEqual({ documents: true, originals: true, sealed: true });
    expect((await purgeLog(owner)).body).toEqual([]);

    await sweepAt(at);
    expect(await blobs(owner, id)).toEqual({ documents: false, originals: false, sealed: false });
    expect((await purgeLog(owner)).body).toHaveLength(1);
    await sweepAt(at + DAY_MS);
    expect((await purgeLog(owner)).body).toHaveLength(1);
    expect((await auditTrail(env.api, owner, id)).filter((event: { type: string }) => event.type === 'envelope.purged')).toHaveLength(1);
    const purged = (await outboxMessages(owner.userId, id)).filter((message) => message.kind === 'event' && message.event.type === 'envelope.purged');
    expect(purged).toHaveLength(1);
  });

  test('envelopes finished before the organisation set a period are found by the first sweep after it', async () => {
    const { owner } = await organization(null);
    const id = await finished(owner, 'declined');
    // An envelope finished before the index existed: its entry is not there.
    const services = getServices();
    const record = await storedEnvelope(owner.userId, id);
    await services.retention.removeFinished({ organizationId: record.organizationId!, closedAt: record.closedAt!, envelopeId: id });
    expect((await env.api.request('PATCH', '/organization', { token: owner.token, json: { retentionDays: RETENTION_DAYS } })).status).toBe(200);
    await sweepAt(Date.parse(record.closedAt!) + (RETENTION_DAYS + 1) * DAY_MS);
    expect(await blobs(owner, id)).toEqual({ documents: false, originals: false, sealed: false });
  });
});

describe('sealed PDFs are immutable (docs/api.md#sealed-pdfs-are-immutable)', () => {
  test('the sealed PDF is written once: a second write of the same blob is refused, the first stays', async () => {
    const { owner } = await organization(null);
    const id = await finished(owner, 'completed');
    const services = getServices();
    const stored = (await services.envelopes.read(owner.userId, id))!;
    const before = await readSealedMetadata(services, stored.record.blobName);
    await expect(
      claimSealedBlob({
        services,
        stored,
        blobName: stored.record.blobName,
        existing: null,
        key: { baseVersion: stored.record.version, nonce: null },
        bytes: new TextEncoder().encode('%PDF-1.7 another seal'),
        originalSha256: stored.record.originalSha256!,
        completedAt: new Date().toISOString(),
        auditHead: 'f'.repeat(64),
      }),
    ).rejects.toBeInstanceOf(SealContendedError);
    const after = await readSealedMetadata(services, stored.record.blobName);
    expect(after?.etag).toBe(before?.etag);
    expect(after?.sealed?.hash).toBe(stored.record.hash);
  });

  test('a slow completion\'s claim under WORM (Set Blob Metadata refused) is checked, not renewed: still its own passes, replaced fails', async () => {
    const { owner } = await organization(null);
    const id = await finished(owner, 'completed');
    const services = getServices();
    const { record } = (await services.envelopes.read(owner.userId, id))!;
    proxy.lock(id, new Date(Date.now() + 3_600_000));
    const stored = (await readSealedMetadata(services, record.blobName))!;
    const slow = { ...stored.sealed!, storedAt: Date.now() - 5_000 };
    await expect(refreshSealClaim(services, record, slow)).resolves.toBeUndefined();
    await expect(refreshSealClaim(services, record, { ...slow, etag: '"0x8DD000000000000"' })).rejects.toBeInstanceOf(SealContendedError);
    expect(proxy.refused.filter((path) => path.includes(id))).toHaveLength(2);
    expect((await readSealedMetadata(services, record.blobName))?.etag).toBe(stored.etag);
  });

  test('DELETE of an envelope whose sealed PDF storage keeps: everything else is purged, 409 sealed-immutable with the date it ends', async () => {
    const { owner, receiver } = await organization(null);
    const id = await finished(owner, 'completed');
    const until = new Date(Date.UTC(2036, 10, 20, 10, 15, 30));
    proxy.lock(id, until);
    const response = await env.api.request('DELETE', `/envelopes/${id}`, { token: owner.token });
    expectType(response, 409, 'sealed-immutable');
    expect(response.body.immutableUntil).toBe(until.toISOString());
    expect(response.body.detail).toContain(until.toISOString());
    expect(await blobs(owner, id)).toEqual({ documents: false, originals: false, sealed: true });
    expect((await storedEnvelope(owner.userId, id)).purgedAt).not.toBeNull();
    expect((await purgeLog(owner)).body).toEqual([{ envelopeId: id, purgedAt: (await storedEnvelope(owner.userId, id)).purgedAt, sealedSha256: (await storedEnvelope(owner.userId, id)).hash, reason: 'delete', sealedImmutableUntil: until.toISOString() }]);
    await receiver.waitForRequests(1, patience(20_000));
    expect(proxy.refused.filter((path) => path.includes(id))).toHaveLength(1);
  });

  test('a retention purge storage refuses is reported once (purge log, sweep log) and never retried', async () => {
    const { owner } = await organization();
    const id = await finished(owner, 'completed');
    const until = new Date(Date.UTC(2036, 0, 2, 3, 4, 5));
    proxy.lock(id, until);
    const at = (await closedAt(owner, id)) + (RETENTION_DAYS + 1) * DAY_MS;
    const logged = await sweepAt(at);
    expect(logged.filter((line) => line.includes(id) && line.includes(until.toISOString()))).toHaveLength(1);
    expect(await blobs(owner, id)).toEqual({ documents: false, originals: false, sealed: true });
    expect((await purgeLog(owner)).body).toMatchObject([{ envelopeId: id, reason: 'retention', sealedImmutableUntil: until.toISOString() }]);
    const refusals = proxy.refused.filter((path) => path.includes(id)).length;
    expect(refusals).toBe(1);
    for (const later of [at + DAY_MS, at + 100 * DAY_MS]) {
      const again = await sweepAt(later);
      expect(again.filter((line) => line.includes(id) && line.includes('purged'))).toEqual([]);
    }
    expect(proxy.refused.filter((path) => path.includes(id))).toHaveLength(refusals);
    expect((await purgeLog(owner)).body).toHaveLength(1);
  });
});
