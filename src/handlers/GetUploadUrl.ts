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
  // The answer is made once, just before the envelope's transaction: with an Idempotency-Key, that
  // transaction stores it as the kept answer, and the very same answer goes out.
  let answer: HttpResponseInit | undefined;
  await createEnvelopeUpload({ services: getServices(), request: body, actor: caller, beforeCommit: (ticket) => (answer = answerInTransaction(created(ticket))) });
  return answer!;
}

/** 201 with the ticket; the same bytes each time for the same ticket. */
function created(ticket: UploadTicket): HttpResponseInit {
  return json(201, ticket, { noStore: true, headers: { Location: `/api/envelopes/${ticket.envelopeId}` } });
}
