/**
 * The handler of `CreateApiKey` (POST /api/apikeys).
 * Registered in `src/functions/CreateApiKey.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { createApiKey } from '../lib/auth/apiKeys.js';
import { createApiKeyRequest } from '../lib/auth/apiKeySchemas.js';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function createOwnApiKey(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, createApiKeyRequest);
  const created = await createApiKey({ services: getServices(), owner: { userId: caller.userId, email: caller.email }, request: body });
  return json(201, created, { noStore: true });
}
