/**
 * The handler of `GetSigningDisclosure` (GET /api/signing/disclosure).
 * Registered in `src/functions/GetSigningDisclosure.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { recipientLocale } from '../lib/envelopes/model.js';
import { disclosureFor } from '../lib/recipients/consent.js';
import { disclosureQuery } from '../lib/recipients/schemas.js';
import type { SigningCaller } from '../lib/recipients/signingCaller.js';
import { getServices } from '../lib/services.js';

export async function getSigningDisclosure(request: HttpRequest, _context: InvocationContext, caller: SigningCaller): Promise<HttpResponseInit> {
  const query = parseWith(disclosureQuery, Object.fromEntries(request.query.entries()), 'query');
  const record = caller.stored.record;
  return json(200, await disclosureFor(getServices(), record, query.locale ?? recipientLocale(record, caller.recipient)), { noStore: true });
}
