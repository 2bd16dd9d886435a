/**
 * What an owner's change to one envelope takes from its request: the handlers of `PUT`/`PATCH
 * /api/envelopes/{id}`, `POST /api/envelopes/{id}/complete` and `POST /api/envelopes/{id}/fields/detect`
 * (docs/api.md#the-envelope) pass it to their operation in `src/lib/envelopes/`.
 */
import type { HttpRequest, InvocationContext } from '@azure/functions';
import type { Actor } from '../envelopes/model.js';
import { getServices, type Services } from '../services.js';

/** The options every envelope change of the owner's shares. */
export interface EnvelopeChange {
  services: Services;
  /** The route's `{id}`; `''` when absent, which no envelope has (404). */
  envelopeId: string;
  actor: Actor;
  /** The `If-Match` header (RFC 9110 §13.1.1), or `null`: the change then applies to whatever version is stored. */
  ifMatch: string | null;
  /** Warnings of the operation, to the invocation's log. */
  log: (message: string) => void;
}

/**
 * The {@link EnvelopeChange} of `request`, made by `caller` (the owner or an API key acting as the
 * owner, from the bearer guard).
 */
export function envelopeChange(request: HttpRequest, context: InvocationContext, caller: Actor): EnvelopeChange {
  return {
    services: getServices(),
    envelopeId: request.params.id ?? '',
    actor: caller,
    ifMatch: request.headers.get('if-match'),
    log: (message) => context.warn(message),
  };
}
