/**
 * The public append-only log (docs/api.md#public-log) over real HTTP, real seals and an Azurite of
 * this file's own (the log is one per storage account, so this file starts from an empty one):
 * - an empty log's head: tree size 0 and RFC 9162's empty root, signed;
 * - every head's signature verifies with the JWK of `GET /api/log/key` (imported with jose) over the
 *   RFC 8785 bytes written out here, and its `kid` is the key's RFC 7638 thumbprint;
 * - real completions' sealed PDFs (their bytes hashed here) and audit trail heads are proved in the
 *   tree by `GET /api/log/proof`, and newer trees consistent with older ones by
 *   `GET /api/log/consistency`, both checked with the RFC 9162 verifier of `tests/support/rfc9162.ts`;
 * - completions at the same instant, on two instances, get consecutive leaves, never one index twice;
 * - a process killed between sealing and appending (`SERVICE_CRASH_AT=log.beforeAppend`) leaves an
 *   envelope that the sweeper appends, once;
 * - malformed queries answer 400 problem details, an unknown hash 404.
 * No queue or timer functions: the file runs the sweeper itself.
 */
import { execFile } from 'node:child_process';
import { createHash, webcrypto } from 'node:crypto';
import { afterAll, describe, expect, test } from '@jest/globals';
import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import { getServices } from '../../src/lib/services.js';
import { appendDueLogEntries, makeDueTreeHead, runSweep } from '../../src/lib/sweeper/sweep.js';
import { ada } from '../support/people.js';
import { patience, waitUntil } from '../support/patience.js';
import { startServiceProcess } from '../support/serviceProcess.js';
import { corpusPdf, createEnvelopeWithDocument, expectType, ownAzuriteForFile, serviceForFile, type ApiClient, type TestUser } from '../support/service.js';
import { leafHashOf, verifyConsistency, verifyInclusion } from '../support/rfc9162.js';
import { tempFile } from '../support/tools.js';

/** Heads at most every 2 s here (default an hour), so that the file sees several. */
const INTERVAL_SECONDS = 2;
const savedInterval = process.env.LOG_STH_INTERVAL_SECONDS;
process.env.LOG_STH_INTERVAL_SECONDS = String(INTERVAL_SECONDS);

const azurite = ownAzuriteForFile();
let api: ApiClient;
let owner: TestUser;
serviceForFile((started) => ({ api, owner } = started), { triggers: false });
afterAll(async () => {
  await azurite.stop();
  if (savedInterval === undefined) delete process.env.LOG_STH_INTERVAL_SECONDS;
  else process.env.LOG_STH_INTERVAL_SECONDS = savedInterval;
});

interface Head {
  treeSize: number;
  rootHash: string;
  timestamp: string;
  keyId: string;
  signature: string;
}

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
const bytes = (hex: string): Buffer => Buffer.from(hex, 'hex');

/** The newest head, its signature checked with the log key (jose) over the RFC 8785 bytes written out here. */
async function head(): Promise<Head> {
  const answer = await api.request('GET', '/log/sth');
  expect(answer.status).toBe(200);
  const sth = answer.body as Head;
  const key = await api.request('GET', '/log/key');
  expect(key.status).toBe(200);
  const jwk = key.body as JWK & { kid: string };
  expect(sth.keyId).toBe(jwk.kid);
  // Four members whose names and values need no escaping: RFC 8785 is the names sorted, no white space.
  const signed = `{"keyId":"${sth.keyId}","rootHash":"${sth.rootHash}","timestamp":"${sth.timestamp}","treeSize":${sth.treeSize}}`;
  const publicKey = (await importJWK(jwk, 'EdDSA')) as webcrypto.CryptoKey;
  expect(await webcrypto.subtle.verify({ name: 'Ed25519' }, publicKey, Buffer.from(sth.signature, 'base64url'), Buffer.from(signed))).toBe(true);
  return sth;
}

/** A draft with one signer, completed by its owner: the sealed PDF's SHA-256 (of its bytes) and its audit trail head. */
async function complete(on: ApiClient = api): Promise<{ id: string; sealed: string; auditHead: string }> {
  const id = await draft();
  const completed = await on.request('POST', `/envelopes/${id}/complete`, { token: owner.token });
  expect(completed.status).toBe(200);
  return { id, ...(await leavesOf(id, completed.body.signedUrl as string)) };
}

async function draft(): Promise<string> {
  const id = await createEnvelopeWithDocument(api, owner, await corpusPdf('normal.pdf'));
  expect((await api.request('PUT', `/envelopes/${id}`, { token: owner.token, json: { signers: [ada] } })).status).toBe(200);
  return id;
}

