/**
 * The handler of `ListMembers` (GET /api/organization/members).
 * Registered in `src/functions/ListMembers.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { listMembers } from '../lib/organizations/organizations.js';
import { getServices } from '../lib/services.js';

export async function listOrganizationMembers(_request: unknown, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, await listMembers({ services: getServices(), caller }), { noStore: true });
}
