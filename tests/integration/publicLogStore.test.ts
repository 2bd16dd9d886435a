/**
 * The public log's storage (docs/api.md#public-log, `src/lib/transparency/logStore.ts`) against a real
 * Azurite: two stores over one table (two instances, each grouping its own appends) appending at once
 * never fork the tree (every leaf one index, each envelope's leaves consecutive, the root MTH of them
 * all in that order); an envelope appended again keeps its place; an append whose process died after
 * its commit, before writing its rows, is finished by the next reader and counted once; a tree filled
 * at storage level (the benchmark's seeding) is the same tree. Every root and proof is checked with
 * the RFC 9162 verifier of `tests/support/rfc9162.ts`, not the service's code. With a timestamp
 * authority (the openssl one of `tests/support/pki.ts`), a signed tree head carries an RFC 3161 token
 * that `openssl ts -verify` accepts for SHA-256 of the head's signed bytes, written out here.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { TableClient } from '@azure/data-tables';
import { inclusionRanges, leafHash } from '../../src/lib/transparency/merkle.js';
import { PublicLogStore, type LogEntry } from '../../src/lib/transparency/logStore.js';
import { makeHeadIfDue } from '../../src/lib/transparency/publicLog.js';
import { loadConfig } from '../../src/lib/config.js';
import { mth, verifyInclusion } from '../support/rfc9162.js';
import { startTestPki } from '../support/pki.js';
import { tempFile, tool } from '../support/tools.js';

let tableName: string;
/** A client of this test's rows table, or with `State` of its state table. */
const client = (suffix: '' | 'State' = ''): TableClient => TableClient.fromConnectionString(process.env.STORAGE_CONNECTION_STRING!, `${tableName}${suffix}`, { allowInsecureConnection: true });
/** A store over this test's two tables, as an instance of the service has one. */
const newStore = (rows: TableClient = client()): PublicLogStore => new PublicLogStore(rows, client('State'));