/** The leaves of a completed envelope: the SHA-256 of the sealed bytes, and the `auditHead` its completion names. */
async function leavesOf(id: string, signedUrl?: string): Promise<{ sealed: string; auditHead: string }> {
  const envelope = await api.request('GET', `/envelopes/${id}`, { token: owner.token });
  expect(envelope.body.status).toBe('completed');
  const url = signedUrl ?? (envelope.body.signedUrl as string);
  const sealed = sha256(Buffer.from(await (await fetch(url)).arrayBuffer()));
  expect(sealed).toBe(envelope.body.hash);
  const trail = await api.request('GET', `/envelopes/${id}/audit`, { token: owner.token });
  const completed = (trail.body as { type: string; details: { sealedSha256: string; auditHead: string } }[]).find((event) => event.type === 'envelope.completed')!;
  expect(completed.details.sealedSha256).toBe(sealed);
  return { sealed, auditHead: completed.details.auditHead };
}

/** The proof of a leaf in the newest head's tree, verified with the RFC's algorithm. @returns its index */
async function proved(leaf: string, sth: Head): Promise<number> {
  const answer = await api.request('GET', `/log/proof?hash=${leaf}`);
  expect(answer.status).toBe(200);
  const { leafIndex, treeSize, auditPath } = answer.body as { leafIndex: number; treeSize: number; auditPath: string[] };
  expect(treeSize).toBe(sth.treeSize);
  expect(verifyInclusion(leafIndex, treeSize, leafHashOf(bytes(leaf)), auditPath.map(bytes), bytes(sth.rootHash))).toBe(true);
  // The same proof does not prove another leaf.
  expect(verifyInclusion(leafIndex, treeSize, leafHashOf(bytes(sha256(leaf))), auditPath.map(bytes), bytes(sth.rootHash))).toBe(false);
  return leafIndex;
}

/** Waits for a head that covers `size` leaves, running the sweeper's head step as its schedule would. */
async function headCovering(size: number): Promise<Head> {
  return await waitUntil(
    async () => {
      await runSweep({ services: getServices(), steps: [makeDueTreeHead] });
      const sth = await head();
      return sth.treeSize >= size ? sth : undefined;
    },
    30_000,
    `a signed tree head of at least ${size} leaves`,
    { everyMs: 250 },
  );
}

let firstHead: Head;
/** The log's first leaf: the first completion's sealed PDF's SHA-256. */
let firstSealed: string;

