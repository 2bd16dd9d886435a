/**
 * The Merkle tree of the public append-only log (docs/api.md#public-log), pure: RFC 9162 §2.1 hashing
 * and the plans of its proofs. Storage (`logStore.ts`) keeps the tree as its perfect subtrees: the
 * node `(level, index)` is the hash of leaves `index × 2^level` to `(index + 1) × 2^level − 1`, written
 * once, when its last leaf is appended, and never changed. Every hash a proof names is one such node
 * or folds a few of them ({@link rangeNodes}), so a proof reads O(log n) rows and an append writes
 * O(log n) rows, never the whole tree.
 */
import { createHash } from 'node:crypto';

/** A perfect subtree of the tree: leaves `index × 2^level` up to, not including, `(index + 1) × 2^level`. */
export interface NodeKey {
  level: number;
  index: number;
}

/** A stored node: its place and its hash (32 bytes). */
export interface TreeNode extends NodeKey {
  hash: Uint8Array;
}

/** The leaves `start` up to, not including, `end` (0-based). */
export interface LeafRange {
  start: number;
  end: number;
}

/** The hash of the empty tree (RFC 9162 §2.1.1): SHA-256 of no bytes. */
export const EMPTY_ROOT: Uint8Array = new Uint8Array(createHash('sha256').digest());

/** A leaf's hash (RFC 9162 §2.1.1): SHA-256(0x00 || leaf). */
export function leafHash(leaf: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(Uint8Array.of(0)).update(leaf).digest());
}

/** An interior node's hash (RFC 9162 §2.1.1): SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(Uint8Array.of(1)).update(left).update(right).digest());
}

/** The largest power of two strictly less than `n` (RFC 9162 §2.1.1's `k`), for `n` ≥ 2. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The hash of the tree whose perfect subtrees, largest (leftmost) first, have `hashes`: RFC 9162's
 * MTH splits a tree at the largest power of two below its size, so it folds from the right.
 * No hashes: {@link EMPTY_ROOT}.
 */
export function foldRight(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return EMPTY_ROOT;
  let hash = hashes.at(-1)!;
  for (let at = hashes.length - 2; at >= 0; at--) hash = nodeHash(hashes[at]!, hash);
  return hash;
}

/**
 * The perfect subtrees that make up the leaves of `range`, leftmost first: from `start`, each time the
 * largest perfect subtree that starts there and ends by `end`. For every range a proof names (RFC 9162
 * §2.1.3 and §2.1.4 only ever split at powers of two), {@link foldRight} of their hashes is MTH of the range.
 * @throws RangeError for an empty or negative range
 */
export function rangeNodes({ start, end }: LeafRange): NodeKey[] {
  if (!(Number.isSafeInteger(start) && Number.isSafeInteger(end) && start >= 0 && end > start)) throw new RangeError(`No leaves in [${start}, ${end})`);
  const nodes: NodeKey[] = [];
  let at = start;
  while (at < end) {
    let level = 0;
    while (at % 2 ** (level + 1) === 0 && at + 2 ** (level + 1) <= end) level++;
    nodes.push({ level, index: at / 2 ** level });
    at += 2 ** level;
  }
  return nodes;
}

/** The perfect subtrees of a tree of `size` leaves, leftmost (largest) first: its "frontier". */
export function frontierNodes(size: number): NodeKey[] {
  return size === 0 ? [] : rangeNodes({ start: 0, end: size });
}

/**
 * Appends `leaves` (already {@link leafHash}ed) to a tree of `size` leaves whose frontier hashes are
 * `frontier` (leftmost first, {@link frontierNodes}).
 * @returns the new frontier and every node completed by the append (each leaf, and each perfect
 *   subtree it completes: at most log2 of the size per leaf, two per leaf on average)
 * @throws RangeError when `frontier` does not fit `size`
 */
export function appendLeaves(size: number, frontier: readonly Uint8Array[], leaves: readonly Uint8Array[]): { frontier: Uint8Array[]; nodes: TreeNode[] } {
  if (frontier.length !== frontierNodes(size).length) throw new RangeError(`A tree of ${size} leaves has ${frontierNodes(size).length} frontier hashes, not ${frontier.length}`);
  const next = [...frontier];
  const nodes: TreeNode[] = [];
  let position = size;
  for (const leaf of leaves) {
    let hash = leaf;
    let level = 0;
    let index = position;
    nodes.push({ level, index, hash });
    // Each trailing 1 bit of the position completes a perfect subtree with its left sibling, the frontier's last.
    while (index % 2 === 1) {
      hash = nodeHash(next.pop()!, hash);
      level++;
      index = (index - 1) / 2;
      nodes.push({ level, index, hash });
    }
    next.push(hash);
    position++;
  }
  return { frontier: next, nodes };
}

/**
 * The subtrees whose hashes make the inclusion proof of leaf `leafIndex` in the tree of `treeSize`
 * leaves (RFC 9162 §2.1.3.1, PATH), in the proof's order (from the leaf up).
 * @throws RangeError unless 0 ≤ leafIndex < treeSize
 */
export function inclusionRanges(leafIndex: number, treeSize: number): LeafRange[] {
  if (!(Number.isSafeInteger(leafIndex) && Number.isSafeInteger(treeSize) && leafIndex >= 0 && leafIndex < treeSize)) throw new RangeError(`Leaf ${leafIndex} is not in a tree of ${treeSize}`);
  const path: LeafRange[] = [];
  let start = 0;
  let end = treeSize;
  let m = leafIndex;
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (m < k) {
      path.push({ start: start + k, end });
      end = start + k;
    } else {
      path.push({ start, end: start + k });
      start += k;
      m -= k;
    }
  }
  return path.reverse();
}

/**
 * The subtrees whose hashes make the consistency proof between the trees of `first` and `second`
 * leaves (RFC 9162 §2.1.4.1, PROOF and SUBPROOF), in the proof's order. Empty when they are equal.
 * @throws RangeError unless 0 < first ≤ second
 */
export function consistencyRanges(first: number, second: number): LeafRange[] {
  if (!(Number.isSafeInteger(first) && Number.isSafeInteger(second) && first > 0 && first <= second)) throw new RangeError(`No consistency proof from ${first} to ${second}`);
  const proof: LeafRange[] = [];
  let start = 0;
  let end = second;
  let m = first;
  let whole = true;
  for (;;) {
    const n = end - start;
    if (m === n) {
      if (!whole) proof.push({ start, end });
      break;
    }
    const k = splitPoint(n);
    if (m <= k) {
      proof.push({ start: start + k, end });
      end = start + k;
    } else {
      proof.push({ start, end: start + k });
      start += k;
      m -= k;
      whole = false;
    }
  }
  return proof.reverse();
}
