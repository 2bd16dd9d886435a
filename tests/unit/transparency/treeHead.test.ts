/**
 * Signed tree heads (docs/api.md#signed-tree-heads): the log key from its seed against RFC 8032's own
 * test vector, its key id against jose's RFC 7638 thumbprint, the signed bytes written out by hand
 * (RFC 8785 of four members whose names and values need no escaping), the signature checked with the
 * JWK through jose, the timestamp token's digest, and when a head is due.
 */
import { createHash, sign, webcrypto } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { calculateJwkThumbprint, importJWK, type JWK } from 'jose';
import { headIsDue, headSigningInput, logKeyFromSeed, signTreeHead } from '../../../src/lib/transparency/treeHead.js';

// RFC 8032 §7.1, TEST 1.
const SECRET = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const PUBLIC = Buffer.from('d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', 'hex');
const ROOT = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';

/** Whether `signature` (base64url) is the JWK's key's Ed25519 signature of `text`'s UTF-8, the key imported by jose. */
async function verifiedWithJwk(jwk: JWK, signature: string, text: string): Promise<boolean> {
  const key = (await importJWK(jwk, 'EdDSA')) as webcrypto.CryptoKey;
  return await webcrypto.subtle.verify({ name: 'Ed25519' }, key, Buffer.from(signature, 'base64url'), Buffer.from(text));
}

describe('the log key', () => {
  test('is the Ed25519 key of its seed (RFC 8032 §7.1 TEST 1), its kid the RFC 7638 thumbprint', async () => {
    const key = logKeyFromSeed(SECRET);
    expect(Buffer.from(key.publicJwk.x, 'base64url').equals(PUBLIC)).toBe(true);
    expect(key.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: PUBLIC.toString('base64url'), kid: key.keyId, alg: 'EdDSA', use: 'sig' });
    expect(key.keyId).toBe(await calculateJwkThumbprint({ kty: 'OKP', crv: 'Ed25519', x: key.publicJwk.x }, 'sha256'));
    // RFC 8032 §7.1 TEST 1: the signature of the empty message.
    expect(sign(null, Buffer.alloc(0), key.privateKey).toString('hex')).toBe(
      'e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b',
    );
    expect(() => logKeyFromSeed(new Uint8Array(31))).toThrow(RangeError);
  });
});

describe('a head', () => {
  test('signs exactly the RFC 8785 bytes of {treeSize, rootHash, timestamp, keyId}', async () => {
    const key = logKeyFromSeed(SECRET);
    const head = await signTreeHead({ treeSize: 42, rootHash: ROOT, timestamp: '2026-11-29T07:00:00.123Z' }, key);
    const expected = `{"keyId":"${key.keyId}","rootHash":"${ROOT}","timestamp":"2026-11-29T07:00:00.123Z","treeSize":42}`;
    expect(new TextDecoder().decode(headSigningInput(head))).toBe(expected);
    expect(head).toEqual({ treeSize: 42, rootHash: ROOT, timestamp: '2026-11-29T07:00:00.123Z', keyId: key.keyId, signature: expect.stringMatching(/^[A-Za-z0-9_-]{86}$/) });
    expect(await verifiedWithJwk(key.publicJwk, head.signature, expected)).toBe(true);
    expect(await verifiedWithJwk(key.publicJwk, head.signature, expected.replace('"treeSize":42', '"treeSize":43'))).toBe(false);
  });

  test('with a timestamp authority, carries its token over SHA-256 of the same bytes', async () => {
    const key = logKeyFromSeed(SECRET);
    const digests: Buffer[] = [];
    const head = await signTreeHead({ treeSize: 1, rootHash: ROOT, timestamp: '2026-11-29T07:00:00.000Z' }, key, async (digest) => {
      digests.push(Buffer.from(digest));
      return Uint8Array.of(0x30, 0x03, 0x02, 0x01, 0x00);
    });
    expect(digests).toEqual([createHash('sha256').update(headSigningInput(head)).digest()]);
    expect(head.timestampToken).toBe(Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]).toString('base64'));
  });
});

describe('when a head is due', () => {
  const at = (iso: string) => new Date(iso);
  test('the first at once; then only when the tree grew, at once after the empty tree\'s, else an interval after the newest', () => {
    expect(headIsDue(null, 0, at('2026-11-29T07:00:00.000Z'), 3600)).toBe(true);
    expect(headIsDue({ treeSize: 0, timestamp: '2026-11-29T07:00:00.000Z' }, 0, at('2026-11-29T09:00:00.000Z'), 3600)).toBe(false);
    expect(headIsDue({ treeSize: 0, timestamp: '2026-11-29T07:00:00.000Z' }, 2, at('2026-11-29T07:00:01.000Z'), 3600)).toBe(true);
    expect(headIsDue({ treeSize: 2, timestamp: '2026-11-29T07:00:00.000Z' }, 4, at('2026-11-29T07:59:59.999Z'), 3600)).toBe(false);
    expect(headIsDue({ treeSize: 2, timestamp: '2026-11-29T07:00:00.000Z' }, 4, at('2026-11-29T08:00:00.000Z'), 3600)).toBe(true);
    expect(headIsDue({ treeSize: 4, timestamp: '2026-11-29T07:00:00.000Z' }, 4, at('2026-11-29T09:00:00.000Z'), 3600)).toBe(false);
  });
});
