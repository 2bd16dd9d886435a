/**
 * The handler of `CreateTemplate` (POST /api/templates).
 * Registered in `src/functions/CreateTemplate.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { createTemplate } from '../lib/templates/create.js';
import { templateETag } from '../lib/templates/model.js';
import { createTemplateRequest } from '../lib/templates/schemas.js';
import { templateView } from '../lib/templates/view.js';

export async function createOwnTemplate(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const body = await readJsonBody(request, createTemplateRequest);
  const created = await createTemplate({ services, request: body, actor: caller });
  const template = await templateView(services, caller.organizationId, created.record);
  return json(201, { template, uploadUrl: created.uploadUrl, blobName: created.blobName }, {
    noStore: true,
    headers: { Location: `/api/templates/${created.record.id}`, ETag: templateETag(created.record) },
  });
}
