/**
 * The handler of `GetEnvelopeAttachment` (GET /api/envelopes/{id}/attachments/{attachmentId}).
 * Registered in `src/functions/GetEnvelopeAttachment.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { attachmentUrl } from '../lib/envelopes/attachments.js';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

/** 200 `{url}`: a read-only SAS URL of the attachment, valid 15 minutes (docs/api.md#files-from-signers). */
export async function getEnvelopeAttachment(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const answer = await attachmentUrl({ services: getServices(), actor: caller, envelopeId: request.params.id ?? '', attachmentId: request.params.attachmentId ?? '' });
  return json(200, answer, { noStore: true });
}
