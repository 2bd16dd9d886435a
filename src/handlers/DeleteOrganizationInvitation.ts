/**
 * The handler of `DeleteOrganizationInvitation` (DELETE /api/organization/invitations/{id}).
 * Registered in `src/functions/DeleteOrganizationInvitation.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { deleteOrganizationInvitation } from '../lib/organizations/invitations.js';
import { getServices } from '../lib/services.js';

export async function deleteInvitation(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  await deleteOrganizationInvitation({ services: getServices(), caller, invitationId: request.params.id ?? '' });
  return withStandardHeaders({ status: 204 });
}
