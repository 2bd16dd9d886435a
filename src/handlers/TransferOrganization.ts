/**
 * The handler of `TransferOrganization` (POST /api/organization/transfer).
 * Registered in `src/functions/TransferOrganization.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { transferOrganization } from '../lib/organizations/organizations.js';
import { transferOrganizationRequest } from '../lib/organizations/schemas.js';
import { getServices } from '../lib/services.js';

export async function transferOwnOrganization(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, transferOrganizationRequest);
  return json(200, await transferOrganization({ services: getServices(), caller, request: body }), { noStore: true });
}
