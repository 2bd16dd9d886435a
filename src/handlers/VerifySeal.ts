/**
 * The handler of `VerifySeal` (GET /api/verify/{sha256}).
 * Registered in `src/functions/VerifySeal.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { AppError } from '../lib/errors.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function verifySeal(request: HttpRequest): Promise<HttpResponseInit> {
  const sha256 = (request.params.sha256 ?? '').toLowerCase();
  const seal = /^[0-9a-f]{64}$/.test(sha256) ? await getServices().seals.find(sha256) : null;
  if (seal === null) {
    throw new AppError('not_found', 'This service sealed no document with this SHA-256.', { type: 'seal-not-found' });
  }
  return json(200, { envelopeId: seal.envelopeId, completedAt: seal.completedAt, documentName: seal.documentName });
}
