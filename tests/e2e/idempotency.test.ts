/**
 * Idempotency keys (docs/api.md#idempotency) over real HTTP against real Azurite: every owner POST takes
 * `Idempotency-Key`; the first request runs, its 2xx/4xx answer is kept 24 h per owner and key and
 * replayed byte for byte with `Idempotent-Replayed: true`, changing nothing; 422 for a reused key,
 * 409 while the first runs (on any instance), 5xx not kept; a process that dies between its work and
 * storing the answer never lets a retry run the work again (docs/api.md "Idempotency").
 */
import net from 'node:net';
import { odata } from '@azure/data-tables';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { getServices } from '../../src/lib/services.js';
import { forgetExpiredIdempotencyKeys, runSweep } from '../../src/lib/sweeper/sweep.js';
import { DUE_TABLES } from '../../src/lib/storage/dueIndex.js';
import { EXPIRED_KEYS_DUE_ID, IDEMPOTENCY_KEY_DUE_KIND, expiryHourEnd, idempotencyRowKey } from '../../src/lib/storage/idempotencyKeyRepository.js';
import { auditTrail, outboxBatches, sentEnvelope } from '../support/signing.js';
import { emailsTo, waitForEmails } from '../support/mail.js';
import { waitUntil } from '../support/patience.js';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess.js';
import {
  ApiClient,
  corpusPdf,
  createEnvelopeWithDocument,
  expectType,
  putToSas,
  startTestService,
  type ApiResponse,
  type TestService,
  type TestUser,
} from '../support/service.js';

let env: TestService;
let other: ServiceProcess;
let owner: TestUser;

beforeAll(async () => {
  [env, other] = await Promise.all([startTestService(), startServiceProcess()]);
  owner = await env.newUser();
});
afterAll(async () => {
  await Promise.all([env.close(), other?.kill()]);
});

const uploadBody = { filename: 'contract.pdf', mimetype: 'application/pdf' };

function upload(api: ApiClient, user: TestUser, key: string | undefined, body: unknown = uploadBody): Promise<ApiResponse<any>> {
  return api.request('POST', '/GetUploadUrl', { token: user.token, json: body, ...(key === undefined ? {} : { headers: { 'Idempotency-Key': key } }) });
}

function complete(api: ApiClient, user: TestUser, id: string, key: string): Promise<ApiResponse<any>> {
  return api.request('POST', `/envelopes/${id}/complete`, { token: user.token, headers: { 'Idempotency-Key': key } });
}

async function envelopeIds(user: TestUser): Promise<string[]> {
  const listed = await env.api.request('GET', '/envelopes', { token: user.token });
  return (listed.body as { id: string }[]).map((envelope) => envelope.id);
}

/** A draft with its document uploaded and one signer: ready to complete. */
async function completableDraft(user: TestUser): Promise<string> {
  const id = await createEnvelopeWithDocument(env.api, user, await corpusPdf('normal.pdf'));
  const named = await env.api.request('PUT', `/envelopes/${id}`, { token: user.token, json: { signers: [{ email: `s-${randomUUID()}@example.com`, name: 'Sam Signer' }] } });
  expect(named.status).toBe(200);
  return id;
}

/** The stored row of (owner, key), as Table Storage holds it. */
async function storedKey(user: TestUser, key: string): Promise<Record<string, unknown> | null> {
  try {
    return await getServices().storage.tables.envelopes.getEntity<Record<string, unknown>>(user.userId, idempotencyRowKey(key));
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return null;
    throw error;
  }
}

async function changeStoredKey(user: TestUser, key: string, properties: Record<string, unknown>): Promise<void> {
  await getServices().storage.tables.envelopes.updateEntity({ partitionKey: user.userId, rowKey: idempotencyRowKey(key), ...properties }, 'Merge');
}

/**
 * Sends until the answer is other than 409 `idempotency-key-in-use`, as a client following
 * `Retry-After` does: another instance sees a kept answer once its stored copy, written right after
 * the first answer went out, has landed.
 */
async function settled(send: () => Promise<ApiResponse<any>>): Promise<ApiResponse<any>> {
  return await waitUntil(
    async () => {
      const answer = await send();
      return answer.status === 409 && answer.body.type === 'urn:problem:idempotency-key-in-use' ? undefined : answer;
    },
    20_000,
    'an answer other than 409 idempotency-key-in-use',
    { everyMs: 20 },
  );
}

