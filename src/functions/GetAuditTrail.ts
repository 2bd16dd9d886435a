/** GET /api/envelopes/{id}/audit (CONTRACT §10): the envelope's audit events, oldest first. */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listAuditEvents } from '../lib/envelopes/audit.js';
import type { Actor } from '../lib/envelopes/model.js';
import { httpFunction } from '../lib/http/register.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function getAuditTrail(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const events = await listAuditEvents({ services: getServices(), ownerId: caller.userId, envelopeId: request.params.id ?? '' });
  return json(200, events, { noStore: true });
}

httpFunction('GetAuditTrail', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/audit',
  access: 'bearer',
  handler: getAuditTrail,
});
