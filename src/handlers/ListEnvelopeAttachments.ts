/**
 * The handler of `ListEnvelopeAttachments` (GET /api/envelopes/{id}/attachments).
 * Registered in `src/functions/ListEnvelopeAttachments.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { listAttachments } from '../lib/envelopes/attachments.js';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

/** 200 `{attachments}`: the files the signers' values name, in field order (docs/api.md#files-from-signers). */
export async function listEnvelopeAttachments(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  return json(200, await listAttachments({ services: getServices(), actor: caller, envelopeId: request.params.id ?? '' }));
}
