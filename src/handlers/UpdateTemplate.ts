/**
 * The handler of `UpdateTemplate` (PUT and PATCH /api/templates/{id}).
 * Registered in `src/functions/UpdateTemplate.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { templateETag } from '../lib/templates/model.js';
import { updateTemplateRequest } from '../lib/templates/schemas.js';
import { updateTemplate } from '../lib/templates/update.js';
import { templateView } from '../lib/templates/view.js';

export async function updateOwnTemplate(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const body = await readJsonBody(request, updateTemplateRequest);
  const record = await updateTemplate({ services, templateId: request.params.id ?? '', request: body, actor: caller, ifMatch: request.headers.get('if-match') });
  return json(200, await templateView(services, caller.organizationId, record), { noStore: true, headers: { ETag: templateETag(record) } });
}
