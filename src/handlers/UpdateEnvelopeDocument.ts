/**
 * The handler of `UpdateEnvelopeDocument` (PATCH /api/envelopes/{id}/documents/{documentId}).
 * Registered in `src/functions/UpdateEnvelopeDocument.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { updateEnvelopeDocument } from '../lib/envelopes/documents.js';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { updateDocumentRequest } from '../lib/envelopes/schemas.js';
import { toEnvelopeView } from '../lib/envelopes/view.js';
import { readJsonBody } from '../lib/http/body.js';
import { envelopeChange } from '../lib/http/envelopeChange.js';
import { json } from '../lib/http/respond.js';

export async function updateOwnEnvelopeDocument(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const change = envelopeChange(request, context, caller);
  const body = await readJsonBody(request, updateDocumentRequest);
  const record = await updateEnvelopeDocument({ ...change, documentId: request.params.documentId ?? '', request: body });
  return json(200, await toEnvelopeView(record, change.services.storage.sas), { noStore: true, headers: { ETag: envelopeETag(record) } });
}