beforeEach(async () => {
  tableName = `publicLog${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await Promise.all([client().createTable(), client('State').createTable()]);
});
afterEach(async () => {
  await Promise.all([client().deleteTable(), client('State').deleteTable()]);
});

/** An envelope of `count` leaves (a sealed PDF's and an audit head's SHA-256, say). */
function entry(count = 2): LogEntry {
  const envelopeId = randomUUID();
  return { envelopeId, leaves: Array.from({ length: count }, (_, index) => new Uint8Array(createHash('sha256').update(`${envelopeId} ${index}`).digest())) };
}

/** The leaves of the log in index order, from each entry's first index; fails on any gap or overlap. */
function leavesInOrder(placed: readonly { entry: LogEntry; index: number }[]): Uint8Array[] {
  const ordered: Uint8Array[] = [];
  for (const { entry, index } of [...placed].sort((a, b) => a.index - b.index)) {
    expect(index).toBe(ordered.length);
    ordered.push(...entry.leaves);
  }
  return ordered;
}

/** Checks the store's tree against the RFC: its root is MTH of `leaves`, and every leaf's proof verifies. */
async function expectTree(store: PublicLogStore, leaves: readonly Uint8Array[]): Promise<void> {
  const { size, rootHash } = await store.settledState();
  expect(size).toBe(leaves.length);
  const root = mth(leaves);
  expect(Buffer.from(rootHash).equals(root)).toBe(true);
  for (const [index, leaf] of leaves.entries()) {
    expect(await store.leafIndex(Buffer.from(leaf).toString('hex'))).toBe(index);
    const path = await store.rangeHashes(inclusionRanges(index, leaves.length));
    expect(verifyInclusion(index, leaves.length, leafHash(leaf), path, root)).toBe(true);
  }
}

describe('appends', () => {
  test('two instances appending 40 envelopes at once give each leaf one index, each envelope consecutive leaves, one tree', async () => {
    const stores = [newStore(), newStore()];
    const entries = Array.from({ length: 40 }, (_, index) => entry(1 + (index % 3)));
    const indexes = await Promise.all(entries.map(async (each, index) => await stores[index % 2]!.append(each)));
    const ordered = leavesInOrder(entries.map((each, index) => ({ entry: each, index: indexes[index]! })));
    await expectTree(stores[0]!, ordered);
    expect((await stores[1]!.state()).pending).toBeNull();
  });

  test('an envelope appended again, by either instance, keeps its place', async () => {
    const stores = [newStore(), newStore()];
    const first = entry();
    const second = entry();
    expect(await stores[0]!.append(first)).toBe(0);
    expect(await stores[1]!.append(second)).toBe(2);
    expect(await Promise.all([stores[1]!.append(first), stores[0]!.append(first), stores[0]!.append(second)])).toEqual([0, 0, 2]);
    await expectTree(stores[1]!, [...first.leaves, ...second.leaves]);
  });

  test('an append committed by a process that died before writing its rows is finished by the next reader, once', async () => {
    const dying = client();
    const died = new Error('the process died');
    Object.assign(dying, {
      upsertEntity: async () => await Promise.reject(died),
      submitTransaction: async () => await Promise.reject(died),
    });
    const before = entry();
    const lost = entry();
    const store = newStore();
    await store.append(before);
    await expect(newStore(dying).append(lost)).rejects.toBe(died);
    // Committed: the state holds it as pending, and none of its rows exist yet.
    const state = await store.state();
    expect(state.size).toBe(4);
    expect(state.pending?.entries.map((pending) => pending.envelopeId)).toEqual([lost.envelopeId]);
    expect(await store.leafIndex(Buffer.from(lost.leaves[0]!).toString('hex'))).toBeNull();
    // Appended again (the sweeper): the same place, the rows written, nothing added.
    expect(await store.append(lost)).toBe(2);
    const after = entry();
    expect(await store.append(after)).toBe(4);
    await expectTree(store, [...before.leaves, ...lost.leaves, ...after.leaves]);
  });
});

describe('a tree filled at storage level', () => {
  test('is the tree appends make, and takes appends after it', async () => {
    const store = newStore();
    const entries = Array.from({ length: 150 }, () => entry());
    await store.fill(entries);
    const next = entry();
    expect(await store.append(next)).toBe(300);
    const leaves = [...entries.flatMap((each) => each.leaves), ...next.leaves];
    const { rootHash } = await store.settledState();
    expect(Buffer.from(rootHash).equals(mth(leaves))).toBe(true);
    for (const index of [0, 1, 149, 255, 256, 299, 300, 301]) {
      const path = await store.rangeHashes(inclusionRanges(index, leaves.length));
      expect(verifyInclusion(index, leaves.length, leafHash(leaves[index]!), path, mth(leaves))).toBe(true);
    }
    expect(await store.append(entries[7]!)).toBe(14);
  });
});

describe('a signed tree head with a timestamp authority', () => {
  test('carries an RFC 3161 token over SHA-256 of exactly the bytes its signature covers', async () => {
    const pki = await startTestPki();
    try {
      const store = newStore();
      await store.append(entry());
      const config = { ...loadConfig(), tsaUrl: pki.tsaUrl };
      const head = (await makeHeadIfDue({ config, publicLog: store }))!;
      expect(head.treeSize).toBe(2);
      expect(pki.tsa.requests).toBe(1);
      const signed = `{"keyId":"${head.keyId}","rootHash":"${head.rootHash}","timestamp":"${head.timestamp}","treeSize":${head.treeSize}}`;
      const token = await tempFile(Buffer.from(head.timestampToken!, 'base64'), 'head.tst');
      const chain = await tempFile(Buffer.concat([await readFile(pki.intermediateFile), await readFile(pki.tsaCertificateFile)]), 'chain.pem');
      const digest = createHash('sha256').update(signed).digest('hex');
      const verified = await tool('openssl', ['ts', '-verify', '-digest', digest, '-in', token, '-token_in', '-CAfile', pki.rootFile, '-untrusted', chain]);
      expect(`${verified.stdout}${verified.stderr}`).toContain('Verification: OK');
      // Another head's bytes do not verify against it.
      const other = createHash('sha256').update(signed.replace(`"treeSize":2`, `"treeSize":3`)).digest('hex');
      expect((await tool('openssl', ['ts', '-verify', '-digest', other, '-in', token, '-token_in', '-CAfile', pki.rootFile, '-untrusted', chain])).code).not.toBe(0);
    } finally {
      await pki.close();
    }
  });
});
