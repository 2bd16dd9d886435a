/**
 * The handler of `UpdateEnvelope` (PUT and PATCH /api/envelopes/{id}).
 * Registered in `src/functions/UpdateEnvelope.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { updateEnvelopeRequest } from '../lib/envelopes/schemas.js';
import { updateEnvelope } from '../lib/envelopes/update.js';
import { toEnvelopeView } from '../lib/envelopes/view.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function updateOwnEnvelope(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const envelopeId = request.params.id ?? '';
  const body = await readJsonBody(request, updateEnvelopeRequest);
  const record = await updateEnvelope({ services, envelopeId, request: body, actor: caller, ifMatch: request.headers.get('if-match'), log: (message) => context.warn(message) });
  return json(200, await toEnvelopeView(record, services.storage.sas), { noStore: true, headers: { ETag: envelopeETag(record) } });
}
