/**
 * The handler of `Login` (POST /api/Login).
 * Registered in `src/functions/Login.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { login } from '../lib/auth/accounts.js';
import { loginRequest } from '../lib/auth/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { clientIp } from '../lib/http/requestInfo.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function loginUser(request: HttpRequest): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, loginRequest);
  const services = getServices();
  const result = await login({ ...services, throttle: services.loginThrottle, request: body, remoteIp: clientIp(request) });
  return json(200, result, { noStore: true });
}
