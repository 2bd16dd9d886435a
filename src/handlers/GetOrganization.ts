/**
 * The handler of `GetOrganization` (GET /api/organization).
 * Registered in `src/functions/GetOrganization.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getOrganization } from '../lib/organizations/organizations.js';
import { getServices } from '../lib/services.js';

export async function getOwnOrganization(_request: unknown, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, await getOrganization({ services: getServices(), caller }), { noStore: true });
}
