/**
 * The handler of `ListOrganizationInvitations` (GET /api/organization/invitations).
 * Registered in `src/functions/ListOrganizationInvitations.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { listOrganizationInvitations } from '../lib/organizations/invitations.js';
import { getServices } from '../lib/services.js';

export async function listInvitations(_request: unknown, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, await listOrganizationInvitations({ services: getServices(), caller }), { noStore: true });
}