/** The stored row of (owner, key) once it holds the kept answer. */
async function keptRow(user: TestUser, key: string): Promise<Record<string, unknown>> {
  return await waitUntil(
    async () => {
      const row = await storedKey(user, key);
      return row?.state === 'done' ? row : undefined;
    },
    20_000,
    'the kept answer',
    { everyMs: 20 },
  );
}

function expectReplayOf(replay: ApiResponse, first: ApiResponse): void {
  expect(replay.status).toBe(first.status);
  expect(replay.text).toBe(first.text);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  for (const header of ['content-type', 'cache-control', 'etag', 'location']) expect(replay.headers.get(header)).toBe(first.headers.get(header));
}

describe('a request with a new key runs; a retry gets its kept answer', () => {
  test('GetUploadUrl: the retry gets the same answer byte for byte with Idempotent-Replayed: true, and no second envelope', async () => {
    const key = randomUUID();
    const before = await envelopeIds(owner);
    const first = await upload(env.api, owner, key);
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await upload(env.api, owner, key);
    expectReplayOf(replay, first);
    expect(replay.headers.get('location')).toBe(`/api/envelopes/${first.body.envelopeId}`);
    expect(replay.headers.get('cache-control')).toBe('no-store');
    expect(replay.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await envelopeIds(owner)).toEqual([first.body.envelopeId, ...before]);
    expect((await auditTrail(env.api, owner, first.body.envelopeId)).map((event) => event.type)).toEqual(['envelope.created']);
  });

  test('another instance replays the stored answer (one storage row shared by every instance)', async () => {
    const key = randomUUID();
    const first = await upload(env.api, owner, key);
    expect(first.status).toBe(201);
    // GetUploadUrl's answer is stored in the envelope's own transaction: replayed at once, never "in use".
    expectReplayOf(await upload(other.api, owner, key), first);
    expect((await envelopeIds(owner)).filter((id) => id === first.body.envelopeId)).toHaveLength(1);
  });

  test('4xx answers are kept: the retry replays the refusal even once its cause is gone; a new key runs', async () => {
    const ticket = await upload(env.api, owner, undefined);
    const id = ticket.body.envelopeId as string;
    await env.api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: 'kept@example.com', name: 'Kept' }] } });
    const key = randomUUID();
    const refused = await complete(env.api, owner, id, key);
    expectType(refused, 409, 'document-not-uploaded');
    expect((await putToSas(ticket.body.uploadUrl, await corpusPdf('normal.pdf'))).status).toBe(201);
    expectReplayOf(await complete(env.api, owner, id, key), refused);
    expectReplayOf(await settled(() => complete(other.api, owner, id, key)), refused);
    expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.status).toBe('draft');
    const completed = await complete(env.api, owner, id, randomUUID());
    expect(completed.status).toBe(200);
  });

  test('an answer longer than one table property is kept whole', async () => {
    const key = randomUUID();
    const unknownFields = Object.fromEntries(Array.from({ length: 2000 }, (_, index) => [`unknownField${index}`, index]));
    const refused = await upload(env.api, owner, key, { ...uploadBody, ...unknownFields });
    expectType(refused, 400, 'validation-failed');
    expect(refused.text.length).toBeGreaterThan(64 * 1024);
    expect(Number((await keptRow(owner, key)).bodyParts)).toBeGreaterThan(1);
    expectReplayOf(await upload(other.api, owner, key, { ...uploadBody, ...unknownFields }), refused);
  });

  test('the answer is kept 24 hours from the request; after that the key is forgotten and a request with it runs anew', async () => {
    const key = randomUUID();
    const sentAt = Date.now();
    const first = await upload(env.api, owner, key);
    const answeredAt = Date.now();
    const row = await keptRow(owner, key);
    expect(row).toMatchObject({ state: 'done', status: 201, method: 'POST', path: '/api/GetUploadUrl' });
    const expiresAt = Date.parse(String(row.expiresAt));
    expect(expiresAt).toBeGreaterThanOrEqual(sentAt + 24 * 3600 * 1000);
    expect(expiresAt).toBeLessThanOrEqual(answeredAt + 24 * 3600 * 1000);
    // 24 hours later, as the other instance sees it (this instance remembers the answer until then).
    await changeStoredKey(owner, key, { expiresAt: new Date(Date.now() - 1000).toISOString() });
    const again = await upload(other.api, owner, key);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.envelopeId).not.toBe(first.body.envelopeId);
    expectReplayOf(await upload(other.api, owner, key), again); // this instance ran it: from memory
  });
});

