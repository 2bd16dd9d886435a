/**
 * The handler of `VerifyPublicLink` (POST /api/public/{publicId}/verify).
 * Registered in `src/functions/VerifyPublicLink.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { verifyPublicLink } from '../lib/publicLinks/publicLinks.js';
import { verifyPublicLinkRequest } from '../lib/publicLinks/schemas.js';
import { getServices } from '../lib/services.js';

export async function verifyPublicLinkHandler(request: HttpRequest): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, verifyPublicLinkRequest);
  const { signingUrl, envelopeId } = await verifyPublicLink({ services: getServices(), publicId: request.params.publicId ?? '', request: body });
  return json(201, { signingUrl, envelopeId }, { noStore: true });
}
