/**
 * API keys (docs/api.md#api-keys): long-lived credentials a server sends instead of an owner's access token,
 * `Authorization: Bearer esk_...`. A key is `esk_` + base64url of 32 random bytes (47 characters),
 * shown once, when it is created, and stored only as its SHA-256 (`storage/apiKeyRepository.ts`).
 * A request with a key acts as the key's owner on every owner endpoint except the key endpoints
 * themselves (`POST/GET /api/apikeys`, `DELETE /api/apikeys/{id}`), which need the owner's token.
 */
import { hash, randomBytes } from 'node:crypto';
import { afterResponse } from '../afterResponse.js';
import { AppError, type FieldError } from '../errors.js';
import { isUuid, uuidv7 } from '../ids.js';
import type { Services } from '../services.js';
import type { ApiKeyRecord } from '../storage/apiKeyRepository.js';
import type { CreateApiKeyRequest } from './apiKeySchemas.js';
import { problem } from '../problems.js';

/** What every key starts with: tells a key from an access token (JWT) at a glance. */
export const API_KEY_PREFIX = 'esk_';
/** A key's shape: `esk_` and 43 base64url characters (32 bytes). */
export const API_KEY_PATTERN = /^esk_[A-Za-z0-9_-]{43}$/;
/** Characters of a key shown in lists to recognise it (`esk_` and 8 more). */
export const API_KEY_PREFIX_LENGTH = 12;
/** Most keys a user may have (docs/api.md#api-keys). */
export const MAX_API_KEYS_PER_USER = 20;
/** Longest lifetime of a key, days ahead of its creation (docs/api.md#api-keys). */
export const MAX_API_KEY_LIFETIME_DAYS = 730;

/** A key as its owner sees it in the list: never the key itself. */
export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** The answer to a creation: the only time `key` is shown. */
export interface CreatedApiKeyView extends ApiKeyView {
  key: string;
}

/** The owner a request with a key acts as. */
export interface ApiKeyCaller {
  userId: string;
  email: string;
  /** Whether the owner has verified its address (as for an access token). */
  emailVerified: boolean;
  /** The owner's display name, or `null`: a key acts as its owner in everything, the name included. */
  name: string | null;
  apiKeyId: string;
}

/**
 * Lower-case hex SHA-256 of a key (UTF-8): how keys are stored and looked up. The one-shot
 * `crypto.hash`, which costs a third of a `createHash` object on every request with a key.
 */
export function apiKeySha256(key: string): string {
  return hash('sha256', key, 'hex');
}

/** Whether a bearer credential is meant as an API key (starts with `esk_`), valid or not. */
export function isApiKey(credential: string): boolean {
  return credential.startsWith(API_KEY_PREFIX);
}

function toView(key: ApiKeyRecord): ApiKeyView {
  return { id: key.id, name: key.name, prefix: key.prefix, createdAt: key.createdAt, expiresAt: key.expiresAt, lastUsedAt: key.lastUsedAt };
}

export interface CreateApiKeyOptions {
  services: Pick<Services, 'apiKeys'>;
  owner: { userId: string; email: string };
  request: CreateApiKeyRequest;
  /** The clock (tests); default now. */
  now?: Date;
}

/**
 * Creates a key for the owner and returns it with the key itself, the only time it is shown.
 * @throws AppError 400 `validation-failed` when `expiresAt` is not in the future or more than
 *   {@link MAX_API_KEY_LIFETIME_DAYS} days ahead; 409 `apikey-limit` when the owner already has
 *   {@link MAX_API_KEYS_PER_USER} keys
 */
export async function createApiKey({ services, owner, request, now = new Date() }: CreateApiKeyOptions): Promise<CreatedApiKeyView> {
  const errors: FieldError[] = [];
  if (request.expiresAt !== undefined && request.expiresAt !== null) {
    const time = Date.parse(request.expiresAt);
    if (time <= now.getTime()) errors.push({ path: 'expiresAt', message: 'must be in the future' });
    else if (time > now.getTime() + MAX_API_KEY_LIFETIME_DAYS * 86_400_000) errors.push({ path: 'expiresAt', message: `must be at most ${MAX_API_KEY_LIFETIME_DAYS} days ahead` });
  }
  if (errors.length > 0) throw problem('validationFailed', { detail: `The request body is invalid: ${errors[0]!.path} ${errors[0]!.message}.`, errors });
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  const record: ApiKeyRecord = {
    id: uuidv7(),
    ownerId: owner.userId,
    name: request.name,
    prefix: key.slice(0, API_KEY_PREFIX_LENGTH),
    keySha256: apiKeySha256(key),
    createdAt: now.toISOString(),
    expiresAt: request.expiresAt ?? null,
    lastUsedAt: null,
  };
  if (!(await services.apiKeys.create(record, owner.email, MAX_API_KEYS_PER_USER))) {
    throw problem('apikeyLimit', { detail: `You already have ${MAX_API_KEYS_PER_USER} API keys, the most allowed; delete one first.` });
  }
  return { ...toView(record), key };
}

/** The owner's keys, newest first, without the keys themselves. */
export async function listApiKeys({ services, ownerId }: { services: Pick<Services, 'apiKeys'>; ownerId: string }): Promise<ApiKeyView[]> {
  return (await services.apiKeys.list(ownerId)).map(toView);
}

/**
 * Deletes the owner's key: refused at once by this instance, and by every other within
 * `API_KEY_CACHE_MS` (`storage/apiKeyRepository.ts`).
 * @throws AppError 404 `apikey-not-found` (also for another owner's key)
 */
export async function deleteApiKey({ services, ownerId, apiKeyId }: { services: Pick<Services, 'apiKeys'>; ownerId: string; apiKeyId: string }): Promise<void> {
  if (!isUuid(apiKeyId) || !(await services.apiKeys.delete(ownerId, apiKeyId))) {
    throw problem('apikeyNotFound');
  }
}

/**
 * The owner behind an API key: the key exists, has not expired and its owner's account still exists
 * (checked as for an access token, `UserRepository.findForToken`). Records the use
 * (`lastUsedAt`, at most once a minute per key) after the answer, never delaying it. The key itself
 * never reaches a log or an error.
 * @throws AppError 401 `invalid-token` with `WWW-Authenticate: Bearer error="invalid_token"` for a
 *   malformed, unknown, deleted or expired key, or one whose owner no longer exists
 */
export async function authenticateApiKey(
  key: string,
  services: Pick<Services, 'apiKeys' | 'users'>,
  now = Date.now(),
): Promise<ApiKeyCaller> {
  if (!API_KEY_PATTERN.test(key)) throw invalidApiKey('The API key is invalid.');
  const found = await services.apiKeys.findForAuthentication(apiKeySha256(key));
  if (found === null) throw invalidApiKey('The API key is invalid.');
  if (found.expiresAt !== null && Date.parse(found.expiresAt) <= now) throw invalidApiKey('The API key has expired.');
  const user = await services.users.findForToken(found.ownerEmail);
  if (user === null || user.userId !== found.ownerId) throw invalidApiKey('The API key is invalid.');
  const recording = services.apiKeys.recordUse(found.ownerId, found.id);
  if (recording !== undefined) {
    afterResponse.start('Recording an API key\'s use', async () => {
      await recording;
    });
  }
  return { userId: user.userId, email: user.email, emailVerified: user.emailVerified, name: user.name, apiKeyId: found.id };
}

function invalidApiKey(detail: string): AppError {
  return problem('invalidToken', { detail, headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}
