/**
 * The handler of `AcsEvents` (POST /api/events/acs).
 * Registered in `src/functions/AcsEvents.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { z } from 'zod';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { assertEventSecret, handleAcsEvents, readAcsEvents } from '../lib/recipients/acsEvents.js';
import { getServices } from '../lib/services.js';

export async function receiveAcsEvents(request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> {
  const services = getServices();
  // The secret first: a forged call is refused before its body is read (401, nothing changed).
  assertEventSecret(services.config.acsEventSecret, { header: request.headers.get('aeg-sas-key'), code: request.query.get('code') });
  const events = readAcsEvents(await readJsonBody(request, z.unknown()));
  return json(200, await handleAcsEvents(services, events, new Date(), (message) => context.warn(message)), { noStore: true });
}
