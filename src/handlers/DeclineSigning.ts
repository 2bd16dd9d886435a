/**
 * The handler of `DeclineSigning` (POST /api/signing/decline).
 * Registered in `src/functions/DeclineSigning.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import type { SigningCaller } from '../lib/recipients/signingCaller.js';
import { assertCanAct, declineSigning } from '../lib/recipients/recipientActions.js';
import { declineSigningRequest } from '../lib/recipients/schemas.js';
import { toRecipientView } from '../lib/recipients/recipientView.js';
import { getServices } from '../lib/services.js';

export async function declineAsRecipient(request: HttpRequest, context: InvocationContext, caller: SigningCaller): Promise<HttpResponseInit> {
  const services = getServices();
  const now = new Date();
  // Signer authentication (423, then 403) was checked by the signing guard, right after the token (register.ts).
  // docs/api.md#the-recipients-api: role, status, already acted and turn are checked before the body.
  assertCanAct(caller.stored.record, caller.recipient, 'decline', now);
  const body = await readJsonBody(request, declineSigningRequest);
  const { record, recipient } = await declineSigning({ services, caller, request: body, now, log: (message) => context.warn(message) });
  return json(200, await toRecipientView(record, recipient, services.storage.sas, now, () => services.envelopes.actions(record.ownerId, record.id)), { noStore: true });
}
