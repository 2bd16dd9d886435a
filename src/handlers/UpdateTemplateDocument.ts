/**
 * The handler of `UpdateTemplateDocument` (PATCH /api/templates/{id}/documents/{documentId}).
 * Registered in `src/functions/UpdateTemplateDocument.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { updateDocumentRequest } from '../lib/envelopes/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { updateTemplateDocument } from '../lib/templates/documents.js';
import { templateETag } from '../lib/templates/model.js';
import { templateView } from '../lib/templates/view.js';

/** 200 the template as it is now. */
export async function updateOwnTemplateDocument(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const body = await readJsonBody(request, updateDocumentRequest);
  const record = await updateTemplateDocument({ services, templateId: request.params.id ?? '', documentId: request.params.documentId ?? '', actor: caller, ifMatch: request.headers.get('if-match'), request: body });
  return json(200, await templateView(services, caller.organizationId, record), { noStore: true, headers: { ETag: templateETag(record) } });
}
