/**
 * The handler of `DeleteApiKey` (DELETE /api/apikeys/{id}).
 * Registered in `src/functions/DeleteApiKey.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { deleteApiKey } from '../lib/auth/apiKeys.js';
import type { Actor } from '../lib/envelopes/model.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function deleteOwnApiKey(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  await deleteApiKey({ services: getServices(), ownerId: caller.userId, apiKeyId: request.params.id ?? '' });
  return withStandardHeaders({ status: 204 });
}
