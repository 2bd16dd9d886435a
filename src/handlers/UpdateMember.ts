/**
 * The handler of `UpdateMember` (PATCH /api/organization/members/{userId}).
 * Registered in `src/functions/UpdateMember.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { updateMember } from '../lib/organizations/organizations.js';
import { updateMemberRequest } from '../lib/organizations/schemas.js';
import { getServices } from '../lib/services.js';

export async function updateOrganizationMember(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, updateMemberRequest);
  return json(200, await updateMember({ services: getServices(), caller, userId: request.params.userId ?? '', request: body }), { noStore: true });
}
