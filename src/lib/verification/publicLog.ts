/**
 * The client side of the public append-only log (docs/evidence.md#the-public-log): a signed tree head's
 * Ed25519 signature over the RFC 8785 JSON of `{treeSize, rootHash, timestamp, keyId}`, and an
 * inclusion proof checked as RFC 9162 §2.1.3.2 describes, with RFC 9162 §2.1.1's hashes (a leaf
 * `SHA-256(0x00 || data)`, a node `SHA-256(0x01 || left || right)`). Web Crypto only, so it runs in
 * Node.js and in a browser.
 */
import canonicalize from 'canonicalize';
import { concat, digest, fromBase64Url, fromHex, toHex } from './bytes.js';

/** A signed tree head as `GET /api/log/sth` answers it. */
export interface SignedTreeHead {
  treeSize: number;
  rootHash: string;
  timestamp: string;
  keyId: string;
  signature: string;
  timestampToken?: string;
}

/** An inclusion proof as `GET /api/log/proof` answers it. */
export interface InclusionProof {
  leafIndex: number;
  treeSize: number;
  auditPath: string[];
}

/** The log's public key as `GET /api/log/key` answers it (an OKP JWK, RFC 8037). */
export interface LogKey {
  kty: string;
  crv: string;
  x: string;
  kid?: string;
}

/** RFC 9162 §2.1.1: the hash of a leaf whose data is `data`. */
export async function leafHash(data: Uint8Array): Promise<Uint8Array> {
  return await digest('SHA-256', concat(Uint8Array.of(0), data));
}

/** RFC 9162 §2.1.1: the hash of an inner node. */
async function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  return await digest('SHA-256', concat(Uint8Array.of(1), left, right));
}

/**
 * The root an inclusion proof leads to (RFC 9162 §2.1.3.2), or `null` when the proof cannot be one
 * for that index and size (an index past the tree, a path too long or too short).
 */
export async function rootFromInclusionProof(leafIndex: number, treeSize: number, leaf: Uint8Array, auditPath: readonly Uint8Array[]): Promise<Uint8Array | null> {
  if (!Number.isSafeInteger(leafIndex) || !Number.isSafeInteger(treeSize) || leafIndex < 0 || leafIndex >= treeSize) return null;
  let fn = leafIndex;
  let sn = treeSize - 1;
  let root = leaf;
  for (const sibling of auditPath) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      root = await nodeHash(sibling, root);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      root = await nodeHash(root, sibling);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? root : null;
}

/** The bytes a tree head's signature covers: the RFC 8785 JSON of `{treeSize, rootHash, timestamp, keyId}` in UTF-8. */
export function treeHeadSignedBytes(head: SignedTreeHead): Uint8Array {
  return new TextEncoder().encode(canonicalize({ treeSize: head.treeSize, rootHash: head.rootHash, timestamp: head.timestamp, keyId: head.keyId }) ?? '');
}

/**
 * Whether the head's Ed25519 signature verifies with `key` (Web Crypto's Ed25519).
 * @throws Error when the key is not an Ed25519 JWK or the signature is not base64url
 */
export async function treeHeadSignatureValid(head: SignedTreeHead, key: LogKey): Promise<boolean> {
  if (key.kty !== 'OKP' || key.crv !== 'Ed25519') throw new Error(`the log key is ${key.kty}/${key.crv}, not an Ed25519 key`);
  const imported = await crypto.subtle.importKey('jwk', { kty: key.kty, crv: key.crv, x: key.x }, { name: 'Ed25519' }, false, ['verify']);
  return await crypto.subtle.verify({ name: 'Ed25519' }, imported, fromBase64Url(head.signature) as Uint8Array<ArrayBuffer>, treeHeadSignedBytes(head) as Uint8Array<ArrayBuffer>);
}

/** The audit path's hashes as bytes. @throws Error when one is not 64 hex digits */
export function auditPathBytes(proof: InclusionProof): Uint8Array[] {
  return proof.auditPath.map((hex) => {
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new Error(`the audit path holds ${JSON.stringify(hex)}, not a SHA-256`);
    return fromHex(hex);
  });
}

/** Lower-case hex of a root, for messages. */
export const rootHex = toHex;
