/**
 * The handler of `AddEnvelopeDocument` (POST /api/envelopes/{id}/documents).
 * Registered in `src/functions/AddEnvelopeDocument.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { addEnvelopeDocument } from '../lib/envelopes/documents.js';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { uploadRequest } from '../lib/envelopes/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { envelopeChange } from '../lib/http/envelopeChange.js';
import { json } from '../lib/http/respond.js';

export async function addOwnEnvelopeDocument(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const change = envelopeChange(request, context, caller);
  const body = await readJsonBody(request, uploadRequest);
  const { record, ticket } = await addEnvelopeDocument({ ...change, request: body });
  return json(201, ticket, { noStore: true, headers: { ETag: envelopeETag(record), Location: `/api/envelopes/${record.id}` } });
}
