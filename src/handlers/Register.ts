/**
 * The handler of `Register` (POST /api/Register).
 * Registered in `src/functions/Register.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { register } from '../lib/auth/accounts.js';
import { registerRequest } from '../lib/auth/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { clientIp } from '../lib/http/requestInfo.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function registerUser(request: HttpRequest): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, registerRequest);
  const services = getServices();
  const { userId } = await register({ ...services, services, request: body, remoteIp: clientIp(request) });
  return json(201, { message: 'Account created. Log in with POST /api/Login.', userId });
}
