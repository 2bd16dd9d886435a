/**
 * An RFC 9162 Merkle tree verifier written from the RFC for the tests, sharing no code with the
 * service's (`src/lib/transparency`): MTH (§2.1.1), PATH and PROOF by their recursive definitions
 * (§2.1.3.1, §2.1.4.1), and the verification algorithms of §2.1.3.2 and §2.1.4.2 step by step.
 */
import { createHash } from 'node:crypto';

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

/** §2.1.1: the hash of a leaf, SHA-256(0x00 || d). */
export const leafHashOf = (leaf: Uint8Array): Buffer => sha256(Buffer.of(0x00), leaf);
/** §2.1.1: an interior node, SHA-256(0x01 || left || right). */
const interior = (left: Uint8Array, right: Uint8Array): Buffer => sha256(Buffer.of(0x01), left, right);

/** §2.1.1: the largest power of two smaller than n (n > 1). */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k << 1 < n) k <<= 1;
  return k;
}

/** §2.1.1 MTH(D[n]) of the leaves (their data, not their hashes). */
export function mth(leaves: readonly Uint8Array[]): Buffer {
  if (leaves.length === 0) return sha256();
  if (leaves.length === 1) return leafHashOf(leaves[0]!);
  const k = largestPowerOfTwoBelow(leaves.length);
  return interior(mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** §2.1.3.1 PATH(m, D[n]). */
export function path(m: number, leaves: readonly Uint8Array[]): Buffer[] {
  if (leaves.length === 1) return [];
  const k = largestPowerOfTwoBelow(leaves.length);
  return m < k ? [...path(m, leaves.slice(0, k)), mth(leaves.slice(k))] : [...path(m - k, leaves.slice(k)), mth(leaves.slice(0, k))];
}

/** §2.1.4.1 PROOF(m, D[n]) via SUBPROOF. */
export function proof(m: number, leaves: readonly Uint8Array[]): Buffer[] {
  const subproof = (m: number, d: readonly Uint8Array[], b: boolean): Buffer[] => {
    if (m === d.length) return b ? [] : [mth(d)];
    const k = largestPowerOfTwoBelow(d.length);
    return m <= k ? [...subproof(m, d.slice(0, k), b), mth(d.slice(k))] : [...subproof(m - k, d.slice(k), false), mth(d.slice(0, k))];
  };
  return subproof(m, leaves, true);
}

/** §2.1.3.2 step 4.b.ii and §2.1.4.2 step 6.b.iii: right-shift both fn and sn equally until either LSB(fn) is set or fn is 0. */
function shiftUntilSetOrZero(fn: number, sn: number): [number, number] {
  while (!(fn % 2 === 1 || fn === 0)) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return [fn, sn];
}

/** §2.1.3.2: whether `auditPath` proves the leaf of hash `leafHash` at `leafIndex` in the tree of `treeSize` with root `rootHash`. */
export function verifyInclusion(leafIndex: number, treeSize: number, leafHash: Uint8Array, auditPath: readonly Uint8Array[], rootHash: Uint8Array): boolean {
  if (leafIndex >= treeSize) return false;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let r: Buffer = Buffer.from(leafHash);
  for (const p of auditPath) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      r = interior(p, r);
      if (fn % 2 === 0) {
        [fn, sn] = shiftUntilSetOrZero(fn, sn);
      }
    } else {
      r = interior(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && r.equals(rootHash);
}

/** §2.1.4.2: whether `consistencyPath` proves that the tree of `second` leaves (root `secondHash`) extends the tree of `first` (root `firstHash`). */
export function verifyConsistency(first: number, second: number, firstHash: Uint8Array, secondHash: Uint8Array, consistencyPath: readonly Uint8Array[]): boolean {
  if (first > second || first === 0) return false;
  if (first === second) return consistencyPath.length === 0 && Buffer.from(firstHash).equals(secondHash);
  if (consistencyPath.length === 0) return false;
  const nodes: Buffer[] = (first & (first - 1)) === 0 ? [Buffer.from(firstHash), ...consistencyPath.map((c) => Buffer.from(c))] : consistencyPath.map((c) => Buffer.from(c));
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr: Buffer = nodes[0]!;
  let sr: Buffer = nodes[0]!;
  for (const c of nodes.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = interior(c, fr);
      sr = interior(c, sr);
      if (fn % 2 === 0) {
        [fn, sn] = shiftUntilSetOrZero(fn, sn);
      }
    } else {
      sr = interior(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return fr.equals(firstHash) && sr.equals(secondHash) && sn === 0;
}
