/**
 * The handler of `CreateBulkJob` (POST /api/templates/{id}/bulk).
 * Registered in `src/functions/CreateBulkJob.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { createBulkJob, type BulkBody } from '../lib/bulk/create.js';
import { toBulkJobView } from '../lib/bulk/model.js';
import type { Actor } from '../lib/envelopes/model.js';
import { mediaTypeOf, readCsvBody, readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { problem } from '../lib/problems.js';
import { getServices } from '../lib/services.js';
import { z } from 'zod';

export async function createBulkJobHandler(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const job = await createBulkJob({ services, templateId: request.params.id ?? '', body: await bulkBody(request), actor: caller });
  return json(202, { ...toBulkJobView(job), status: 'queued' }, { headers: { Location: `/api/bulk/${job.id}` } });
}

/**
 * The body as JSON, or as CSV with `send` from the query (`?send=false`; default `true`).
 * @throws AppError 415 for any other media type; 400 for a `send` other than `true` or `false`
 */
async function bulkBody(request: HttpRequest): Promise<BulkBody> {
  const mediaType = mediaTypeOf(request);
  if (mediaType === 'text/csv') {
    const send = request.query.get('send');
    if (send !== null && send !== 'true' && send !== 'false') {
      throw problem('validationFailed', { detail: 'The query is invalid: send must be true or false.', errors: [{ path: 'send', message: 'must be true or false' }] });
    }
    return { kind: 'csv', text: await readCsvBody(request), send: send !== 'false' };
  }
  if (mediaType !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) {
    throw problem('unsupportedMediaType', { detail: 'The request body must be JSON (Content-Type: application/json) or CSV (Content-Type: text/csv).' });
  }
  return { kind: 'json', value: await readJsonBody(request, z.unknown()) };
}
