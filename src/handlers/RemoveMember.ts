/**
 * The handler of `RemoveMember` (DELETE /api/organization/members/{userId}).
 * Registered in `src/functions/RemoveMember.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { removeMemberRequest } from '../lib/organizations/schemas.js';
import { removeMember } from '../lib/removal/removeMember.js';
import { getServices } from '../lib/services.js';

export async function removeOrganizationMember(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, removeMemberRequest);
  await removeMember({ services: getServices(), caller, userId: request.params.userId ?? '', request: body });
  return { status: 204 };
}
