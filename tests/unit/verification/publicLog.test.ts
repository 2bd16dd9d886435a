/**
 * The verifier's client side of the public log (src/lib/verification/publicLog.ts) against RFC 9162
 * written out again for the tests (tests/support/merkleTree.ts): MTH and PATH of §2.1.1 and §2.1.3.1 for every leaf of
 * trees of 1 to 33 leaves, whose proofs must lead to the root (§2.1.3.2) and must not for another
 * index, another size or a changed node; and a tree head signed with Node's own Ed25519 over the
 * RFC 8785 JSON of its four fields.
 */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { auditPath as path, treeHash as mth } from '../../support/merkleTree.js';
import { leafHash, rootFromInclusionProof, treeHeadSignatureValid, treeHeadSignedBytes } from '../../../src/lib/verification/publicLog.js';

const leaves = Array.from({ length: 33 }, (_, index) => createHash('sha256').update(`leaf ${index}`).digest());

describe('inclusion proofs (RFC 9162 §2.1.3.2)', () => {
  test('every leaf of trees of 1 to 33 leaves leads to the tree\'s root', async () => {
    for (let size = 1; size <= leaves.length; size++) {
      const tree = leaves.slice(0, size);
      const root = mth(tree);
      for (let index = 0; index < size; index++) {
        const found = await rootFromInclusionProof(index, size, await leafHash(tree[index]!), path(index, tree));
        expect(found === null ? null : Buffer.from(found)).toEqual(root);
      }
    }
  });

  test('another index, another tree size, a changed node or a path of the wrong length does not', async () => {
    const tree = leaves.slice(0, 13);
    const root = mth(tree);
    const proof = path(5, tree);
    const leaf = await leafHash(tree[5]!);
    const lead = async (index: number, size: number, nodes: Buffer[], expected = root) => {
      const found = await rootFromInclusionProof(index, size, leaf, nodes);
      return found !== null && Buffer.from(found).equals(expected);
    };
    expect(await lead(5, 13, proof)).toBe(true);
    expect(await lead(4, 13, proof)).toBe(false);
    // A proof for 13 leaves does not lead to the root of 12 or 14 (the head a verifier holds for that size).
    expect(await lead(5, 12, proof, mth(leaves.slice(0, 12)))).toBe(false);
    expect(await lead(5, 14, proof, mth(leaves.slice(0, 14)))).toBe(false);
    expect(await lead(13, 13, proof)).toBe(false);
    expect(await lead(5, 13, proof.slice(0, -1))).toBe(false);
    expect(await lead(5, 13, [...proof, proof[0]!])).toBe(false);
    const changed = proof.map((node) => Buffer.from(node));
    const node = changed[1]!;
    node[0] = node[0]! ^ 1;
    expect(await lead(5, 13, changed)).toBe(false);
  });
});

describe('signed tree heads', () => {
  test('a head signed with Ed25519 over the RFC 8785 JSON of {treeSize, rootHash, timestamp, keyId} verifies with its JWK; any change of a field does not', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const key = { ...(publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string }), kid: 'k1' };
    const fields = { treeSize: 7, rootHash: mth(leaves.slice(0, 7)).toString('hex'), timestamp: '2026-11-29T07:00:00.000Z', keyId: 'k1' };
    // RFC 8785 orders the members by name: keyId, rootHash, timestamp, treeSize.
    const canonical = `{"keyId":"k1","rootHash":"${fields.rootHash}","timestamp":"2026-11-29T07:00:00.000Z","treeSize":7}`;
    const head = { ...fields, signature: sign(null, Buffer.from(canonical, 'utf8'), privateKey).toString('base64url') };
    expect(new TextDecoder().decode(treeHeadSignedBytes(head))).toBe(canonical);
    expect(await treeHeadSignatureValid(head, key)).toBe(true);
    expect(await treeHeadSignatureValid({ ...head, treeSize: 8 }, key)).toBe(false);
    expect(await treeHeadSignatureValid({ ...head, timestamp: '2026-11-29T07:00:00.001Z' }, key)).toBe(false);
    const other = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
    expect(await treeHeadSignatureValid(head, other)).toBe(false);
  });
});
