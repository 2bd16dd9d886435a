/**
 * The handler of `DetectEnvelopeFields` (POST /api/envelopes/{id}/fields/detect).
 * Registered in `src/functions/DetectEnvelopeFields.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { detectEnvelopeFields } from '../lib/envelopes/detectFields.js';
import { fieldsWithDocuments } from '../lib/envelopes/documents.js';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { envelopeChange } from '../lib/http/envelopeChange.js';
import { json } from '../lib/http/respond.js';

export async function detectOwnEnvelopeFields(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const result = await detectEnvelopeFields(envelopeChange(request, context, caller));
  return json(200, { fields: fieldsWithDocuments(result.record), textTags: result.textTags, formFields: result.formFields }, { headers: { ETag: envelopeETag(result.record) } });
}
