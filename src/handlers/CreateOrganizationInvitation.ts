/**
 * The handler of `CreateOrganizationInvitation` (POST /api/organization/invitations).
 * Registered in `src/functions/CreateOrganizationInvitation.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { createOrganizationInvitation } from '../lib/organizations/invitations.js';
import { createOrganizationInvitationRequest } from '../lib/organizations/schemas.js';
import { getServices } from '../lib/services.js';

export async function createInvitation(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, createOrganizationInvitationRequest);
  const { invitation } = await createOrganizationInvitation({ services: getServices(), caller, request: body });
  return json(201, invitation, { noStore: true });
}
