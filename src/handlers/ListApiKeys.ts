/**
 * The handler of `ListApiKeys` (GET /api/apikeys).
 * Registered in `src/functions/ListApiKeys.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { listApiKeys } from '../lib/auth/apiKeys.js';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function listOwnApiKeys(_request: unknown, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, await listApiKeys({ services: getServices(), ownerId: caller.userId }), { noStore: true });
}
