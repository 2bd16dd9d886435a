/**
 * The handler of `DetectTemplateFields` (POST /api/templates/{id}/fields/detect).
 * Registered in `src/functions/DetectTemplateFields.ts`, which loads this module on the function's first invocation.
 */
import type { HttpRequest, HttpResponseInit } from '@azure/functions';
import { fieldsWithDocuments } from '../lib/envelopes/documents.js';
import type { Actor } from '../lib/envelopes/model.js';
import { json } from '../lib/http/respond.js';
import { getServices } from '../lib/services.js';
import { detectTemplateFields } from '../lib/templates/detectFields.js';
import { templateETag } from '../lib/templates/model.js';

export async function detectOwnTemplateFields(request: HttpRequest, _context: unknown, caller: Actor): Promise<HttpResponseInit> {
  const result = await detectTemplateFields({ services: getServices(), templateId: request.params.id ?? '', actor: caller, ifMatch: request.headers.get('if-match') });
  return json(200, { fields: fieldsWithDocuments(result.record), textTags: result.textTags, formFields: result.formFields }, { headers: { ETag: templateETag(result.record) } });
}
