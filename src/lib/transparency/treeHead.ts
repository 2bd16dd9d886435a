/**
 * Signed tree heads of the public log (docs/api.md#signed-tree-heads): the log key (Ed25519, RFC 8032,
 * from the 32-byte seed in `LOG_SIGNING_KEY`), its public JWK (RFC 8037) and key id (RFC 7638
 * thumbprint), the bytes a head's signature covers, and when a new head is due. Pure but for the
 * timestamp authority, which the caller hands in.
 */
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';

/** A signed tree head, as `GET /api/log/sth` answers it (docs/api.md#signed-tree-heads). */
export interface TreeHead {
  treeSize: number;
  /** MTH of the tree's leaves (RFC 9162 §2.1.1), lower-case hex. */
  rootHash: string;
  /** When it was made: ISO 8601 UTC with milliseconds. */
  timestamp: string;
  /** The log key's id ({@link LogKey.keyId}). */
  keyId: string;
  /** Ed25519 over {@link headSigningInput}, base64url without padding. */
  signature: string;
  /** With `TSA_URL`: an RFC 3161 TimeStampToken (DER, base64) whose message imprint is SHA-256 of {@link headSigningInput}. */
  timestampToken?: string;
}

/** The log's public key as `GET /api/log/key` answers it: an OKP JWK (RFC 8037) with its `kid`. */
export interface LogPublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  /** The public key, base64url. */
  x: string;
  /** RFC 7638 thumbprint (SHA-256, base64url) of `{crv, kty, x}`: the heads' `keyId`. */
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** The log key: its private key, public JWK and id. */
export interface LogKey {
  privateKey: KeyObject;
  publicJwk: LogPublicJwk;
  keyId: string;
}

/** DER of a PKCS#8 PrivateKeyInfo for Ed25519 (RFC 8410 §7) up to the 32-byte seed. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The log key from its 32-byte Ed25519 seed (RFC 8032 §5.1.5), as `LOG_SIGNING_KEY` holds it.
 * @throws RangeError when the seed is not 32 bytes
 */
export function logKeyFromSeed(seed: Uint8Array): LogKey {
  if (seed.length !== 32) throw new RangeError(`An Ed25519 key seed has 32 bytes, not ${seed.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  // RFC 7638 §3.2: the required members, in lexicographic order, no white space.
  const keyId = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${x}"}`).digest('base64url');
  return { privateKey, keyId, publicJwk: { kty: 'OKP', crv: 'Ed25519', x, kid: keyId, alg: 'EdDSA', use: 'sig' } };
}

/**
 * The bytes a head's signature covers (docs/api.md#signed-tree-heads): the UTF-8 of the RFC 8785
 * canonical JSON of `{treeSize, rootHash, timestamp, keyId}`.
 */
export function headSigningInput(head: Pick<TreeHead, 'treeSize' | 'rootHash' | 'timestamp' | 'keyId'>): Uint8Array {
  const text = canonicalize({ treeSize: head.treeSize, rootHash: head.rootHash, timestamp: head.timestamp, keyId: head.keyId })!;
  return new TextEncoder().encode(text);
}

/**
 * Signs a head with the log key; with `timestamp`, also gets an RFC 3161 token over SHA-256 of the
 * same bytes.
 * @param timestamp the timestamp authority's client: a DER TimeStampToken over a SHA-256 digest
 * @throws what `timestamp` throws
 */
export async function signTreeHead(tree: { treeSize: number; rootHash: string; timestamp: string }, key: LogKey, timestamp?: (digest: Uint8Array) => Promise<Uint8Array>): Promise<TreeHead> {
  const unsigned = { treeSize: tree.treeSize, rootHash: tree.rootHash, timestamp: tree.timestamp, keyId: key.keyId };
  const input = headSigningInput(unsigned);
  const signature = sign(null, input, key.privateKey).toString('base64url');
  if (timestamp === undefined) return { ...unsigned, signature };
  const token = await timestamp(new Uint8Array(createHash('sha256').update(input).digest()));
  return { ...unsigned, signature, timestampToken: Buffer.from(token).toString('base64') };
}

/**
 * Whether a new head is due (docs/api.md#signed-tree-heads): when there is none yet; else only when
 * the tree grew since the newest, and either the newest covers the empty tree (the first head after
 * an empty log is made at once) or it is at least `intervalSeconds` old.
 */
export function headIsDue(newest: Pick<TreeHead, 'treeSize' | 'timestamp'> | null, treeSize: number, now: Date, intervalSeconds: number): boolean {
  if (newest === null) return true;
  if (treeSize <= newest.treeSize) return false;
  if (newest.treeSize === 0) return true;
  return now.getTime() - Date.parse(newest.timestamp) >= intervalSeconds * 1000;
}
