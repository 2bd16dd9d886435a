/**
 * The API key endpoints in the OpenAPI document (docs/api.md#api-keys): {@link registerApiKeyOperations}
 * adds create, list and delete under `paths`. Response schemas are strict objects tied at compile
 * time to the types the service answers with (bottom of this file), like `./responses.ts`.
 */
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { createApiKeyRequest } from '../auth/apiKeySchemas.js';
import { MAX_API_KEY_LIFETIME_DAYS, MAX_API_KEYS_PER_USER, type ApiKeyView, type CreatedApiKeyView } from '../auth/apiKeys.js';
import { API_KEY_CACHE_MS, LAST_USED_INTERVAL_MS } from '../storage/apiKeyRepository.js';
import { cacheControlNoStore, deleteOperation, internalError, jsonBodyTooLarge, jsonRequestBody, notJson, ownerProblems, storageUnavailable, unauthorized, type Operation } from './common.js';
import { problemResponses, timestamp, type ProblemExample } from './responses.js';
import { matches, type Matches } from './ties.js';

export const apiKeyResponse = z
  .strictObject({
    id: z.uuid({ version: 'v7' }).meta({ description: 'UUID version 7; audit events of changes made with the key carry it as `apiKeyId`.' }),
    name: z.string().meta({ description: 'What the key is for, as given at creation.' }),
    prefix: z
      .string()
      .regex(/^esk_[A-Za-z0-9_-]{8}$/)
      .meta({ description: 'The key\'s first 12 characters, to recognise it.' }),
    createdAt: timestamp,
    expiresAt: timestamp.nullable().meta({ description: 'When the key stops working; `null`: never.' }),
    lastUsedAt: timestamp
      .nullable()
      .meta({ description: `When a request last used the key, to the minute: written at most once every ${LAST_USED_INTERVAL_MS / 1000} s per key, so it may lag the latest use by up to a minute. \`null\`: never used.` }),
  })
  .meta({ id: 'ApiKey', description: 'An API key, without the key itself.' });

export const createdApiKeyResponse = z
  .strictObject({
    ...apiKeyResponse.shape,
    key: z
      .string()
      .regex(/^esk_[A-Za-z0-9_-]{43}$/)
      .meta({ description: 'The key: `esk_` + base64url of 32 random bytes (47 characters). Shown only in this answer; the service keeps only its SHA-256.' }),
  })
  .meta({ id: 'CreatedApiKey', description: 'The new API key, with the key itself (the only time it is shown).' });

export const apiKeyListResponse = z.array(apiKeyResponse).max(MAX_API_KEYS_PER_USER).meta({ id: 'ApiKeyList', description: 'The caller\'s API keys, newest first.' });

const ids = { key: '0193a5d1-4e2f-7a3b-9c4d-5e6f7a8b9c0d' };
const exampleKey = {
  id: ids.key,
  name: 'CRM integration',
  prefix: 'esk_q3Jx9vLm',
  createdAt: '2026-11-22T10:15:30.123Z',
  expiresAt: '2027-11-22T00:00:00.000Z',
  lastUsedAt: null,
};

const json = 'application/json';
const jwtOnly = [{ bearerAuth: [] }];
const noStore = cacheControlNoStore();

const problems = {
  ...ownerProblems,
  'validation-failed': {
    detail: `The request body is invalid: expiresAt must be at most ${MAX_API_KEY_LIFETIME_DAYS} days ahead.`,
    errors: [{ path: 'expiresAt', message: `must be at most ${MAX_API_KEY_LIFETIME_DAYS} days ahead` }],
  },
  'jwt-required': {},
  'apikey-not-found': {},
  'apikey-limit': { detail: `You already have ${MAX_API_KEYS_PER_USER} API keys, the most allowed; delete one first.` },
  'apikeys-contended': {},
} satisfies Record<string, ProblemExample>;

/** A problem-details response with one example per slug, and the headers its status carries. */
const problem = problemResponses(problems);

const jwtRequired = problem(403, 'The request was made with an API key (`jwt-required`): API keys are managed with the owner\'s access token only.', ['jwt-required']);

