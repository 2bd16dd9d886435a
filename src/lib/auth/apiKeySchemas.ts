/**
 * The request body of `POST /api/apikeys` (CONTRACT §14.1), validated with zod at the boundary; the
 * OpenAPI document is generated from the same schema. Unknown fields are refused (CONTRACT §1).
 */
import { z } from 'zod';
import { requestTimestamp } from '../envelopes/schemas.js';
import { characters } from '../http/fields.js';

/** Longest key name, characters (CONTRACT §14.1). */
export const MAX_API_KEY_NAME_LENGTH = 100;

/**
 * Characters a key's name may not hold (CONTRACT §14.5): control characters (C0, DEL, C1) and the
 * line and paragraph separators; unpaired surrogates are refused too (`isWellFormed`).
 */
const FORBIDDEN_IN_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export const createApiKeyRequest = z.strictObject({
  name: characters(1, MAX_API_KEY_NAME_LENGTH)
    .refine((name) => !FORBIDDEN_IN_TEXT.test(name) && name.isWellFormed(), 'must not contain control characters, U+2028, U+2029 or unpaired surrogates')
    .meta({
      pattern: '^[^\\u0000-\\u001F\\u007F-\\u009F\\u2028\\u2029]*$',
      description: 'What the key is for, shown in the list: 1 to 100 characters, without control characters, U+2028, U+2029 or unpaired surrogates.',
      examples: ['CRM integration'],
    }),
  expiresAt: requestTimestamp
    .nullable()
    .optional()
    .meta({ description: 'When the key stops working: in the future and at most 730 days ahead. Omitted or `null`: never.' }),
});
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequest>;