describe('the sweeper deletes what is no longer kept', () => {
  /** The owner's due entries: when the sweeper is to delete the owner's expired keys. */
  async function dueEntries(user: TestUser): Promise<string[]> {
    const entries: string[] = [];
    const table = getServices().storage.tables[DUE_TABLES[IDEMPOTENCY_KEY_DUE_KIND]];
    const filter = odata`PartitionKey eq ${IDEMPOTENCY_KEY_DUE_KIND} and ownerId eq ${user.userId}`;
    for await (const entity of table.listEntities<{ id: string; dueAt: string }>({ queryOptions: { filter } })) {
      expect(entity.id).toBe(EXPIRED_KEYS_DUE_ID);
      entries.push(entity.dueAt);
    }
    return entries;
  }

  const sweepAt = (at: number) => runSweep({ services: getServices(), now: new Date(at), steps: [forgetExpiredIdempotencyKeys] });

  test('kept answers are deleted by the first sweep after the end of the hour their 24 hours end in, not before; one due entry per owner and hour', async () => {
    const user = await env.newUser();
    const keys = [randomUUID(), randomUUID(), randomUUID()];
    for (const key of keys) expect((await upload(env.api, user, key)).status).toBe(201);
    const rows = await Promise.all(keys.map((key) => keptRow(user, key)));
    const hourEnds = [...new Set(rows.map((row) => expiryHourEnd(String(row.expiresAt))))];
    expect(await waitUntil(async () => ((await dueEntries(user)).length === hourEnds.length ? dueEntries(user) : undefined), 20_000, 'the due entries', { everyMs: 20 })).toEqual(hourEnds);
    const last = Date.parse(hourEnds.at(-1)!);
    await sweepAt(Date.parse(String(rows[0]!.expiresAt)) - 1000);
    for (const key of keys) expect(await storedKey(user, key)).not.toBeNull();
    await sweepAt(last + 1000);
    for (const key of keys) expect(await storedKey(user, key)).toBeNull();
    expect(await dueEntries(user)).toEqual([]);
  });

  test('a key claimed again after its 24 hours keeps its new answer when the old entry falls due', async () => {
    const user = await env.newUser();
    const key = randomUUID();
    expect((await upload(env.api, user, key)).status).toBe(201);
    const row = await keptRow(user, key);
    const hourEnd = Date.parse(expiryHourEnd(String(row.expiresAt)));
    await waitUntil(async () => ((await dueEntries(user)).length > 0 ? true : undefined), 20_000, 'the due entry', { everyMs: 20 });
    // As a request after the 24 hours leaves it: the same key, a later expiry.
    await changeStoredKey(user, key, { expiresAt: new Date(hourEnd + 3600_000).toISOString() });
    await sweepAt(hourEnd + 1000);
    expect(await storedKey(user, key)).toMatchObject({ state: 'done' });
    expect(await dueEntries(user)).toEqual([]);
  });
});

describe('a key used for another request, an invalid key, another owner', () => {
  test('422 idempotency-key-reused for the same key with another body or another path; nothing runs', async () => {
    const key = randomUUID();
    const first = await upload(env.api, owner, key);
    expect(first.status).toBe(201);
    const before = await envelopeIds(owner);
    for (const reused of [
      await upload(env.api, owner, key, { ...uploadBody, filename: 'other.pdf' }),
      await upload(other.api, owner, key, { mimetype: 'application/pdf', filename: 'contract.pdf' }),
      await complete(env.api, owner, first.body.envelopeId, key),
    ]) {
      expectType(reused, 422, 'idempotency-key-reused');
      expect(reused.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await envelopeIds(owner)).toEqual(before);
    expectReplayOf(await upload(env.api, owner, key), first);
  });

  test.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé-1'],
    ['a control character', 'key\tone'],
  ])('400 invalid-idempotency-key for a key that is %s; nothing changes', async (_what, key) => {
    const before = await envelopeIds(owner);
    expectType(await upload(env.api, owner, key), 400, 'invalid-idempotency-key');
    expect(await envelopeIds(owner)).toEqual(before);
  });

  test('a key of 255 printable ASCII characters (spaces and punctuation included) is accepted', async () => {
    const key = `a "quoted", spaced ~key~ ${'x'.repeat(230)}`;
    expect(key).toHaveLength(255);
    const first = await upload(env.api, owner, key);
    expect(first.status).toBe(201);
    expectReplayOf(await upload(env.api, owner, key), first);
  });

  test('keys of different owners never meet: the same key and body run once for each', async () => {
    const stranger = await env.newUser();
    const key = randomUUID();
    const mine = await upload(env.api, owner, key);
    const theirs = await upload(env.api, stranger, key);
    expect([mine.status, theirs.status]).toEqual([201, 201]);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.envelopeId).not.toBe(mine.body.envelopeId);
    expect(await envelopeIds(stranger)).toEqual([theirs.body.envelopeId]);
  });

  test('requests other than POST ignore the header', async () => {
    const id = (await upload(env.api, owner, undefined)).body.envelopeId as string;
    const read = await env.api.request('GET', `/envelopes/${id}`, { token: owner.token, headers: { 'Idempotency-Key': '' } });
    expect(read.status).toBe(200);
    const key = randomUUID();
    for (const name of ['First', 'Second']) {
      const changed = await env.api.request('PATCH', `/envelopes/${id}`, { token: owner.token, json: { signers: [{ email: 'p@example.com', name }] }, headers: { 'Idempotency-Key': key } });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('idempotent-replayed')).toBeNull();
      expect(changed.body.signers[0].name).toBe(name);
    }
  });
});

