/**
 * The handler of `DeleteTemplateDocument` (DELETE /api/templates/{id}/documents/{documentId}).
 * Registered in `src/functions/DeleteTemplateDocument.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { removeTemplateDocument } from '../lib/templates/documents.js';
import { templateETag } from '../lib/templates/model.js';
import { templateView } from '../lib/templates/view.js';

/** 200 `{removedFieldIds, template}`: the fields that went with the document, and the template as it is now. */
export async function deleteOwnTemplateDocument(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const services = getServices();
  const { record, removedFieldIds } = await removeTemplateDocument({ services, templateId: request.params.id ?? '', documentId: request.params.documentId ?? '', actor: caller, ifMatch: request.headers.get('if-match') });
  return json(200, { removedFieldIds, template: await templateView(services, caller.organizationId, record) }, { noStore: true, headers: { ETag: templateETag(record) } });
}
