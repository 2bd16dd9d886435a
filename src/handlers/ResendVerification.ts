/**
 * The handler of `ResendVerification` (POST /api/ResendVerification).
 * Registered in `src/functions/ResendVerification.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { resendVerification } from '../lib/auth/emailVerification.js';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function resendVerificationEmail(_request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> {
  await resendVerification({ services: getServices(), actor: caller, log: (message) => context.warn(message) });
  return json(202, { message: 'A new verification link is on its way: open it within 48 hours.' });
}
