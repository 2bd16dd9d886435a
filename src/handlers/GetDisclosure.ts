/**
 * The handler of `GetDisclosure` (GET /api/disclosure).
 * Registered in `src/functions/GetDisclosure.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { parseWith } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { serviceDisclosure } from '../lib/i18n/disclosure.js';
import { disclosureQuery } from '../lib/recipients/schemas.js';

export async function getDisclosure(request: HttpRequest): Promise<HttpResponseInit> {
  const query = parseWith(disclosureQuery, Object.fromEntries(request.query.entries()), 'query');
  return json(200, serviceDisclosure(query.locale ?? 'en'));
}
