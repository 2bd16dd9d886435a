/**
 * The handler of `ResendInvitation` (POST /api/envelopes/{id}/recipients/{recipientId}/resend).
 * Registered in `src/functions/ResendInvitation.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { envelopeETag, viewSigner, type Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { resendInvitation } from '../lib/recipients/resend.js';
import { getServices } from '../lib/services.js';

export async function resendOwnInvitation(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  const { record, recipient } = await resendInvitation({
    services: getServices(),
    actor: caller,
    envelopeId: request.params.id ?? '',
    recipientId: request.params.recipientId ?? '',
    log: (message) => context.warn(message),
  });
  return json(202, viewSigner(recipient), { noStore: true, headers: { ETag: envelopeETag(record) } });
}
