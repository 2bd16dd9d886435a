/**
 * The handler of `CompleteEnvelope` (POST /api/envelopes/{id}/complete).
 * Registered in `src/functions/CompleteEnvelope.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { completeEnvelope } from '../lib/envelopes/complete.js';
import { envelopeETag, type Actor } from '../lib/envelopes/model.js';
import { envelopeChange } from '../lib/http/envelopeChange.js';
import { json } from '../lib/http/respond.js';

export async function completeOwnEnvelope(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const result = await completeEnvelope(envelopeChange(request, context, caller));
  const message = result.sealedNow ? 'Envelope completed: the document is flattened and sealed.' : 'Envelope was already completed.';
  return json(200, { message, signedUrl: result.signedUrl, hash: result.hash, documents: result.documents }, { noStore: true, headers: { ETag: envelopeETag(result.record) } });
}
