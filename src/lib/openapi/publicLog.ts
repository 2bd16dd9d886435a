/**
 * The public append-only log's endpoints in the OpenAPI document (docs/api.md#public-log): the newest
 * signed tree head, inclusion and consistency proofs, and the log key. Public: no `security`.
 *
 * The examples are a real log of one envelope (two leaves) signed with a published example key, so a
 * reader can check them by hand as docs/api.md#signed-tree-heads shows. Response schemas are strict
 * objects tied at compile time to the types the service answers with (bottom of this file).
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { sign } from 'node:crypto';
import { z } from 'zod';
import { EMPTY_ROOT, foldRight, leafHash } from '../transparency/merkle.js';
import { toHex } from '../transparency/logStore.js';
import type { InclusionProofView } from '../transparency/publicLog.js';
import { logConsistencyQuery, logProofQuery } from '../transparency/schemas.js';
import { headSigningInput, logKeyFromSeed, type LogPublicJwk, type TreeHead } from '../transparency/treeHead.js';
import { internalError, type Operation } from './common.js';
import { problemResponses, timestamp } from './responses.js';
import { matches, type Matches } from './ties.js';

const hex = z.string().regex(/^[0-9a-f]{64}$/);

export const treeHeadResponse = z
  .strictObject({
    treeSize: z.int().min(0).meta({ description: 'How many leaves the tree has.' }),
    rootHash: hex.meta({ description: `Its root hash (RFC 9162 §2.1.1 MTH), lower-case hex; the empty tree's is SHA-256 of nothing, \`${toHex(EMPTY_ROOT)}\`.` }),
    timestamp: timestamp.meta({ description: 'When the head was made: ISO 8601 UTC with milliseconds.' }),
    keyId: z.string().meta({ description: 'The `kid` of the log key (`GET /api/log/key`) that signed it.' }),
    signature: z
      .string()
      .regex(/^[A-Za-z0-9_-]{86}$/)
      .meta({ description: 'Ed25519 (RFC 8032) over the UTF-8 of the RFC 8785 canonical JSON of `{treeSize, rootHash, timestamp, keyId}`, base64url without padding.' }),
    timestampToken: z
      .base64()
      .optional()
      .meta({ description: 'With `TSA_URL` set: an RFC 3161 TimeStampToken (DER, base64) whose message imprint is SHA-256 of those same signed bytes.' }),
  })
  .meta({ id: 'SignedTreeHead', description: 'A signed tree head of the public log (docs/api.md#signed-tree-heads).' });

export const inclusionProofResponse = z
  .strictObject({
    leafIndex: z.int().min(0).meta({ description: 'The leaf\'s place in the log, from 0.' }),
    treeSize: z.int().min(1).meta({ description: 'The tree the proof is for.' }),
    auditPath: z.array(hex).meta({ description: 'RFC 9162 §2.1.3.1 PATH: the sibling hashes from the leaf up to the root, lower-case hex.' }),
  })
  .meta({ id: 'LogInclusionProof', description: 'An inclusion proof (RFC 9162 §2.1.3).' });

export const consistencyProofResponse = z
  .strictObject({ proof: z.array(hex).meta({ description: 'RFC 9162 §2.1.4.1 PROOF, lower-case hex; empty when the sizes are equal.' }) })
  .meta({ id: 'LogConsistencyProof', description: 'A consistency proof (RFC 9162 §2.1.4).' });

export const logKeyResponse = z
  .strictObject({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().regex(/^[A-Za-z0-9_-]{43}$/).meta({ description: 'The public key, base64url (RFC 8037).' }),
    kid: z.string().regex(/^[A-Za-z0-9_-]{43}$/).meta({ description: 'RFC 7638 thumbprint (SHA-256, base64url) of the key: the heads\' `keyId`.' }),
    alg: z.literal('EdDSA'),
    use: z.literal('sig'),
  })
  .meta({ id: 'LogKey', description: 'The log key\'s public part, a JWK (RFC 7517, RFC 8037).' });

/**
 * The example log (docs/api.md#signed-tree-heads): one envelope's leaves (its sealed PDF's SHA-256,
 * then its audit trail's head), signed with the example key of seed 32 × `0x01`, which no deployment uses.
 */
export function exampleLog(): { key: LogPublicJwk; head: TreeHead; signedText: string; leaves: [string, string]; proof: InclusionProofView } {
  const key = logKeyFromSeed(new Uint8Array(32).fill(1));
  const leaves: [string, string] = ['3d5c7f0a9b8e6d4c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c', '8f2b6d1e4a7c9b3f5e2d8a6c1b7f4e9d3a5c8b2f6e1d4a9c7b3e5f8a2d6c1b4e'];
  const hashes = leaves.map((leaf) => leafHash(new Uint8Array(Buffer.from(leaf, 'hex'))));
  const unsigned = { treeSize: 2, rootHash: toHex(foldRight(hashes)), timestamp: '2026-11-22T11:00:00.000Z', keyId: key.keyId };
  const input = headSigningInput(unsigned);
  const head = { ...unsigned, signature: sign(null, input, key.privateKey).toString('base64url') };
  return { key: key.publicJwk, head, signedText: new TextDecoder().decode(input), leaves, proof: { leafIndex: 0, treeSize: 2, auditPath: [toHex(hashes[1]!)] } };
}

