/**
 * The handler of `DownloadEnvelope` (GET /api/envelopes/{id}/download).
 * Registered in `src/functions/DownloadEnvelope.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { envelopeArchive } from '../lib/envelopes/download.js';
import type { Actor } from '../lib/envelopes/model.js';
import { withStandardHeaders } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';

/** 200 `application/zip`, streamed as it is made (no `Content-Length`). */
export async function downloadEnvelope(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const { stream, filename } = await envelopeArchive({ services: getServices(), actor: caller, envelopeId: request.params.id ?? '' });
  return withStandardHeaders({
    status: 200,
    body: stream,
    headers: { 'Content-Type': 'application/zip', 'Content-Disposition': `attachment; filename="${filename}"`, 'Cache-Control': 'no-store' },
  });
}
