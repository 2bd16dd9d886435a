/** POST /api/envelopes/{id}/recipients/{recipientId}/resend (CONTRACT §11.5): a new signing link and invitation e-mail. */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { envelopeETag, viewSigner, type Actor } from '../lib/envelopes/model.js';
import { httpFunction } from '../lib/http/register.js';
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

httpFunction('ResendInvitation', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'envelopes/{id}/recipients/{recipientId}/resend',
  access: 'bearer',
  handler: resendOwnInvitation,
});
