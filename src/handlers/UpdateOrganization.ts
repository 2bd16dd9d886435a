/**
 * The handler of `UpdateOrganization` (PATCH /api/organization).
 * Registered in `src/functions/UpdateOrganization.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { updateOrganization } from '../lib/organizations/organizations.js';
import { updateOrganizationRequest } from '../lib/organizations/schemas.js';
import { getServices } from '../lib/services.js';

export async function updateOwnOrganization(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, updateOrganizationRequest);
  return json(200, await updateOrganization({ services: getServices(), caller, request: body }), { noStore: true });
}
