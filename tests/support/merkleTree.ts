/**
 * RFC 9162 §2.1's Merkle tree written out for the tests, independently of the service's code: the
 * tree hash MTH (§2.1.1) and the inclusion path PATH (§2.1.3.1), straight from their recursive
 * definitions (no storage, no shortcuts), to check what the verifier and the log compute.
 */
import { createHash } from 'node:crypto';

/** SHA-256 of the parts, one after the other. */
export const hashOf = (...parts: Uint8Array[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();

/** The largest power of two smaller than `n` (n ≥ 2). */
function split(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 9162 §2.1.1: MTH of the leaves' data. */
export function treeHash(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return hashOf();
  if (leaves.length === 1) return hashOf(Buffer.of(0), leaves[0]!);
  const k = split(leaves.length);
  return hashOf(Buffer.of(1), treeHash(leaves.slice(0, k)), treeHash(leaves.slice(k)));
}

/** RFC 9162 §2.1.3.1: PATH(m, D[n]). */
export function auditPath(m: number, leaves: readonly Buffer[]): Buffer[] {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k ? [...auditPath(m, leaves.slice(0, k)), treeHash(leaves.slice(k))] : [...auditPath(m - k, leaves.slice(k)), treeHash(leaves.slice(0, k))];
}
