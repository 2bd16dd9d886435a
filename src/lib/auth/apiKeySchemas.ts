/**
 * The request body of `POST /api/apikeys` (docs/api.md#api-keys), validated with zod at the boundary; the
 * OpenAPI document is generated from the same schema. Unknown fields are refused (docs/api.md#conventions).
 */
import { z } from 'zod';
import { requestTimestamp, text } from '../text.js';

/** Longest key name, characters (docs/api.md#api-keys). */
export const MAX_API_KEY_NAME_LENGTH = 100;

export const createApiKeyRequest = z.strictObject({
  name: text(1, MAX_API_KEY_NAME_LENGTH).meta({
    description: 'What the key is for, shown in the list: 1 to 100 characters, without control characters, U+2028, U+2029 or unpaired surrogates.',
    examples: ['CRM integration'],
  }),
  expiresAt: requestTimestamp
    .nullable()
    .optional()
    .meta({ description: 'When the key stops working: in the future and at most 730 days ahead. Omitted or `null`: never.' }),
});
export type CreateApiKeyRequest = z.infer<typeof createApiKeyRequest>;
