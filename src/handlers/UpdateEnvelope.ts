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
import { envelopeChange } from '../lib/http/envelopeChange.js';
import { json } from '../lib/http/respond.js';

export async function updateOwnEnvelope(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const change = envelopeChange(request, context, caller);
  const body = await readJsonBody(request, updateEnvelopeRequest);
  const record = await updateEnvelope({ ...change, request: body });
  return json(200, await toEnvelopeView(record, change.services.storage.sas), { noStore: true, headers: { ETag: envelopeETag(record) } });
}
