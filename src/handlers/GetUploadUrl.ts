/**
 * The handler of `GetUploadUrl` (POST /api/GetUploadUrl).
 * Registered in `src/functions/GetUploadUrl.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { createEnvelopeUpload } from '../lib/envelopes/createUpload.js';
import type { Actor } from '../lib/envelopes/model.js';
import { uploadRequest } from '../lib/envelopes/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function getUploadUrl(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, uploadRequest);
  const ticket = await createEnvelopeUpload({ services: getServices(), request: body, actor: caller });
  return json(201, ticket, { noStore: true, headers: { Location: `/api/envelopes/${ticket.envelopeId}` } });
}
