/**
 * The handler of `CreateEnvelopeFromTemplate` (POST /api/templates/{id}/envelopes).
 * Registered in `src/functions/CreateEnvelopeFromTemplate.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { toEnvelopeView } from '../lib/envelopes/view.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { useTemplateRequest } from '../lib/templates/schemas.js';
import { useTemplate } from '../lib/templates/createEnvelopeFromTemplate.js';

export async function createEnvelopeFromTemplate(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const body = await readJsonBody(request, useTemplateRequest);
  const record = await useTemplate({ services, templateId: request.params.id ?? '', request: body, actor: caller, log: (message) => context.warn(message) });
  return json(201, await toEnvelopeView(record, services.storage.sas), {
    noStore: true,
    headers: { Location: `/api/envelopes/${record.id}`, ETag: envelopeETag(record) },
  });
}
