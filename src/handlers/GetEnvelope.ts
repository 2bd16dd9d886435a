/**
 * The handler of `GetEnvelope` (GET /api/envelopes/{id}).
 * Registered in `src/functions/GetEnvelope.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { toEnvelopeView } from '../lib/envelopes/view.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { readMembersEnvelope } from '../lib/envelopes/access.js';

export async function getEnvelope(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const envelopeId = request.params.id ?? '';
  const { record } = await readMembersEnvelope(services, caller, envelopeId, 'read');
  return json(200, await toEnvelopeView(record, services.storage.sas), { noStore: true, headers: { ETag: envelopeETag(record) } });
}
