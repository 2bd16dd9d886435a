/**
 * The handler of `GetTemplate` (GET /api/templates/{id}).
 * Registered in `src/functions/GetTemplate.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { templateETag } from '../lib/templates/model.js';
import { readOwnedTemplate, toTemplateView } from '../lib/templates/view.js';

export async function getOwnTemplate(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const { record } = await readOwnedTemplate(services.templates, caller.userId, request.params.id ?? '');
  return json(200, await toTemplateView(record, services.storage.sas), { noStore: true, headers: { ETag: templateETag(record) } });
}
