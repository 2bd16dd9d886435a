/**
 * The handler of `VerifySeal` (GET /api/verify/{sha256}).
 * Registered in `src/functions/VerifySeal.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { problem } from '../lib/problems.js';

export async function verifySeal(request: HttpRequest): Promise<HttpResponseInit> {
  const sha256 = (request.params.sha256 ?? '').toLowerCase();
  const seal = /^[0-9a-f]{64}$/.test(sha256) ? await getServices().seals.find(sha256) : null;
  if (seal === null) {
    throw problem('sealNotFound');
  }
  return json(200, { envelopeId: seal.envelopeId, completedAt: seal.completedAt, documentName: seal.documentName });
}
