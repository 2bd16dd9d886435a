/**
 * The handler of `GetDisclosure` (GET /api/disclosure).
 * Registered in `src/functions/GetDisclosure.ts`, which loads this module on the function's first invocation.
 */
import type { HttpResponseInit } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { ELECTRONIC_SIGNATURE_DISCLOSURE } from '../lib/recipients/consent.js';

export async function getDisclosure(): Promise<HttpResponseInit> {
  return json(200, ELECTRONIC_SIGNATURE_DISCLOSURE);
}
