/**
 * The queries of the public log's endpoints (docs/api.md#public-log), parsed with zod at the boundary;
 * the OpenAPI document describes them from these schemas.
 */
import { z } from 'zod';

/** A query string's whole number of 1 to 15 digits, as the number it writes; anything else stays text, which the integer check refuses. */
function treeSizeParameter(description: string) {
  const message = 'must be a whole number from 1';
  return z
    .preprocess((value) => (typeof value === 'string' && /^[0-9]{1,15}$/.test(value) ? Number(value) : value), z.int({ error: message }).min(1, message))
    .meta({ description });
}

/** `GET /api/log/proof` (docs/api.md#get-an-inclusion-proof). */
export const logProofQuery = z.strictObject({
  hash: z
    .string({ error: 'is required: a SHA-256 in hex (64 hex digits)' })
    .regex(/^[0-9a-fA-F]{64}$/, 'must be a SHA-256 in hex (64 hex digits)')
    .transform((value) => value.toLowerCase())
    .meta({ description: 'A leaf\'s value: the SHA-256 of a sealed PDF (`sha256sum sealed.pdf`), or the audit trail head its certificate prints; hex, either case.' }),
  treeSize: treeSizeParameter('The tree to prove inclusion in: at most the newest signed tree head\'s `treeSize`, which is the default.').optional(),
});
export type LogProofQuery = z.infer<typeof logProofQuery>;

/** `GET /api/log/consistency` (docs/api.md#get-a-consistency-proof). */
export const logConsistencyQuery = z
  .strictObject({
    first: treeSizeParameter('The older tree\'s size (at least 1).'),
    second: treeSizeParameter('The newer tree\'s size: at least `first`, at most the newest signed tree head\'s `treeSize`.'),
  })
  .refine((query) => query.first <= query.second, { message: 'must be at least first', path: ['second'] });
export type LogConsistencyQuery = z.infer<typeof logConsistencyQuery>;
