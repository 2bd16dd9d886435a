/** POST /api/GetUploadUrl (spec §4, CONTRACT §4): a new draft envelope and a SAS URL to upload its PDF. */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { createEnvelopeUpload } from '../lib/envelopes/createUpload.js';
import type { Actor } from '../lib/envelopes/model.js';
import { uploadRequest } from '../lib/envelopes/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { httpFunction } from '../lib/http/register.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function getUploadUrl(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, uploadRequest);
  const ticket = await createEnvelopeUpload({ services: getServices(), request: body, actor: caller });
  return json(201, ticket, { noStore: true, headers: { Location: `/api/envelopes/${ticket.envelopeId}` } });
}

httpFunction('GetUploadUrl', {
  methods: ['POST'],
  authLevel: 'anonymous',
  route: 'GetUploadUrl',
  access: 'bearer',
  handler: getUploadUrl,
});
