/**
 * The handler of `AddTemplateDocument` (POST /api/templates/{id}/documents).
 * Registered in `src/functions/AddTemplateDocument.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { uploadRequest } from '../lib/envelopes/schemas.js';
import { readJsonBody } from '../lib/http/body.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { addTemplateDocument } from '../lib/templates/documents.js';
import { templateETag } from '../lib/templates/model.js';

/** 201 `{documentId, uploadUrl, blobName, expiresAt}` with the template's new `ETag`. */
export async function addOwnTemplateDocument(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const body = await readJsonBody(request, uploadRequest);
  const { record, ticket } = await addTemplateDocument({ services, templateId: request.params.id ?? '', actor: caller, ifMatch: request.headers.get('if-match'), request: body });
  return json(201, ticket, { noStore: true, headers: { ETag: templateETag(record), Location: `/api/templates/${record.id}` } });
}
