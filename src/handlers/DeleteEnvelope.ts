/**
 * The handler of `DeleteEnvelope` (DELETE /api/envelopes/{id}).
 * Registered in `src/functions/DeleteEnvelope.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { deleteEnvelope } from '../lib/envelopes/delete.js';
import type { Actor } from '../lib/envelopes/model.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function deleteOwnEnvelope(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  await deleteEnvelope({ services: getServices(), envelopeId: request.params.id ?? '', actor: caller, log: (message) => context.warn(message) });
  return withStandardHeaders({ status: 204 });
}
