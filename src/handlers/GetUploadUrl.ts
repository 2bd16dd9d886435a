/**
 * The handler of `GetUploadUrl` (POST /api/GetUploadUrl).
 * Registered in `src/functions/GetUploadUrl.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { createEnvelopeUpload, type UploadTicket } from '../lib/envelopes/createUpload.js';
import type { Actor } from '../lib/envelopes/model.js';
import { uploadRequest } from '../lib/envelopes/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { answerInTransaction } from '../lib/http/idempotency.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

export async function getUploadUrl(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const body = await readJsonBody(request, uploadRequest);
  // With an Idempotency-Key, the answer is stored in the envelope's own transaction.
  const ticket = await createEnvelopeUpload({ services: getServices(), request: body, actor: caller, beforeCommit: (known) => answerInTransaction(created(known)) });
  return created(ticket);
}

/** 201 with the ticket; the same bytes each time for the same ticket. */
function created(ticket: UploadTicket): HttpResponseInit {
  return json(201, ticket, { noStore: true, headers: { Location: `/api/envelopes/${ticket.envelopeId}` } });
}