const problem = problemResponses({
  'query-validation-failed': { type: 'validation-failed', detail: 'The query is invalid: hash must be a SHA-256 in hex (64 hex digits).', errors: [{ path: 'hash', message: 'must be a SHA-256 in hex (64 hex digits)' }] },
  'log-entry-not-found': {},
  'storage-unavailable': { detail: 'Storage is unavailable right now; retry shortly.' },
  'internal-error': {
    detail: 'An unexpected error occurred. Quote correlation id 0b5e2f4c-3a1d-4e6f-8a9b-1c2d3e4f5a6b when reporting it.',
    correlationId: '0b5e2f4c-3a1d-4e6f-8a9b-1c2d3e4f5a6b',
  },
});

const json = 'application/json';
const queryRefused = problem(400, 'A query parameter is missing, malformed or unknown, or a tree size is beyond the newest signed tree head\'s (`validation-failed`).', ['query-validation-failed']);
const storageUnavailable = problem(503, 'Storage does not answer (`storage-unavailable`); retry after `Retry-After` seconds.', ['storage-unavailable']);

function operations(): Operation[] {
  const example = exampleLog();
  return [
    {
      operationId: 'GetLogHead',
      method: 'get',
      path: '/log/sth',
      tags: ['Evidence'],
      summary: 'The public log\'s newest signed tree head',
      description:
        'The newest signed tree head. One is made at most every `LOG_STH_INTERVAL_SECONDS` (default 3600) when the tree grew, at once for the first completion after an empty log, so every completion is covered by a head within that interval. On an empty log: a head of the empty tree (`treeSize` 0).',
      security: [],
      responses: {
        200: { description: 'The newest head.', headers: { 'Cache-Control': { description: '`no-store`: a newer head may come at any time.', required: true, schema: { type: 'string', const: 'no-store' } } }, content: { [json]: { schema: treeHeadResponse, example: example.head } } },
        503: storageUnavailable,
        500: internalError,
      },
    },
    {
      operationId: 'GetLogProof',
      method: 'get',
      path: '/log/proof',
      tags: ['Evidence'],
      summary: 'Prove that a sealed PDF or an audit trail head is in the public log',
      description:
        'The inclusion proof (RFC 9162 §2.1.3) of the leaf whose value is `hash` in the tree of `treeSize` leaves (default: the newest head\'s). Recompute the root from `SHA-256(0x00 || the 32 bytes of hash)` and `auditPath`, and compare it with that head\'s `rootHash`.',
      security: [],
      request: { query: logProofQuery },
      responses: {
        200: { description: 'The proof.', content: { [json]: { schema: inclusionProofResponse, example: example.proof } } },
        400: queryRefused,
        404: problem(404, 'No leaf has this value, or it is not in the tree of that size yet (`log-entry-not-found`).', ['log-entry-not-found']),
        503: storageUnavailable,
        500: internalError,
      },
    },
    {
      operationId: 'GetLogConsistency',
      method: 'get',
      path: '/log/consistency',
      tags: ['Evidence'],
      summary: 'Prove that one tree of the public log extends another',
      description: 'The consistency proof (RFC 9162 §2.1.4) between the trees of `first` and `second` leaves: 1 ≤ `first` ≤ `second` ≤ the newest head\'s `treeSize`.',
      security: [],
      request: { query: logConsistencyQuery },
      responses: {
        200: { description: 'The proof.', content: { [json]: { schema: consistencyProofResponse, example: { proof: [] } } } },
        400: queryRefused,
        503: storageUnavailable,
        500: internalError,
      },
    },
    {
      operationId: 'GetLogKey',
      method: 'get',
      path: '/log/key',
      tags: ['Evidence'],
      summary: 'The public key that signs the public log\'s tree heads',
      description: 'An Ed25519 JWK (RFC 8037) whose `kid` the heads name as `keyId`.',
      security: [],
      responses: {
        200: { description: 'The key.', content: { [json]: { schema: logKeyResponse, example: example.key } } },
        500: internalError,
      },
    },
  ];
}

/** Registers the public log's four endpoints under `paths`. */
export function registerPublicLogOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations()) registry.registerPath(operation);
}

// Compile-time ties between the schemas above and the types the service answers with.
matches<Matches<typeof treeHeadResponse, TreeHead>>(true);
matches<Matches<typeof inclusionProofResponse, InclusionProofView>>(true);
matches<Matches<typeof consistencyProofResponse, { proof: string[] }>>(true);
matches<Matches<typeof logKeyResponse, LogPublicJwk>>(true);
