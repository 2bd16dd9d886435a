/**
 * GET /api/verify/{sha256} (CONTRACT §10): whether this service sealed the PDF with this SHA-256.
 * Public on purpose: whoever holds a sealed PDF can compute its hash, and the answer names only what is
 * printed on the PDF's own certificate page (envelope id, document name, completion time). A hash
 * cannot be guessed (2^256), so the endpoint reveals nothing to someone without the document.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { AppError } from '../lib/errors.js';
import { httpFunction } from '../lib/http/register.js';
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

httpFunction('VerifySeal', {
  methods: ['GET'],
  authLevel: 'anonymous',
  route: 'verify/{sha256}',
  access: 'public',
  handler: verifySeal,
});
