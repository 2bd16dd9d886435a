/**
 * The handler of `GetAuditTrail` (GET /api/envelopes/{id}/audit).
 * Registered in `src/functions/GetAuditTrail.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listAuditEvents } from '../lib/envelopes/audit.js';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { envelopeOwnerFor } from '../lib/envelopes/access.js';

export async function getAuditTrail(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const envelopeId = request.params.id ?? '';
  const events = await listAuditEvents({ services, ownerId: await envelopeOwnerFor(services, caller, envelopeId, 'read'), envelopeId });
  return json(200, events, { noStore: true });
}
