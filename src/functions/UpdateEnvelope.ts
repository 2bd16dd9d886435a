/** PUT and PATCH /api/envelopes/{id} (spec §4, CONTRACT §3, §5, §11): signers, fields, settings and status; both methods behave the same. */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { updateEnvelopeRequest } from '../lib/envelopes/schemas.js';
import { updateEnvelope } from '../lib/envelopes/update.js';
import { toEnvelopeView } from '../lib/envelopes/view.js';
import { readJsonBody } from '../lib/http/body.js';
import { httpFunction } from '../lib/http/register.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function updateOwnEnvelope(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const envelopeId = request.params.id ?? '';
  const body = await readJsonBody(request, updateEnvelopeRequest);
  const record = await updateEnvelope({ services, envelopeId, request: body, actor: caller, ifMatch: request.headers.get('if-match'), log: (message) => context.warn(message) });
  return json(200, await toEnvelopeView(record, services.storage.sas), { noStore: true, headers: { ETag: envelopeETag(record) } });
}

httpFunction('UpdateEnvelope', {
  methods: ['PUT', 'PATCH'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}',
  access: 'bearer',
  handler: updateOwnEnvelope,
});
