/**
 * The handler of `GetSigningView` (GET /api/signing).
 * Registered in `src/functions/GetSigningView.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { isAuthenticated, restrictedView } from '../lib/envelopes/authenticationSettings.js';
import type { SigningCaller } from '../lib/recipients/signingCaller.js';
import { openEnvelope } from '../lib/recipients/recipientActions.js';
import { toRecipientView } from '../lib/recipients/recipientView.js';
import { getServices } from '../lib/services.js';

export async function getSigningView(_request: HttpRequest, context: InvocationContext, caller: SigningCaller): Promise<HttpResponseInit> {
  const services = getServices();
  const now = new Date();
  // A locked link was answered 423 by the signing guard (register.ts); before its code, the recipient
  // sees only who asks what, and is not marked opened (docs/api.md#signer-authentication).
  if (!isAuthenticated(caller.recipient, now, services.config.signingAuthTtlSeconds)) return json(200, restrictedView(caller.stored.record, caller.recipient), { noStore: true });
  const { record, recipient } = await openEnvelope({ services, caller, now, log: (message) => context.warn(message) });
  return json(200, await toRecipientView(record, recipient, services.storage.sas, now, () => services.envelopes.actions(record.ownerId, record.id)), { noStore: true });
}
