/**
 * The handler of `ReassignSigning` (POST /api/signing/reassign).
 * Registered in `src/functions/ReassignSigning.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { assertCanReassign, reassignSigning, reassignSigningRequest } from '../lib/recipients/reassign.js';
import type { SigningCaller } from '../lib/recipients/signingCaller.js';
import { toRecipientView } from '../lib/recipients/recipientView.js';
import { getServices } from '../lib/services.js';

export async function reassignAsRecipient(request: HttpRequest, context: InvocationContext, caller: SigningCaller): Promise<HttpResponseInit> {
  const services = getServices();
  const now = new Date();
  // Signer authentication (423, then 403) was checked by the signing guard, right after the token
  // (register.ts); then role, setting, status, already acted and turn, before the body.
  assertCanReassign(caller.stored.record, caller.recipient, now);
  const body = await readJsonBody(request, reassignSigningRequest);
  const { record, recipient } = await reassignSigning({ services, caller, request: body, now, log: (message) => context.warn(message) });
  return json(200, await toRecipientView(record, recipient, services.storage.sas, now, () => services.envelopes.actions(record.ownerId, record.id)), { noStore: true });
}