const createBody = createApiKeyRequest.meta({ id: 'CreateApiKeyRequest', description: 'A new API key.' });

const operations: Operation[] = [
  {
    operationId: 'CreateApiKey',
    method: 'post',
    path: '/apikeys',
    tags: ['API keys'],
    summary: 'Create an API key',
    description: `A key a server sends as \`Authorization: Bearer esk_...\` wherever the owner's access token is accepted, acting as the owner (except on these three endpoints). The key is in this answer only, never again: the service keeps its SHA-256 alone. At most ${MAX_API_KEYS_PER_USER} keys per user. Needs the owner's access token (from Login): an API key gets 403.`,
    security: jwtOnly,
    request: {
      body: jsonRequestBody(createBody, {
        examples: {
          expiring: { summary: 'Expires in a year', value: { name: 'CRM integration', expiresAt: '2027-11-22T00:00:00.000Z' } },
          lasting: { summary: 'Never expires', value: { name: 'Nightly export' } },
        },
      }),
    },
    responses: {
      201: {
        description: 'The key, with the key itself (only here).',
        headers: { 'Cache-Control': noStore },
        content: { [json]: { schema: createdApiKeyResponse, example: { ...exampleKey, key: 'esk_q3Jx9vLmT0bW8cYh2nKd5sQe7uRf1aZp4iGo6xVwEyM' } } },
      },
      400: problem(
        400,
        `The body is not JSON (\`malformed-json\`) or is refused (\`validation-failed\`): \`name\` missing or over 100 characters, \`expiresAt\` not in the future or more than ${MAX_API_KEY_LIFETIME_DAYS} days ahead, unknown fields named.`,
        ['validation-failed', 'malformed-json'],
      ),
      401: unauthorized,
      403: jwtRequired,
      409: problem(409, `The caller already has ${MAX_API_KEYS_PER_USER} keys (\`apikey-limit\`), or concurrent requests kept changing them (\`apikeys-contended\`; retry).`, ['apikey-limit', 'apikeys-contended']),
      413: jsonBodyTooLarge,
      415: notJson,
      503: storageUnavailable,
      500: internalError,
    },
  },
  {
    operationId: 'ListApiKeys',
    method: 'get',
    path: '/apikeys',
    tags: ['API keys'],
    summary: 'List the caller\'s API keys',
    description: 'Newest first, never the keys themselves. Needs the owner\'s access token: an API key gets 403.',
    security: jwtOnly,
    responses: {
      200: { description: 'The keys, newest first.', headers: { 'Cache-Control': noStore }, content: { [json]: { schema: apiKeyListResponse, example: [{ ...exampleKey, lastUsedAt: '2026-11-23T08:02:11.517Z' }] } } },
      401: unauthorized,
      403: jwtRequired,
      503: storageUnavailable,
      500: internalError,
    },
  },
  deleteOperation({
    operationId: 'DeleteApiKey',
    path: '/apikeys/{id}',
    tags: ['API keys'],
    summary: 'Delete an API key',
    description: `The key stops working at once on the instance that answers, and on every instance within ${API_KEY_CACHE_MS / 1000} seconds (at most 60). Needs the owner's access token: an API key gets 403.`,
    security: jwtOnly,
    request: {
      params: z.object({ id: z.string().meta({ description: 'The key\'s id. Another user\'s key is answered 404, exactly as a missing one.', examples: [ids.key] }) }),
    },
    notFound: problem(404, 'No key with this id, or another user\'s (the same answer).', ['apikey-not-found']),
    contended: problem(409, 'Concurrent requests kept changing the caller\'s keys (`apikeys-contended`); retry.', ['apikeys-contended']),
    responses: { 403: jwtRequired },
  }),
];

/** Registers the API key endpoints under `paths`. */
export function registerApiKeyOperations(registry: OpenAPIRegistry): void {
  for (const operation of operations) registry.registerPath(operation);
}

// Compile-time ties between the schemas above and the types the service answers with.
matches<Matches<typeof apiKeyResponse, ApiKeyView>>(true);
matches<Matches<typeof createdApiKeyResponse, CreatedApiKeyView>>(true);
