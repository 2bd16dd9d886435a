/**
 * The handler of `GetTemplate` (GET /api/templates/{id}).
 * Registered in `src/functions/GetTemplate.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { templateETag } from '../lib/templates/model.js';
import { readTemplateFor } from '../lib/templates/access.js';
import { templateView } from '../lib/templates/view.js';

export async function getOwnTemplate(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const { record } = await readTemplateFor(services, caller, request.params.id ?? '', 'read');
  return json(200, await templateView(services, caller.organizationId, record), { noStore: true, headers: { ETag: templateETag(record) } });
}