describe('a replay changes nothing', () => {
  test('resend: no second audit event, outbox batch or e-mail; creating a webhook (its answer holds its secret) refuses the key', async () => {
    const email = `r-${randomUUID()}@example.com`;
    const { id, recipientIds } = await sentEnvelope(env.api, owner, { signers: [{ email, name: 'Rae Resend' }] });
    await waitForEmails(email, { count: 1 });
    const key = randomUUID();
    const route = `/envelopes/${id}/recipients/${recipientIds[0]}/resend`;
    const first = await env.api.request('POST', route, { token: owner.token, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(202);
    await waitForEmails(email, { count: 2 });
    const trail = await auditTrail(env.api, owner, id);
    const batches = (await outboxBatches(owner.userId, id)).length;

    expectReplayOf(await env.api.request('POST', route, { token: owner.token, headers: { 'Idempotency-Key': key } }), first);
    expectReplayOf(await settled(() => other.api.request('POST', route, { token: owner.token, headers: { 'Idempotency-Key': key } })), first);
    expect(await auditTrail(env.api, owner, id)).toEqual(trail);
    expect(trail.filter((event) => event.type === 'recipient.invited').map((event) => event.details.resend)).toEqual([false, true]);
    // E-mails and webhook events leave only through the outbox, written with the change: no new batch, no message.
    expect((await outboxBatches(owner.userId, id)).length).toBe(batches);
    expect(await emailsTo(email)).toHaveLength(2);

    const hookKey = randomUUID();
    const hook = { url: 'https://93.184.215.14/hooks/idempotent', events: ['envelope.completed'] };
    const hooksBefore = (await env.api.request('GET', '/webhooks', { token: owner.token })).body;
    expectType(await env.api.request('POST', '/webhooks', { token: owner.token, json: hook, headers: { 'Idempotency-Key': hookKey } }), 400, 'idempotency-not-supported');
    expect((await env.api.request('GET', '/webhooks', { token: owner.token })).body).toEqual(hooksBefore);
  });
});

describe('two instances, one storage', () => {
  test('the same key sent to both at once: exactly one request runs; the others get 409 with Retry-After or the replay', async () => {
    const user = await env.newUser();
    const id = await completableDraft(user);
    const key = randomUUID();
    const answers = await Promise.all([env.api, other.api, env.api, other.api].map((api) => complete(api, user, id, key)));
    const ran = answers.filter((answer) => answer.status === 200 && answer.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer === ran[0]) continue;
      if (answer.status === 409) {
        expectType(answer, 409, 'idempotency-key-in-use');
        expect(answer.headers.get('retry-after')).toBe('1');
      } else {
        expectReplayOf(answer, ran[0]!);
      }
    }
    for (const api of [env.api, other.api]) expectReplayOf(await settled(() => complete(api, user, id, key)), ran[0]!);
    expect((await auditTrail(env.api, user, id)).filter((event) => event.type === 'envelope.completed')).toHaveLength(1);

    const uploadKey = randomUUID();
    const uploads = await Promise.all([env.api, other.api, env.api, other.api, env.api, other.api].map((api) => upload(api, user, uploadKey)));
    const created = uploads.filter((answer) => answer.status === 201 && answer.headers.get('idempotent-replayed') === null);
    expect(created).toHaveLength(1);
    for (const answer of uploads) {
      if (answer === created[0]) continue;
      if (answer.status === 409) expectType(answer, 409, 'idempotency-key-in-use');
      else expectReplayOf(answer, created[0]!);
    }
    expect(await envelopeIds(user)).toEqual([created[0]!.body.envelopeId, id]);
  });

  test('5xx answers are not kept: the claim is released and a retry runs again', async () => {
    // An instance whose timestamp authority refuses connections: its completions answer 503.
    const broken = await startServiceProcess({ TSA_URL: 'http://127.0.0.1:1/tsa' });
    try {
      const id = await completableDraft(owner);
      const key = randomUUID();
      const failed = await complete(broken.api, owner, id, key);
      expectType(failed, 503, 'timestamp-authority-unavailable');
      expect(await storedKey(owner, key)).toBeNull();
      const retried = await complete(env.api, owner, id, key);
      expect(retried.status).toBe(200);
      expect(retried.headers.get('idempotent-replayed')).toBeNull();
      expectReplayOf(await settled(() => complete(broken.api, owner, id, key)), retried);
    } finally {
      await broken.kill();
    }
  });
});

describe('a crash between the work and storing its answer', () => {
  test('GetUploadUrl writes its claim in the envelope\'s own transaction: both land together, and a crash before the kept answer never creates a second envelope', async () => {
    const user = await env.newUser();
    const key = randomUUID();
    const first = await upload(env.api, user, key);
    expect(first.status).toBe(201);
    // The answer is in the row as soon as the request answered: it was written with the envelope.
    expect(await storedKey(user, key)).toMatchObject({ state: 'done', method: 'POST', path: '/api/GetUploadUrl', status: 201, body: first.text });
    // A claim left running by a dead process (as an endpoint that stores its answer after its work
    // leaves it): another instance, which never saw the answer, runs nothing.
    await changeStoredKey(user, key, { state: 'running', claimedAt: new Date().toISOString(), leaseUntil: new Date(Date.now() + 60_000).toISOString() });
    expectType(await upload(other.api, user, key), 409, 'idempotency-key-in-use');
    await changeStoredKey(user, key, { leaseUntil: new Date(Date.now() - 1000).toISOString() });
    expectType(await upload(other.api, user, key), 409, 'idempotency-outcome-unknown');
    expect(await envelopeIds(user)).toEqual([first.body.envelopeId]);
    // A refusal writes no transaction: its claim is written after it, and it is kept like any 4xx.
    const refusedKey = randomUUID();
    const refused = await env.api.request('POST', '/GetUploadUrl', { token: user.token, json: { filename: 'contract.pdf', mimetype: 'application/msword' }, headers: { 'Idempotency-Key': refusedKey } });
    expect(refused.status).toBe(415);
    expect((await keptRow(user, refusedKey)).status).toBe(415);
    expect(await envelopeIds(user)).toEqual([first.body.envelopeId]);
  });

  test('the claim of a killed instance is never run again: 409 in use while its lease holds, then 409 idempotency-outcome-unknown; a new key runs', async () => {
    // A timestamp authority that accepts connections and never answers: the completion is at work
    // (claim written, seal under way) when its instance is killed.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const doomed = await startServiceProcess({ TSA_URL: `http://127.0.0.1:${port}/tsa` });
    try {
      const id = await completableDraft(owner);
      const key = randomUUID();
      const lost = complete(doomed.api, owner, id, key).catch((error: unknown) => error);
      const claim = await waitUntil(async () => (await storedKey(owner, key)) ?? undefined, 20_000, 'the claim row', { everyMs: 20 });
      expect(claim).toMatchObject({ state: 'running', method: 'POST', path: `/api/envelopes/${id}/complete` });
      await doomed.kill();
      expect(await lost).toMatchObject({ name: 'TypeError', message: 'fetch failed' });

      const inUse = await complete(env.api, owner, id, key);
      expectType(inUse, 409, 'idempotency-key-in-use');
      expect(inUse.headers.get('retry-after')).toBe('1');
      // Once the lease of the dead instance has passed, the outcome is unknown: never run again.
      await changeStoredKey(owner, key, { leaseUntil: new Date(Date.now() - 1000).toISOString() });
      for (const api of [env.api, other.api]) {
        const unknown = await complete(api, owner, id, key);
        expectType(unknown, 409, 'idempotency-outcome-unknown');
        expect(unknown.headers.get('retry-after')).toBeNull();
        expect(unknown.body.detail).toContain(String(claim.claimedAt));
      }
      expect((await env.api.request('GET', `/envelopes/${id}`, { token: owner.token })).body.status).toBe('draft');
      expect((await auditTrail(env.api, owner, id)).filter((event) => event.type === 'envelope.completed')).toHaveLength(0);

      const withNewKey = await complete(env.api, owner, id, randomUUID());
      expect(withNewKey.status).toBe(200);
    } finally {
      await doomed.kill();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
