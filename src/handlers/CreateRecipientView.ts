/**
 * The handler of `CreateRecipientView` (POST /api/envelopes/{id}/recipients/{recipientId}/views).
 * Registered in `src/functions/CreateRecipientView.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { parseWith, readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { createView, createViewRequest } from '../lib/recipients/embeddedViews.js';
import { getServices } from '../lib/services.js';

export async function createRecipientView(request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  // Both options are optional: a request without a body (no Content-Type, no length) means `{}`.
  const bodyless = request.headers.get('content-type') === null && (request.headers.get('content-length') ?? '0') === '0';
  const body = bodyless ? parseWith(createViewRequest, {}) : await readJsonBody(request, createViewRequest);
  const view = await createView({
    services: getServices(),
    actor: caller,
    envelopeId: request.params.id ?? '',
    recipientId: request.params.recipientId ?? '',
    request: body,
    log: (message) => context.warn(message),
  });
  return json(201, view, { noStore: true });
}
