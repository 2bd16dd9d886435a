/**
 * The handler of `AuthenticateSigning` (POST /api/signing/authenticate).
 * Registered in `src/functions/AuthenticateSigning.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { authenticateRecipient } from '../lib/recipients/authentication.js';
import { authenticateRequest } from '../lib/envelopes/authenticationSettings.js';
import type { SigningCaller } from '../lib/recipients/signingCaller.js';
import { toRecipientView } from '../lib/recipients/recipientView.js';
import { getServices } from '../lib/services.js';

export async function authenticateSigning(request: HttpRequest, context: InvocationContext, caller: SigningCaller): Promise<HttpResponseInit> {
  const services = getServices();
  const now = new Date();
  const log = (message: string) => context.warn(message);
  // A locked link was answered 423 by the signing guard (register.ts), whatever the body says.
  const body = await readJsonBody(request, authenticateRequest);
  const { record, recipient } = await authenticateRecipient({ services, caller, code: body.code, now, log });
  return json(200, await toRecipientView(record, recipient, services.storage.sas, now, () => services.envelopes.actions(record.ownerId, record.id)), { noStore: true });
}
