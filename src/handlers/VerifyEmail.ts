/**
 * The handler of `VerifyEmail` (POST /api/VerifyEmail).
 * Registered in `src/functions/VerifyEmail.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { verifyEmail } from '../lib/auth/emailVerification.js';
import { verifyEmailRequest } from '../lib/auth/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function verifyEmailAddress(request: HttpRequest): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, verifyEmailRequest);
  const { email } = await verifyEmail({ services: getServices(), token: body.token });
  return json(200, { message: 'Your e-mail address is verified: you can now send envelopes.', email }, { noStore: true });
}
