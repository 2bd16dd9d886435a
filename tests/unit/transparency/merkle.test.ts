/**
 * The public log's tree (docs/api.md#public-log), pure: every hash the service's `merkle.ts` computes
 * is checked against MTH, PATH and PROOF recomputed by the RFC 9162 definitions of
 * `tests/support/rfc9162.ts` (code the service does not share), and every proof it plans verifies
 * with the RFC's own verification algorithms, for every leaf and every pair of sizes up to 40.
 */
import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { appendLeaves, consistencyRanges, EMPTY_ROOT, foldRight, frontierNodes, inclusionRanges, leafHash, nodeHash, rangeNodes, type LeafRange, type NodeKey } from '../../../src/lib/transparency/merkle.js';
import { leafHashOf, mth, path, proof, verifyConsistency, verifyInclusion } from '../../support/rfc9162.js';

const SIZES = 40;
const leaves = Array.from({ length: SIZES }, (_, index) => createHash('sha256').update(`leaf ${index}`).digest());

/** Every perfect subtree's hash, as the store would hold it, from the appends of `merkle.ts`. */
function storedNodes(count: number): Map<string, Uint8Array> {
  const nodes = new Map<string, Uint8Array>();
  let frontier: Uint8Array[] = [];
  for (let size = 0; size < count; size++) {
    const appended = appendLeaves(size, frontier, [leafHash(leaves[size]!)]);
    frontier = appended.frontier;
    for (const node of appended.nodes) nodes.set(`${node.level}_${node.index}`, node.hash);
  }
  return nodes;
}

const all = storedNodes(SIZES);
const hashOf = (node: NodeKey): Uint8Array => all.get(`${node.level}_${node.index}`)!;
const rangeHash = (range: LeafRange): Buffer => Buffer.from(foldRight(rangeNodes(range).map(hashOf)));

describe('RFC 9162 §2.1.1 hashing', () => {
  test('leaf, node and empty-tree hashes are the RFC\'s', () => {
    expect(Buffer.from(EMPTY_ROOT).toString('hex')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(Buffer.from(leafHash(leaves[0]!)).equals(leafHashOf(leaves[0]!))).toBe(true);
    expect(Buffer.from(nodeHash(leaves[0]!, leaves[1]!)).equals(createHash('sha256').update(Buffer.of(1)).update(leaves[0]!).update(leaves[1]!).digest())).toBe(true);
  });

  test('each stored node is MTH of its leaves, and the frontier folds to MTH of the tree, at every size', () => {
    for (const [id, hash] of all) {
      const [level, index] = id.split('_').map(Number) as [number, number];
      expect(Buffer.from(hash).equals(mth(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)))).toBe(true);
    }
    let frontier: Uint8Array[] = [];
    for (let size = 0; size <= SIZES; size++) {
      expect(frontier).toHaveLength(frontierNodes(size).length);
      expect(Buffer.from(foldRight(frontier)).equals(mth(leaves.slice(0, size)))).toBe(true);
      if (size < SIZES) frontier = appendLeaves(size, frontier, [leafHash(leaves[size]!)]).frontier;
    }
  });

  test('appending several leaves at once gives the same tree as one at a time', () => {
    const first = appendLeaves(0, [], leaves.slice(0, 11).map(leafHash));
    const then = appendLeaves(11, first.frontier, leaves.slice(11, 29).map(leafHash));
    expect(Buffer.from(foldRight(then.frontier)).equals(mth(leaves.slice(0, 29)))).toBe(true);
    for (const node of [...first.nodes, ...then.nodes]) expect(Buffer.from(node.hash).equals(Buffer.from(hashOf(node)))).toBe(true);
    expect(() => appendLeaves(3, [], [])).toThrow(RangeError);
  });
});

describe('proofs', () => {
  test('every inclusion proof is PATH(m, D[n]) and verifies by §2.1.3.2', () => {
    for (let n = 1; n <= SIZES; n++) {
      const tree = leaves.slice(0, n);
      const root = mth(tree);
      for (let m = 0; m < n; m++) {
        const planned = inclusionRanges(m, n).map(rangeHash);
        expect(planned.map((hash) => hash.toString('hex'))).toEqual(path(m, tree).map((hash) => hash.toString('hex')));
        expect(verifyInclusion(m, n, leafHashOf(tree[m]!), planned, root)).toBe(true);
        // The same path does not prove another leaf.
        if (n > 1) expect(verifyInclusion((m + 1) % n, n, leafHashOf(tree[m]!), planned, root)).toBe(false);
      }
    }
  });

  test('every consistency proof is PROOF(m, D[n]) and verifies by §2.1.4.2', () => {
    for (let n = 1; n <= SIZES; n++) {
      const tree = leaves.slice(0, n);
      for (let m = 1; m <= n; m++) {
        const planned = consistencyRanges(m, n).map(rangeHash);
        expect(planned.map((hash) => hash.toString('hex'))).toEqual(proof(m, tree).map((hash) => hash.toString('hex')));
        expect(verifyConsistency(m, n, mth(tree.slice(0, m)), mth(tree), planned)).toBe(true);
        // Against another first tree, it fails.
        if (m < n) expect(verifyConsistency(m, n, mth(leaves.slice(1, m + 1)), mth(tree), planned)).toBe(false);
      }
    }
  });

  test('a proof names O(log n) stored nodes', () => {
    const n = 1_000_003;
    for (const m of [0, 1, 524_287, 524_288, 999_999, n - 1]) {
      expect(inclusionRanges(m, n).flatMap(rangeNodes).length).toBeLessThanOrEqual(2 * 21);
    }
    expect(consistencyRanges(700_001, n).flatMap(rangeNodes).length).toBeLessThanOrEqual(2 * 21);
  });

  test('impossible requests are refused', () => {
    expect(() => inclusionRanges(3, 3)).toThrow(RangeError);
    expect(() => inclusionRanges(-1, 3)).toThrow(RangeError);
    expect(() => consistencyRanges(0, 3)).toThrow(RangeError);
    expect(() => consistencyRanges(4, 3)).toThrow(RangeError);
    expect(consistencyRanges(5, 5)).toEqual([]);
  });
});
