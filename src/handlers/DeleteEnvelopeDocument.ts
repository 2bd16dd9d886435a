/**
 * The handler of `DeleteEnvelopeDocument` (DELETE /api/envelopes/{id}/documents/{documentId}).
 * Registered in `src/functions/DeleteEnvelopeDocument.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { removeEnvelopeDocument } from '../lib/envelopes/documents.js';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { toEnvelopeView } from '../lib/envelopes/view.js';
import { envelopeChange } from '../lib/http/envelopeChange.js';
import { json } from '../lib/http/respond.js';

/** 200 `{removedFieldIds, envelope}`: the fields that went with the document, and the envelope as it is now. */
export async function deleteOwnEnvelopeDocument(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const change = envelopeChange(request, context, caller);
  const { record, removedFieldIds } = await removeEnvelopeDocument({ ...change, documentId: request.params.documentId ?? '' });
  return json(200, { removedFieldIds, envelope: await toEnvelopeView(record, change.services.storage.sas) }, { noStore: true, headers: { ETag: envelopeETag(record) } });
}