describe('the public log', () => {
  test('empty: its head has tree size 0 and the empty root, signed by the key of GET /api/log/key', async () => {
    const empty = await head();
    expect(empty).toEqual({ treeSize: 0, rootHash: sha256(''), timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), keyId: expect.any(String), signature: expect.any(String) });
    const key = (await api.request('GET', '/log/key')).body as JWK & { kid: string };
    expect(key).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: expect.any(String), alg: 'EdDSA', use: 'sig' });
    expect(key.kid).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: key.x! }, 'sha256'));
    expectType(await api.request('GET', `/log/proof?hash=${sha256('nothing')}`), 404, 'log-entry-not-found');
  });

  test('a completion\'s sealed PDF and audit trail head are its two leaves, proved in the next head, made at once after the empty one', async () => {
    const { sealed, auditHead } = await complete();
    firstSealed = sealed;
    firstHead = await headCovering(2);
    expect(firstHead.treeSize).toBe(2);
    expect(await proved(sealed, firstHead)).toBe(0);
    expect(await proved(auditHead, firstHead)).toBe(1);
    // Upper-case hex is the same hash.
    expect((await api.request('GET', `/log/proof?hash=${sealed.toUpperCase()}`)).body.leafIndex).toBe(0);
  });

  test('completions at the same instant, on two instances, get consecutive leaves and never one index twice', async () => {
    const other = await startServiceProcess();
    let completed: { id: string; sealed: string; auditHead: string }[];
    try {
      const drafts = await Promise.all([draft(), draft(), draft(), draft()]);
      const answers = await Promise.all(drafts.map(async (id, index) => await (index % 2 === 0 ? api : other.api).request('POST', `/envelopes/${id}/complete`, { token: owner.token })));
      for (const answer of answers) expect(answer.status).toBe(200);
      completed = await Promise.all(drafts.map(async (id, index) => ({ id, ...(await leavesOf(id, answers[index]!.body.signedUrl as string)) })));
    } finally {
      await other.close();
    }
    const sth = await headCovering(10);
    expect(sth.treeSize).toBe(10);
    // Heads are at least the interval apart (but the first after the empty log's).
    expect(Date.parse(sth.timestamp) - Date.parse(firstHead.timestamp)).toBeGreaterThanOrEqual(INTERVAL_SECONDS * 1000);
    const indexes: number[] = [];
    for (const { sealed, auditHead } of completed) {
      const at = await proved(sealed, sth);
      expect(await proved(auditHead, sth)).toBe(at + 1);
      indexes.push(at, at + 1);
    }
    expect(indexes.sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    // The older tree is a prefix of the newer: RFC 9162 §2.1.4.2.
    for (const first of [1, 2]) {
      const consistency = await api.request('GET', `/log/consistency?first=${first}&second=${sth.treeSize}`);
      expect(consistency.status).toBe(200);
      const older = first === 2 ? bytes(firstHead.rootHash) : leafHashOf(bytes(firstSealed));
      expect(verifyConsistency(first, sth.treeSize, older, bytes(sth.rootHash), (consistency.body.proof as string[]).map(bytes))).toBe(true);
    }
    const same = await api.request('GET', `/log/consistency?first=${sth.treeSize}&second=${sth.treeSize}`);
    expect(same.body).toEqual({ proof: [] });
    // A proof for the older tree, verified against the older head.
    const older = await api.request('GET', `/log/proof?hash=${firstSealed}&treeSize=2`);
    expect(older.body.treeSize).toBe(2);
    expect(verifyInclusion(0, 2, leafHashOf(bytes(firstSealed)), (older.body.auditPath as string[]).map(bytes), bytes(firstHead.rootHash))).toBe(true);
  }, patience(180_000));

  test('a process killed between sealing and appending leaves an envelope the sweeper appends, once', async () => {
    const before = await headCovering(10);
    const id = await draft();
    const doomed = await startServiceProcess({ SERVICE_CRASH_AT: 'log.beforeAppend' });
    try {
      const lost = await doomed.api.request('POST', `/envelopes/${id}/complete`, { token: owner.token }).catch((error: unknown) => error);
      expect(lost).toMatchObject({ name: 'TypeError', message: 'fetch failed' });
    } finally {
      await doomed.kill();
    }
    const { sealed, auditHead } = await leavesOf(id);
    const services = getServices();
    expect((await services.publicLog.state()).size).toBe(before.treeSize);
    expect(await services.publicLog.leafIndex(sealed)).toBeNull();
    // The sweeper, once the entry is due (a minute after the completion), then again later.
    const inTwoMinutes = new Date(Date.now() + 2 * 60_000);
    expect((await services.dueIndex.due('log', inTwoMinutes.toISOString(), 100)).map((entry) => entry.id)).toContain(id);
    expect((await runSweep({ services, now: inTwoMinutes, steps: [appendDueLogEntries] })).logAppends).toBeGreaterThanOrEqual(1);
    expect(await services.dueIndex.due('log', inTwoMinutes.toISOString(), 100)).toEqual([]);
    expect(await runSweep({ services, now: new Date(Date.now() + 3 * 60_000), steps: [appendDueLogEntries] })).toEqual({ logAppends: 0 });
    expect((await services.publicLog.state()).size).toBe(before.treeSize + 2);
    const sth = await headCovering(before.treeSize + 2);
    expect(sth.treeSize).toBe(before.treeSize + 2);
    expect(await proved(sealed, sth)).toBe(before.treeSize);
    expect(await proved(auditHead, sth)).toBe(before.treeSize + 1);
    // Its completion answered again (the owner retries): still once in the log.
    expect((await api.request('POST', `/envelopes/${id}/complete`, { token: owner.token })).status).toBe(200);
    await runSweep({ services, now: new Date(Date.now() + 10 * 60_000), steps: [appendDueLogEntries] });
    expect((await services.publicLog.state()).size).toBe(before.treeSize + 2);
  }, patience(180_000));

  test('malformed queries are refused with 400 problem details', async () => {
    const hash = sha256('x');
    for (const query of [
      '',
      'hash=',
      'hash=xyz',
      `hash=${hash}0`,
      `hash=${hash}&treeSize=0`,
      `hash=${hash}&treeSize=abc`,
      `hash=${hash}&treeSize=1.5`,
      `hash=${hash}&treeSize=999999`,
      `hash=${hash}&other=1`,
    ]) {
      expectType(await api.request('GET', `/log/proof?${query}`), 400, 'validation-failed');
    }
    for (const query of ['', 'first=1', 'second=2', 'first=0&second=2', 'first=3&second=2', 'first=a&second=2', 'first=1&second=999999', 'first=1&second=2&x=1']) {
      expectType(await api.request('GET', `/log/consistency?${query}`), 400, 'validation-failed');
    }
  });
});

describe('npm run verify --online against this log', () => {
  test('a sealed PDF of this service, once a head covers it, passes every check including the log head and both inclusion proofs', async () => {
    const before = await head();
    const { id } = await complete();
    await headCovering(before.treeSize + 2);
    const envelope = await api.request('GET', `/envelopes/${id}`, { token: owner.token });
    const file = await tempFile(new Uint8Array(await (await fetch(envelope.body.signedUrl as string)).arrayBuffer()), 'logged.pdf');
    const origin = new URL(api.apiUrl).origin;
    // Run as `npm run verify` runs it (the compiled script), against the real endpoints of GET /api/log/*.
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(process.execPath, ['dist/src/local/verify.js', file, '--online', origin], { maxBuffer: 16 * 1024 * 1024 }, (error, out) => {
        resolve({ code: error === null ? 0 : typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : -1, stdout: out });
      });
    });
    const lines = stdout.trimEnd().split('\n');
    expect(lines.filter((line) => line.startsWith('FAIL'))).toEqual([]);
    expect(lines.some((line) => line.startsWith('PASS log head:'))).toBe(true);
    expect(lines.some((line) => line.startsWith('PASS log inclusion:'))).toBe(true);
    expect(lines.at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(code).toBe(0);
  }, patience(180_000));
});
