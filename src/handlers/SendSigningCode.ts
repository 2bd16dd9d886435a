/**
 * The handler of `SendSigningCode` (POST /api/signing/otp).
 * Registered in `src/functions/SendSigningCode.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { sendOneTimeCode } from '../lib/recipients/authentication.js';
import type { SigningCaller } from '../lib/recipients/signingCaller.js';
import { getServices } from '../lib/services.js';

export async function sendSigningCode(_request: HttpRequest, context: InvocationContext, caller: SigningCaller): Promise<HttpResponseInit> {
  await sendOneTimeCode({ services: getServices(), caller, log: (message) => context.warn(message) });
  return { status: 202, headers: { 'Cache-Control': 'no-store' } };
}
